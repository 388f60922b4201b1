//! Unmodified OpenMP programs run on `libwelltempered_gomp.so` exactly as they run on libgomp.
//!
//! The C programs in `tests/c/` are compiled here with `gcc -O2 -fopenmp` (so they call
//! libgomp's ABI, `GOMP_*` and `omp_*`, as gcc 12 emits it) and run twice per case: on libgomp
//! itself, then with `LD_PRELOAD=libwelltempered_gomp.so`. Each program checks itself (every loop
//! iteration exactly once, every reduction against the serial loop, every lock and barrier
//! protecting what it protects; exit status 1 with a message otherwise) and prints only what is
//! deterministic for a given `OMP_NUM_THREADS`. A case passes when both runs exit 0 and print
//! the same stdout, byte for byte: the library gives every construct libgomp's semantics and
//! every query (`omp_get_level`, `omp_get_schedule`, ...) libgomp's answer. One program
//! (`refused.c`) calls entry points the library does not implement: it must stop at the first
//! with a message naming it.
//!
//! The cases: `OMP_NUM_THREADS` 1, 2, 3, 4 and 8 (8 oversubscribes the test machines), then with
//! 3 threads every barrier (`WELLTEMPERED_BARRIER`) and a spread of locks (`WELLTEMPERED_LOCK`:
//! a spinning and a parking queue lock, a parking ticket lock, the futex and the default
//! mutex). The children's environment is cleared of every `OMP_*`, `GOMP_*` and
//! `WELLTEMPERED_*` variable except those a case sets. One more run per program with
//! `LD_DEBUG=bindings` proves that the program's `GOMP_*` and `omp_*` calls bind to our library,
//! not to libgomp (which the program still loads, as its `DT_NEEDED`).
//!
//! Without a `gcc` that accepts `-fopenmp` (checked once) the tests cannot run: each prints
//! `SKIPPED: ...` straight to the process's stderr (not through the test harness's capture, so
//! the line shows even when the test passes) and returns.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The team sizes every program runs with, on libgomp and on our library.
const THREADS: [&str; 5] = ["1", "2", "3", "4", "8"];

/// The barriers of `WELLTEMPERED_BARRIER`, each run with [`KIND_THREADS`] threads.
const BARRIERS: [&str; 3] = ["central", "tree", "dissemination"];

/// A spread of `WELLTEMPERED_LOCK` kinds, each run with [`KIND_THREADS`] threads.
const LOCKS: [&str; 5] = ["hemlock", "mcs-park", "ticket-park", "futex", "mutex"];

/// The team size of the barrier and lock cases: more threads than the test machines' two cores.
const KIND_THREADS: &str = "3";

/// How long one run may take before it is killed (the programs' own watchdog fires at 60 s; this
/// one also covers a hang before `main`).
const RUN_TIMEOUT: Duration = Duration::from_secs(120);

/// The compiler: the programs need gcc's `-fopenmp` (libgomp's ABI), not any `cc`.
const GCC: &str = "gcc";

/// `libwelltempered_gomp.so`, which cargo builds beside this test (both in `deps/`) because the
/// test depends on the package's library.
fn gomp_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/c_programs-HASH -> target/<profile>/deps/libwelltempered_gomp.so
    let lib = exe.parent().unwrap().join("libwelltempered_gomp.so");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

fn tmp_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("gomp-c")
}

