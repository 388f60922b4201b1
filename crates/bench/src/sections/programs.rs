//! Programs: real Rust programs, unmodified, on welltempered (`welltempered programs`).
//!
//! Each program is built twice from its published crate by `scripts/programs.sh` (which fetches
//! it with cargo): as published, and with `[patch.crates-io]` pointing its channel or lock
//! dependency at `compat/` (crossbeam-channel or parking_lot). This section runs the two builds
//! alternately on the same input and compares them: the whole process's wall time (the primary
//! figure), its CPU time (from `wait4`) and its peak RSS (from GNU time, where installed), and
//! its output, which must be the same (sorted first where the program's order varies between
//! runs).
//!
//! The programs (versions pinned by the script): fd 10.5.0 (a parallel file walker; every
//! entry of a tree of 200,000 files, and `-e rs`), slog-async 2.8.0 (an asynchronous logger),
//! rusty_pool 1.0.0 (a thread pool), tokio 1.54.1's multi-thread runtime with its
//! `parking_lot` feature; the last three driven by `scripts/programs/*.rs`.
//!
//! Building takes about 20 minutes and needs network the first time, so `report` (and
//! `--no-build`) only measures what is already built, and says how to build the rest;
//! `welltempered programs` builds what is missing.

use super::omp_programs::hash52;
use super::{Ctx, Suite};
use crate::args::parse_positive;
use crate::harness;
use crate::model::{Group, Metric, Sample, Section};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches};
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Options of `welltempered programs`.
#[derive(Args, Clone, Debug, Default)]
pub struct ProgramsArgs {
    /// Where the builds live (`scripts/programs.sh`'s PROGRAMS_DIR) [default: target/programs
    /// of the workspace].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Alternating pairs of runs per program [default: 10; quick: 5].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
    /// Measure only what is built; never run the build script.
    #[arg(long)]
    pub no_build: bool,
    /// Only these programs (comma-separated): fd, logger, pool, runtime.
    #[arg(long, value_delimiter = ',')]
    pub programs: Option<Vec<String>>,
}

/// The two builds, in table order; the first is the baseline.
const PUBLISHED: &str = "as published";
const OURS: &str = "welltempered";

/// One measured workload of a program.
struct Workload {
    /// The group's name (`fd-all`).
    name: &'static str,
    /// The program, as `scripts/programs.sh` names it (`fd`).
    program: &'static str,
    /// What runs, for the group's title.
    what: &'static str,
    /// The builds, relative to the build directory.
    published: &'static str,
    ours: &'static str,
    /// Arguments; `{dir}` stands for the build directory.
    args: &'static [&'static str],
    /// Whether the output's line order varies between runs (compared sorted).
    sorted: bool,
}

const WORKLOADS: &[Workload] = &[
    Workload {
        name: "fd-all",
        program: "fd",
        what: "fd 10.5.0 (crossbeam-channel): every entry of a tree of files (200,000 unless \
               FD_FILES said otherwise)",
        published: "fd-find/base/bin/fd",
        ours: "fd-find/ours/fd",
        args: &["--hidden", ".", "{dir}/fd-tree"],
        sorted: true,
    },
    Workload {
        name: "fd-rs",
        program: "fd",
        what: "fd 10.5.0 (crossbeam-channel): `-e rs` in the same tree",
        published: "fd-find/base/bin/fd",
        ours: "fd-find/ours/fd",
        args: &["-e", "rs", ".", "{dir}/fd-tree"],
        sorted: true,
    },
    Workload {
        name: "logger",
        program: "logger",
        what: "slog-async 2.8.0 (crossbeam-channel): 2 threads log 5 * 10^6 records each",
        published: "logger/base/logger",
        ours: "logger/ours/logger",
        args: &[],
        sorted: true,
    },
    Workload {
        name: "pool",
        program: "pool",
        what: "rusty_pool 1.0.0 (crossbeam-channel): 10^6 small jobs on 2 workers",
        published: "pool/base/pool",
        ours: "pool/ours/pool",
        args: &[],
        sorted: false,
    },
    Workload {
        name: "runtime",
        program: "runtime",
        what: "tokio 1.54.1 (parking_lot): 10^6 tasks and 10^5 blocking jobs on 2 workers",
        published: "runtime/base/runtime",
        ours: "runtime/ours/runtime",
        args: &[],
        sorted: false,
    },
];

