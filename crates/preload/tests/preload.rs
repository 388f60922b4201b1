//! The C programs in `tests/c/`, compiled here and run with and without the preload library,
//! under every lock of `LockKind`: each must succeed and print exactly what it prints on glibc's
//! own locks.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use welltempered_lock::LockKind;

/// `libwelltempered_preload.so`, which cargo builds beside this test (both in `deps/`) because
/// the test depends on the package's library.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/preload-HASH -> target/<profile>/deps/libwelltempered_preload.so
    let lib = exe.parent().unwrap().join("libwelltempered_preload.so");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// Compiles `tests/c/NAME.c` once per test run and returns the executable.
fn program(name: &str) -> PathBuf {
    static BUILT: OnceLock<std::sync::Mutex<Vec<String>>> = OnceLock::new();
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("preload-c");
    let exe = out_dir.join(name);
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap();
    if !built.iter().any(|b| b == name) {
        std::fs::create_dir_all(&out_dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/c")
            .join(format!("{name}.c"));
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&cc)
            .args(["-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
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

fn run(exe: &Path, args: &[&str], env: &[(&str, &str)], preload: bool) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env_remove("WELLTEMPERED_LOCK")
        .env_remove("WELLTEMPERED_PRELOAD_STATS");
    if preload {
        cmd.env("LD_PRELOAD", library());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn describe(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `name args` on glibc, then under every lock kind, and compares.
fn every_kind(name: &str, args: &[&str]) {
    every_kind_scaled(name, args, args);
}

/// As [`every_kind`], with `spin_args` for the FIFO locks that only spin: once threads outnumber
/// cores they hand the lock to descheduled waiters (the collapse the park forms exist to avoid),
/// so the same work takes them orders of magnitude longer.
fn every_kind_scaled(name: &str, args: &[&str], spin_args: &[&str]) {
    let exe = program(name);
    let base = run(&exe, args, &[], false);
    assert!(
        base.status.success(),
        "{name} {args:?} fails on glibc itself: {}",
        describe(&base)
    );
    let spin_base = run(&exe, spin_args, &[], false);
    assert!(
        spin_base.status.success(),
        "{name} {spin_args:?} fails on glibc itself: {}",
        describe(&spin_base)
    );
    for kind in LockKind::ALL {
        let k = kind.to_string();
        let (args, base) = if kind.is_fifo() && !kind.parks() {
            (spin_args, &spin_base)
        } else {
            (args, &base)
        };
        let o = run(
            &exe,
            args,
            &[
                ("WELLTEMPERED_LOCK", &k),
                ("WELLTEMPERED_PRELOAD_STATS", "1"),
            ],
            true,
        );
        assert!(
            o.status.success(),
            "{name} {args:?} under {k}: {}",
            describe(&o)
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&base.stdout),
            "{name} {args:?} under {k} printed something else than on glibc"
        );
        // The statistics prove the program really ran on our lock.
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("welltempered-preload: {k}: acquisitions "))),
            "{name} under {k}: no acquisitions of our lock were counted:\n{err}"
        );
    }
}

#[test]
fn counter_2_threads() {
    every_kind("counter", &["2", "20000"]);
}

#[test]
fn counter_4_threads() {
    every_kind_scaled("counter", &["4", "5000"], &["4", "300"]);
}

#[test]
fn counter_16_threads() {
    every_kind_scaled("counter", &["16", "1000"], &["16", "30"]);
}

#[test]
fn counter_64_threads_oversubscribed() {
    every_kind_scaled("counter", &["64", "100"], &["64", "10"]);
}

#[test]
fn trylock_timedlock_error_codes() {
    every_kind("timed", &[]);
}

#[test]
fn bounded_buffer_on_condition_variables() {
    every_kind_scaled("buffer", &["2", "2", "5000"], &["2", "2", "500"]);
    every_kind_scaled("buffer", &["1", "3", "5000"], &["1", "3", "500"]);
}

#[test]
fn broadcast_barrier() {
    every_kind_scaled("barrier", &["4", "200"], &["4", "20"]);
}

#[test]
fn recursive_and_errorcheck_mutexes_go_to_glibc() {
    every_kind("kinds", &[]);
}

#[test]
fn mutexes_in_heap_objects_freed_after_unlock() {
    every_kind_scaled("heapfree", &["4", "5000"], &["4", "300"]);
}

#[test]
fn timed_condition_waits_on_their_clock() {
    every_kind("condclock", &[]);
}

#[test]
fn threads_and_mutexes_before_main() {
    every_kind("prector", &[]);
}

#[test]
fn a_malloc_that_locks_mutexes_does_not_recurse() {
    every_kind("mallocmutex", &[]);
}

#[test]
fn unknown_lock_name_falls_back_to_glibc_with_one_message() {
    let exe = program("buffer");
    let base = run(&exe, &["2", "2", "2000"], &[], false);
    let o = run(
        &exe,
        &["2", "2", "2000"],
        &[("WELLTEMPERED_LOCK", "no-such-lock")],
        true,
    );
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(o.stdout, base.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("WELLTEMPERED_LOCK=no-such-lock: not a lock")
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("hemlock-park"),
        "the message lists the valid names: {err}"
    );
}

#[test]
fn default_lock_is_the_default_mutex() {
    let exe = program("counter");
    let o = run(
        &exe,
        &["2", "1000"],
        &[("WELLTEMPERED_PRELOAD_STATS", "1")],
        true,
    );
    assert!(o.status.success(), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("welltempered-preload: mutex: acquisitions "),
        "{err}"
    );
}

#[test]
fn glibc_kinds_are_counted_separately() {
    let exe = program("kinds");
    let o = run(&exe, &[], &[("WELLTEMPERED_PRELOAD_STATS", "1")], true);
    assert!(o.status.success(), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("routed to glibc"))
        .unwrap_or_else(|| panic!("{err}"));
    let n: u64 = line
        .rsplit(": ")
        .next()
        .unwrap()
        .trim_end_matches(" acquisitions")
        .parse()
        .unwrap();
    assert!(
        n >= 8,
        "the recursive and error-checking locks went to glibc: {line}"
    );
}