/// Why OpenMP programs cannot be built here, if they cannot: `gcc` is missing, or it does not
/// compile, link or run a program with `-fopenmp`. Checked once per test run.
fn cannot_build() -> Option<&'static str> {
    static REASON: OnceLock<Option<String>> = OnceLock::new();
    REASON
        .get_or_init(|| {
            let dir = tmp_dir();
            std::fs::create_dir_all(&dir).unwrap();
            let src = dir.join("probe.c");
            let exe = dir.join("probe");
            std::fs::write(
                &src,
                "#include <omp.h>\n\
                 int main(void) {\n\
                 \x20   int n = 0;\n\
                 #pragma omp parallel num_threads(2) reduction(+ : n)\n\
                 \x20   n += 1;\n\
                 \x20   return n == 2 && omp_get_max_threads() > 0 ? 0 : 1;\n\
                 }\n",
            )
            .unwrap();
            let out = match Command::new(GCC)
                .args(["-O2", "-fopenmp", "-o"])
                .arg(&exe)
                .arg(&src)
                .output()
            {
                Ok(out) => out,
                Err(e) => return Some(format!("cannot run `{GCC}`: {e}")),
            };
            if !out.status.success() {
                return Some(format!(
                    "`{GCC} -fopenmp` cannot build an OpenMP program:\n{}",
                    String::from_utf8_lossy(&out.stderr).trim_end()
                ));
            }
            let run = clean_command(&exe).env("OMP_NUM_THREADS", "2").output();
            match run {
                Ok(o) if o.status.success() => None,
                Ok(o) => Some(format!(
                    "an OpenMP program built by `{GCC} -fopenmp` fails on libgomp: {}",
                    describe(&o.status, &o.stdout, &o.stderr)
                )),
                Err(e) => Some(format!("cannot run an OpenMP program: {e}")),
            }
        })
        .as_deref()
}

/// True, after saying so on the real stderr, when the programs cannot be built here.
fn skipped(test: &str) -> bool {
    match cannot_build() {
        None => false,
        Some(reason) => {
            // Straight to fd 2, in one write: the harness captures eprintln!, and a skip must not
            // pass silently.
            let line = format!("SKIPPED: {test}: {reason}\n");
            let _ = std::io::stderr().lock().write_all(line.as_bytes());
            true
        }
    }
}