/// The workspace's root (this crate is `crates/bench`).
fn workspace() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// Whether both builds of `w` are in `dir`.
fn built(w: &Workload, dir: &Path) -> bool {
    dir.join(w.published).is_file() && dir.join(w.ours).is_file()
}

/// Builds `program` into `dir` with `scripts/programs.sh` (BUILD_ONLY=1).
fn build(program: &str, dir: &Path) -> std::result::Result<(), String> {
    let script = workspace().join("scripts/programs.sh");
    if !script.is_file() {
        return Err(format!(
            "{} is missing (the build script lives in the welltempered repository)",
            script.display()
        ));
    }
    let status = Command::new("bash")
        .arg(&script)
        .arg(program)
        .env("PROGRAMS_DIR", dir)
        .env("BUILD_ONLY", "1")
        .stdout(Stdio::null())
        .status()
        .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
    if status.success() {
        Ok(())
    } else {
        Err(format!(
            "`scripts/programs.sh {program}` failed ({status}; it needs network the first time)"
        ))
    }
}

/// What one run of a program measured.
#[derive(Debug)]
struct Run {
    wall_s: f64,
    cpu_s: f64,
    max_rss_kb: f64,
    output_hash: f64,
    output_lines: usize,
}

/// A hash of a program's output, taken line by line as it streams.
#[derive(Debug, Default)]
struct OutputHash {
    /// Order-dependent: each line's hash folded into the last (output compared as is).
    ordered: u64,
    /// Order-independent: the wrapping sum of the lines' hashes (output compared as a
    /// multiset of lines, as if sorted).
    unordered: u64,
    sorted: bool,
    lines: usize,
}

impl OutputHash {
    /// Reads `out` to its end.
    fn read(out: impl Read, sorted: bool) -> std::io::Result<Self> {
        let mut h = OutputHash {
            sorted,
            ..Default::default()
        };
        let mut out = std::io::BufReader::with_capacity(1 << 16, out);
        let mut line = Vec::new();
        loop {
            line.clear();
            if std::io::BufRead::read_until(&mut out, b'\n', &mut line)? == 0 {
                return Ok(h);
            }
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            let l = hash52(&line) as u64;
            h.ordered = h.ordered.wrapping_mul(0x0000_0100_0000_01b3) ^ l;
            // A mix of the line's hash, so that equal sums from different lines are unlikely.
            h.unordered = h
                .unordered
                .wrapping_add(l.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(29));
            h.lines += 1;
        }
    }

    /// The hash, exact as an `f64` (52 bits).
    fn value(&self) -> f64 {
        let v = if self.sorted {
            self.unordered
        } else {
            self.ordered
        };
        (v & ((1 << 52) - 1)) as f64
    }
}

/// GNU time, which reports its child's peak RSS.
const TIME: &str = "/usr/bin/time";

/// Runs `exe` with `args` to completion: wall time, its CPU time (`wait4`), its peak RSS (NaN
/// without [`TIME`]), and a hash of its output (of its lines sorted, when `sorted`).
///
/// **Why through GNU time.** A child's `ru_maxrss` keeps the high-water RSS of the memory it
/// had before `exec`, which for a child of this process is this process's (vfork shares it,
/// fork copies it): several megabytes, more than some programs use. GNU time is a small
/// process; the program it forks and execs starts from its few hundred kilobytes, and it
/// reports that child's own peak (`-f %M`).
fn run_once(exe: &Path, args: &[String], sorted: bool) -> Result<Run> {
    let rss_file = std::env::temp_dir().join(format!("welltempered-rss-{}", std::process::id()));
    let with_time = Path::new(TIME).is_file();
    let mut cmd = if with_time {
        let mut c = Command::new(TIME);
        c.args(["-f", "%M", "-o"]).arg(&rss_file).arg(exe);
        c
    } else {
        Command::new(exe)
    };
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("WELLTEMPERED_") {
            cmd.env_remove(&k);
        }
    }
    let t0 = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Error::new(format!("cannot run {}: {e}", exe.display())))?;
    // The output is hashed as it streams (10^7 log lines are about 600 MB).
    let read = child
        .stdout
        .take()
        .map(|s| OutputHash::read(s, sorted))
        .transpose();
    let (status, cpu_s) = wait_child(&mut child)?;
    let wall_s = t0.elapsed().as_secs_f64();
    let out = read
        .map_err(|e| Error::new(format!("reading {}'s output: {e}", exe.display())))?
        .unwrap_or_default();
    if let Err(status) = status {
        return Err(Error::new(format!(
            "{} {} failed ({status})",
            exe.display(),
            args.join(" ")
        )));
    }
    let max_rss_kb = if with_time {
        let text = std::fs::read_to_string(&rss_file)
            .map_err(|e| Error::new(format!("reading {}: {e}", rss_file.display())))?;
        let _ = std::fs::remove_file(&rss_file);
        text.trim()
            .parse::<f64>()
            .map_err(|e| Error::new(format!("{TIME} wrote {text:?}: {e}")))?
    } else {
        f64::NAN
    };
    Ok(Run {
        wall_s,
        cpu_s,
        max_rss_kb,
        output_hash: out.value(),
        output_lines: out.lines,
    })
}

/// Waits for `child`: whether it exited with 0 (else its wait status, in words), and the CPU
/// seconds of it and its descendants (`wait4`).
#[cfg(unix)]
fn wait_child(child: &mut std::process::Child) -> Result<(std::result::Result<(), String>, f64)> {
    let pid = libc::pid_t::try_from(child.id()).map_err(|e| Error::new(e.to_string()))?;
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value for wait4 to fill.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our child, not yet waited for (its `Child` is never waited on
        // here); `status` and `ru` are valid for writes.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            break;
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(Error::new(format!("wait4: {err}")));
        }
    }
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    let exited = if libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0 {
        Ok(())
    } else {
        Err(format!("wait status {status}"))
    };
    Ok((exited, secs(ru.ru_utime) + secs(ru.ru_stime)))
}

/// Waits for `child`: whether it exited with 0, and NaN CPU seconds (no `wait4` here).
#[cfg(not(unix))]
fn wait_child(child: &mut std::process::Child) -> Result<(std::result::Result<(), String>, f64)> {
    let status = child
        .wait()
        .map_err(|e| Error::new(format!("waiting for a program: {e}")))?;
    let exited = if status.success() {
        Ok(())
    } else {
        Err(status.to_string())
    };
    Ok((exited, f64::NAN))
}