/// Compiles `tests/c/NAME.c` once per test run and returns the executable.
fn program(name: &str) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    let out_dir = tmp_dir();
    let exe = out_dir.join(name);
    let mut built = BUILT.lock().unwrap();
    if !built.iter().any(|b| b == name) {
        std::fs::create_dir_all(&out_dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/c")
            .join(format!("{name}.c"));
        let out = Command::new(GCC)
            .args(["-O2", "-fopenmp", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("cannot run `{GCC}`: {e}"));
        assert!(
            out.status.success(),
            "compiling {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        built.push(name.to_string());
    }
    exe
}

/// What one run of a program did.
struct Run {
    /// The variables the case set (for messages).
    env: Vec<(String, String)>,
    preload: bool,
    status: ExitStatus,
    timed_out: bool,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

impl Run {
    fn ok(&self) -> bool {
        self.status.success() && !self.timed_out
    }

    fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }

    /// The case, as a shell would spell it.
    fn case(&self, exe: &Path) -> String {
        let mut s = String::new();
        for (k, v) in &self.env {
            s += &format!("{k}={v} ");
        }
        if self.preload {
            s += "LD_PRELOAD=libwelltempered_gomp.so ";
        }
        s + &exe.file_name().unwrap().to_string_lossy()
    }

    fn describe(&self) -> String {
        let status = if self.timed_out {
            format!("killed after {RUN_TIMEOUT:?}")
        } else {
            format!("{:?}", self.status)
        };
        describe_text(&status, &self.stdout, &self.stderr)
    }
}

fn describe(status: &ExitStatus, stdout: &[u8], stderr: &[u8]) -> String {
    describe_text(&format!("{status:?}"), stdout, stderr)
}

fn describe_text(status: &str, stdout: &[u8], stderr: &[u8]) -> String {
    format!(
        "status {status}\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(stdout),
        String::from_utf8_lossy(stderr)
    )
}

/// Whether the child must not inherit the variable: the runtimes' own settings and anything
/// that changes how the child links.
fn cleared(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    ["OMP_", "GOMP_", "WELLTEMPERED_"]
        .iter()
        .any(|p| name.starts_with(p))
        || name == "LD_PRELOAD"
        || name == "LD_DEBUG"
}

/// A command for `exe` with the [`cleared`] variables removed from its environment.
fn clean_command(exe: &Path) -> Command {
    let mut cmd = Command::new(exe);
    for (k, _) in std::env::vars_os() {
        if cleared(&k) {
            cmd.env_remove(&k);
        }
    }
    cmd
}

/// Runs `exe` with the case's variables (on a cleared environment), with our library preloaded
/// or not, killing it after [`RUN_TIMEOUT`].
fn run(exe: &Path, env: &[(&str, &str)], preload: bool) -> Run {
    let mut cmd = clean_command(exe);
    if preload {
        cmd.env("LD_PRELOAD", gomp_library());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", exe.display()));
    // Read both pipes while waiting, so that a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().unwrap();
    let mut err_pipe = child.stderr.take().unwrap();
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + RUN_TIMEOUT;
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() >= deadline {
            timed_out = true;
            let _ = child.kill();
            break child.wait().unwrap();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    Run {
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        preload,
        status,
        timed_out,
        stdout: out_reader.join().unwrap(),
        stderr: err_reader.join().unwrap(),
    }
}

/// The first line where two outputs differ, for messages (the outputs can be long).
fn first_difference(want: &str, got: &str) -> String {
    let (w, g): (Vec<&str>, Vec<&str>) = (want.lines().collect(), got.lines().collect());
    for i in 0..w.len().max(g.len()) {
        let (a, b) = (w.get(i), g.get(i));
        if a != b {
            return format!(
                "first difference at line {}:\n  libgomp: {}\n  ours:    {}",
                i + 1,
                a.unwrap_or(&"<no line>"),
                b.unwrap_or(&"<no line>")
            );
        }
    }
    "the outputs differ only in their final newline".into()
}

/// Runs `exe` on libgomp and on our library with the same variables and compares.
fn compare(exe: &Path, env: &[(&str, &str)]) {
    let base = run(exe, env, false);
    assert!(
        base.ok(),
        "{} fails on libgomp itself: {}",
        base.case(exe),
        base.describe()
    );
    let ours = run(exe, env, true);
    if !ours.ok() {
        panic!("{} fails: {}", ours.case(exe), ours.describe());
    }
    let (want, got) = (base.stdout(), ours.stdout());
    assert!(
        want == got,
        "{} printed something else than on libgomp; {}\n\nlibgomp's stdout:\n{want}\nour stdout:\n{got}\nour stderr:\n{}",
        ours.case(exe),
        first_difference(&want, &got),
        ours.stderr()
    );
}

/// Runs `LD_DEBUG=bindings` with our library preloaded and checks that the program's calls into
/// the OpenMP runtime bind to it: at least one `GOMP_*` or `omp_*` binding, none to another
/// object (libgomp).
fn check_bindings(exe: &Path) {
    let lib = gomp_library();
    let lib_name = lib.file_name().unwrap().to_string_lossy().into_owned();
    let exe_name = exe.file_name().unwrap().to_string_lossy().into_owned();
    let o = run(
        exe,
        &[("OMP_NUM_THREADS", "2"), ("LD_DEBUG", "bindings")],
        true,
    );
    let err = o.stderr();
    if !o.ok() {
        // The program's own messages, without the thousands of binding lines.
        let messages: Vec<&str> = err
            .lines()
            .filter(|l| !l.contains("binding file"))
            .collect();
        panic!(
            "{} fails: {}",
            o.case(exe),
            describe_text(
                &format!("{:?} (timed out: {})", o.status, o.timed_out),
                &o.stdout,
                messages.join("\n").as_bytes()
            )
        );
    }
    let mut ours = 0;
    let mut elsewhere = std::collections::BTreeSet::new();
    // "binding file /path/prog [0] to /path/lib.so [0]: normal symbol `GOMP_parallel' [GOMP_4.0]"
    for line in err.lines() {
        let Some(rest) = line.split("binding file ").nth(1) else {
            continue;
        };
        let Some((from, rest)) = rest.split_once(" to ") else {
            continue;
        };
        let from = from.split(" [").next().unwrap();
        if !from.ends_with(&format!("/{exe_name}")) && from != exe_name {
            continue;
        }
        let Some((to, rest)) = rest.split_once(" [") else {
            continue;
        };
        let Some(symbol) = rest.split('`').nth(1).and_then(|s| s.split('\'').next()) else {
            continue;
        };
        if !(symbol.starts_with("GOMP_") || symbol.starts_with("omp_")) {
            continue;
        }
        if to.ends_with(&format!("/{lib_name}")) {
            ours += 1;
        } else {
            elsewhere.insert(format!("{symbol} -> {to}"));
        }
    }
    assert!(
        elsewhere.is_empty(),
        "{exe_name}: calls bound to another runtime than ours: {elsewhere:?}"
    );
    assert!(
        ours > 0,
        "{exe_name}: no GOMP_*/omp_* binding to {lib_name} seen with LD_DEBUG=bindings"
    );
}

/// Every case of one program: each team size, then each barrier and each lock.
fn every_case(name: &str) {
    if skipped(name) {
        return;
    }
    let exe = program(name);
    for threads in THREADS {
        compare(&exe, &[("OMP_NUM_THREADS", threads)]);
    }
    for barrier in BARRIERS {
        compare(
            &exe,
            &[
                ("OMP_NUM_THREADS", KIND_THREADS),
                ("WELLTEMPERED_BARRIER", barrier),
            ],
        );
    }
    for lock in LOCKS {
        compare(
            &exe,
            &[
                ("OMP_NUM_THREADS", KIND_THREADS),
                ("WELLTEMPERED_LOCK", lock),
            ],
        );
    }
    check_bindings(&exe);
}

/// `parallel`, nested regions and the team and ICV queries (`tests/c/parallel.c`).
#[test]
fn parallel_regions_and_queries() {
    every_case("parallel");
}

/// Worksharing loops under every schedule, ordered, collapse, nowait (`tests/c/loops.c`).
#[test]
fn worksharing_loops() {
    every_case("loops");
}

/// Every reduction operator on int, long and double (`tests/c/reductions.c`).
#[test]
fn reductions() {
    every_case("reductions");
}

/// critical, atomic, barrier, single, master, masked, sections, the lock API, flush
/// (`tests/c/sync.c`).
#[test]
fn synchronisation_and_locks() {
    every_case("sync");
}

/// task, taskwait, taskgroup, depend (`tests/c/tasks.c`).
#[test]
fn tasks() {
    every_case("tasks");
}

/// taskloop (`tests/c/taskloop.c`): libgomp's output, the tasks run one after the other.
#[test]
fn taskloops() {
    every_case("taskloop");
}

/// `cancel for` with cancellation off: libgomp's output (`tests/c/unimplemented.c`).
#[test]
fn cancellation_is_a_no_op() {
    every_case("unimplemented");
}

/// Binding (`tests/c/places.c`): the place list, `omp_get_proc_bind`, and where each thread may
/// run, under `OMP_PROC_BIND` and `OMP_PLACES` (libgomp, loaded beside us, binds the initial
/// thread before our library starts: ours must still see libgomp's whole place list).
#[test]
fn binding_follows_omp_places() {
    if skipped("places") {
        return;
    }
    let exe = program("places");
    for env in [
        &[("OMP_PROC_BIND", "true")][..],
        &[("OMP_PROC_BIND", "spread"), ("OMP_PLACES", "threads")],
        &[("OMP_PROC_BIND", "close"), ("OMP_PLACES", "cores")],
        &[("OMP_PROC_BIND", "primary")],
        &[("OMP_PLACES", "{0}")],
    ] {
        for threads in ["1", "2", "3"] {
            let mut vars = env.to_vec();
            vars.push(("OMP_NUM_THREADS", threads));
            compare(&exe, &vars);
        }
    }
}

/// An entry point the library does not implement stops the program with a message naming it
/// (`tests/c/refused.c`): never a silent wrong answer, never a call handed to libgomp.
#[test]
fn unimplemented_entry_points_are_refused() {
    if skipped("refused") {
        return;
    }
    let exe = program("refused");
    let base = run(&exe, &[("OMP_NUM_THREADS", "2")], false);
    assert!(base.ok(), "refused.c fails on libgomp: {}", base.describe());
    let ours = run(&exe, &[("OMP_NUM_THREADS", "2")], true);
    assert!(
        !ours.ok() && !ours.timed_out,
        "refused.c was not stopped: {}",
        ours.describe()
    );
    assert!(
        ours.stderr()
            .contains("welltempered-gomp: omp_display_env is not implemented"),
        "no message naming the entry point: {}",
        ours.describe()
    );
    assert!(
        ours.stdout().is_empty(),
        "refused.c went on after the refused call: {}",
        ours.describe()
    );
}