/// Runs the programs section.
pub fn run_programs(args: &ProgramsArgs, ctx: &Ctx<'_>) -> Result<Section> {
    let dir = args
        .dir
        .clone()
        .unwrap_or_else(|| workspace().join("target/programs"));
    let reps = args.reps.unwrap_or(if ctx.quick { 5 } else { 10 });
    let may_build = !args.no_build && !ctx.quick;
    if let Some(names) = &args.programs
        && let Some(bad) = names
            .iter()
            .find(|n| !WORKLOADS.iter().any(|w| w.program == n.as_str()))
    {
        return Err(Error::usage(format!(
            "unknown program {bad:?} (known: fd, logger, pool, runtime)"
        )));
    }
    let chosen: Vec<&Workload> = WORKLOADS
        .iter()
        .filter(|w| {
            args.programs
                .as_ref()
                .is_none_or(|p| p.iter().any(|n| n == w.program))
        })
        .collect();
    let mut section = Section {
        name: "programs".into(),
        title: "Real Rust programs, unmodified, on welltempered through [patch.crates-io]".into(),
        baselines: vec![PUBLISHED.into()],
        sweep: None,
        config: serde_json::json!({ "reps": reps, "dir": dir.display().to_string() }),
        groups: Vec::new(),
    };
    let mut skipped = Vec::new();
    let mut tried: Vec<&str> = Vec::new();
    for w in chosen {
        if !built(w, &dir) && may_build && !tried.contains(&w.program) {
            tried.push(w.program);
            ctx.progress.stage(&format!("programs/build {}", w.program));
            if let Err(e) = build(w.program, &dir) {
                eprintln!("welltempered: programs: {e}");
            }
        }
        if !built(w, &dir) {
            if skipped.iter().any(|(p, _)| *p == w.program) {
                continue;
            }
            let why = format!(
                "{}: not built in {} (build with `cargo run --release -- programs --programs {}`: \
                 about 5 minutes a program, network the first time)",
                w.program,
                dir.display(),
                w.program
            );
            eprintln!("welltempered: programs: skipped {why}");
            skipped.push((w.program, why));
            continue;
        }
        ctx.progress.stage(&format!("programs/{}", w.name));
        ctx.progress.add_steps(2 * reps as u64);
        let argv: Vec<String> = w
            .args
            .iter()
            .map(|a| a.replace("{dir}", &dir.display().to_string()))
            .collect();
        let variants = vec![PUBLISHED.to_string(), OURS.to_string()];
        let mut lines = 0;
        let reps = harness::run_paired(&variants, reps, ctx.progress, |v| {
            let exe = dir.join(if v == OURS { w.ours } else { w.published });
            let r = run_once(&exe, &argv, w.sorted)?;
            lines = r.output_lines;
            Ok(Sample {
                value: r.wall_s,
                ops: 1,
                wall_s: r.wall_s,
                cpu_s: r.cpu_s,
                extra: BTreeMap::from([
                    ("output_hash".to_string(), r.output_hash),
                    ("cpu_s".to_string(), r.cpu_s),
                    ("max_rss_kib".to_string(), r.max_rss_kb),
                ]),
                ..Default::default()
            })
        })?;
        let g = Group {
            id: format!("programs/{}", w.name),
            title: format!(
                "{}: wall seconds per run (the whole process; {lines} output lines, the same on \
                 both builds)",
                w.what
            ),
            params: BTreeMap::from([("program".to_string(), w.program.into())]),
            metric: Metric {
                unit: "s".into(),
                higher_is_better: false,
                op: "run".into(),
            },
            variants,
            reps,
        };
        // Both builds gave the same output in every run.
        super::omp_programs::check_outputs(&g)?;
        // The same runs read for their CPU time and their peak RSS, as groups of their own so
        // that each gets its paired ratio.
        let by = |key: &str, what: &str, unit: &str| {
            let mut h = g.clone();
            h.id = format!("{}/{key}", g.id);
            h.title = format!("{}: {what} per run (the same runs)", w.what);
            h.metric.unit = unit.into();
            for s in h.reps.iter_mut().flat_map(|r| r.samples.iter_mut()) {
                s.value = s.extra.get(key).copied().unwrap_or(f64::NAN);
            }
            h
        };
        let cpu = by("cpu_s", "CPU seconds", "s");
        let rss = Path::new(TIME)
            .is_file()
            .then(|| by("max_rss_kib", "peak RSS", "KiB"));
        section.groups.extend([g, cpu]);
        section.groups.extend(rss);
    }
    if !Path::new(TIME).is_file() {
        eprintln!(
            "welltempered: programs: peak RSS not measured: {TIME} is missing (Debian package \
             `time`)"
        );
        section.config["rss"] = serde_json::json!(format!("not measured: {TIME} is missing"));
    }
    let skipped: Vec<String> = skipped.into_iter().map(|(_, why)| why).collect();
    section.config["skipped"] = serde_json::json!(skipped);
    Ok(section)
}

/// The programs section.
#[derive(Clone, Copy, Debug)]
pub struct ProgramsBench;

impl Suite for ProgramsBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        // Each program's whole-process time and CPU time, ours against the build as published
        // (no target: the evidence is the ratio, the same output and the remarks).
        let mut out = Vec::new();
        for g in &section.groups {
            let Some(name) = g.id.strip_prefix("programs/") else {
                continue;
            };
            let (program, what) = match name.split_once('/') {
                None => (name, "wall time"),
                Some((p, "cpu_s")) => (p, "CPU time"),
                Some(_) => continue,
            };
            let cell = format!("{program}, {what}");
            out.extend(crate::headline::ratio(
                section, &g.id, &cell, OURS, PUBLISHED, None,
            ));
        }
        out
    }

    fn name(&self) -> &'static str {
        "programs"
    }

    fn about(&self) -> &'static str {
        "Real Rust programs (fd, slog-async, rusty_pool, tokio), built from their published \
         crates as published and with their channel or lock patched to welltempered's compat/ \
         crates, run alternately: wall time, CPU time, peak RSS, output identical"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        ProgramsArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = ProgramsArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_programs(&a, ctx)
    }

    fn run_child(&self, _spec: &serde_json::Value) -> Result<Sample> {
        Err(Error::new(
            "the programs section runs its programs from the harness's own process",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_is_measured_and_its_sorted_output_hashed() {
        let sh = Path::new("/bin/sh");
        let a = run_once(sh, &["-c".into(), "printf 'b\\na\\n'".into()], true).unwrap();
        let b = run_once(sh, &["-c".into(), "printf 'a\\nb\\n'".into()], true).unwrap();
        assert_eq!(a.output_hash, b.output_hash);
        assert_eq!(a.output_lines, 2);
        // GNU time's own floor is about a megabyte; without it RSS is not measured.
        assert!(a.max_rss_kb > 0.0 || (a.max_rss_kb.is_nan() && !Path::new(TIME).is_file()));
        let c = run_once(sh, &["-c".into(), "printf 'b\\na\\n'".into()], false).unwrap();
        assert_ne!(a.output_hash, c.output_hash);
        let failed = run_once(sh, &["-c".into(), "exit 3".into()], false);
        assert!(failed.unwrap_err().to_string().contains("failed"));
    }

    #[test]
    fn nothing_built_is_skipped_with_the_command_that_builds_it() {
        let dir =
            std::env::temp_dir().join(format!("welltempered-no-programs-{}", std::process::id()));
        let progress = crate::harness::Progress::hidden();
        let ctx = Ctx {
            quick: true,
            progress: &progress,
        };
        let args = ProgramsArgs {
            dir: Some(dir.clone()),
            no_build: true,
            ..Default::default()
        };
        let section = run_programs(&args, &ctx).unwrap();
        assert!(section.groups.is_empty());
        let skipped = section.config["skipped"].as_array().unwrap();
        // One reason per program (fd has two workloads).
        assert_eq!(skipped.len(), 4);
        assert!(
            skipped[0]
                .as_str()
                .unwrap()
                .contains("programs --programs fd")
        );
        let bad = ProgramsArgs {
            programs: Some(vec!["ls".into()]),
            ..args
        };
        assert!(run_programs(&bad, &ctx).is_err());
    }

    #[test]
    fn workloads_name_known_programs() {
        for w in WORKLOADS {
            assert!(["fd", "logger", "pool", "runtime"].contains(&w.program));
            assert!(w.ours.starts_with(w.published.split('/').next().unwrap()));
        }
    }
}
