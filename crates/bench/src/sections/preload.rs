//! LevelDB `readrandom` under the preload library: the Hemlock paper's real-program benchmark
//! (§5, LevelDB), run on unmodified LevelDB through `libwelltempered_preload.so`.
//!
//! The section compiles a small C++ driver (`crates/preload/bench/leveldb_readrandom.cc`) against
//! Debian's `libleveldb-dev`, fills a database once, then reads random keys from `T` threads for
//! a fixed window under glibc's own mutexes (`glibc`, the baseline) and under each chosen lock
//! (`LD_PRELOAD` + `WELLTEMPERED_LOCK`). Every variant runs in its own process, paired and
//! interleaved like every other section. The results are checked, not just timed: every key read
//! must be found, and a checksum over a fixed set of reads must be the same under every lock.
//!
//! What it needs, and what it does without it: a C++ compiler (`$CXX` or `c++`) and LevelDB's
//! headers and library (`apt-get install libleveldb-dev`; `.ci/run` installs it), and the
//! preload library built in the same profile as this command (under `cargo run` the section
//! builds it with `$CARGO`). Where one is missing, the section says which, and is skipped.

use super::{Ctx, Suite};
use crate::args::{Threads, parse_duration, parse_positive, parse_threads};
use crate::counters::Rusage;
use crate::harness;
use crate::model::{Group, Metric, Sample, Section};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;
use welltempered_lock::LockKind;

/// The driver's source, compiled at run time.
const DRIVER_SOURCE: &str = include_str!("../../../preload/bench/leveldb_readrandom.cc");
/// The baseline variant: glibc's own mutexes.
pub const GLIBC: &str = "glibc";
const QUICK_LOCKS: &[&str] = &[GLIBC, "hemlock-park", "mutex"];
const FULL_LOCKS: &[&str] = &[
    GLIBC,
    "hemlock-park",
    "mcs-park",
    "clh-park",
    "ticket-park",
    "mutex",
    "futex",
];

/// Options of `welltempered preload`.
#[derive(Args, Clone, Debug, Default)]
pub struct PreloadArgs {
    /// Variants: `glibc` and lock names [default: glibc, the park forms, mutex and futex;
    /// quick: glibc,hemlock-park,mutex]. Spinning FIFO locks are left out of the default plans:
    /// at 16 readers on 2 cores one window of spinning Hemlock or MCS runs for up to minutes
    /// (each hand-over waits for a preempted successor, and a window ends only when every
    /// reader finishes its read); name them in `--locks` to see that collapse.
    #[arg(long, value_delimiter = ',')]
    pub locks: Option<Vec<String>>,
    /// Reader threads, counts or ranges (1,2 or 2-8) [default: 1,2,4,8,16; quick: 1,2,16].
    #[arg(long, value_delimiter = ',', value_parser = parse_threads)]
    pub threads: Option<Vec<Threads>>,
    /// Keys in the database [default: 200000; quick: 100000].
    #[arg(long, value_parser = parse_positive)]
    pub keys: Option<usize>,
    /// Measured window of each run, e.g. 500ms [default: 500ms; quick: 200ms].
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Repetitions [default: 5, in --quick too].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
}

/// The options in effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Variants in table order, `glibc` first.
    pub locks: Vec<String>,
    /// Reader threads.
    pub threads: Vec<usize>,
    /// Keys in the database.
    pub keys: usize,
    /// Window per run, milliseconds.
    pub duration_ms: u64,
    /// Repetitions.
    pub reps: usize,
}

impl PreloadArgs {
    /// Applies the defaults and validates the names.
    pub fn plan(&self, quick: bool) -> Result<Plan> {
        let mut locks = vec![GLIBC.to_string()];
        let chosen: Vec<String> = match &self.locks {
            Some(l) => l
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            None if quick => QUICK_LOCKS.iter().map(|s| s.to_string()).collect(),
            None => FULL_LOCKS.iter().map(|s| s.to_string()).collect(),
        };
        for name in chosen {
            if name != GLIBC {
                name.parse::<LockKind>()
                    .map_err(|e| Error::new(format!("{e} (or {GLIBC:?}, the baseline)")))?;
            }
            if !locks.contains(&name) {
                locks.push(name);
            }
        }
        let duration =
            self.duration
                .unwrap_or(Duration::from_millis(if quick { 200 } else { 500 }));
        if duration.as_millis() == 0 {
            return Err(Error::new("--duration must be at least 1ms"));
        }
        Ok(Plan {
            locks,
            threads: self
                .threads
                .clone()
                .map(Threads::flatten)
                .unwrap_or_else(|| {
                    if quick {
                        vec![1, 2, 16]
                    } else {
                        vec![1, 2, 4, 8, 16]
                    }
                }),
            keys: self.keys.unwrap_or(if quick { 100_000 } else { 200_000 }),
            duration_ms: duration.as_millis() as u64,
            reps: self.reps.unwrap_or(crate::sections::REPS),
        })
    }
}

/// What the driver printed for one run.
#[derive(Clone, Debug, PartialEq)]
pub struct Reading {
    /// Reads completed in the window.
    pub reads: u64,
    /// Reads that found their key.
    pub found: u64,
    /// Checksum of the fixed reads (the same under every lock).
    pub checksum: String,
    /// Length of the window, seconds.
    pub seconds: f64,
}

/// Parses `reads=N found=F checksum=C seconds=S`.
pub fn parse_reading(line: &str) -> Result<Reading> {
    let mut fields = BTreeMap::new();
    for kv in line.split_whitespace() {
        if let Some((k, v)) = kv.split_once('=') {
            fields.insert(k, v);
        }
    }
    let get = |k: &str| {
        fields
            .get(k)
            .copied()
            .ok_or_else(|| Error::new(format!("driver output lacks {k}=: {line:?}")))
    };
    let num = |k: &str| -> Result<u64> {
        get(k)?
            .parse()
            .map_err(|_| Error::new(format!("driver output has a bad {k}: {line:?}")))
    };
    Ok(Reading {
        reads: num("reads")?,
        found: num("found")?,
        checksum: get("checksum")?.to_string(),
        seconds: get("seconds")?
            .parse()
            .map_err(|_| Error::new(format!("driver output has bad seconds: {line:?}")))?,
    })
}

/// Where the section's tools are, once found or built.
struct Tools {
    driver: PathBuf,
    library: PathBuf,
    db: PathBuf,
}

fn compile_driver(work: &Path) -> std::result::Result<PathBuf, String> {
    let src = work.join("leveldb_readrandom.cc");
    let exe = work.join("leveldb_readrandom");
    std::fs::write(&src, DRIVER_SOURCE)
        .map_err(|e| format!("cannot write {}: {e}", src.display()))?;
    let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".into());
    let out = Command::new(&cxx)
        .args(["-O2", "-pthread", "-o"])
        .arg(&exe)
        .arg(&src)
        .arg("-lleveldb")
        .output()
        .map_err(|e| format!("no C++ compiler ({cxx}: {e})"))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .find(|l| l.contains("error"))
            .unwrap_or(err.trim());
        return Err(format!(
            "the LevelDB driver did not compile (is libleveldb-dev installed? `apt-get install \
             libleveldb-dev`): {first}"
        ));
    }
    Ok(exe)
}

fn prepare(plan: &Plan) -> std::result::Result<Tools, String> {
    let library = super::workspace_library("welltempered-preload", "libwelltempered_preload.so")?;
    let work = std::env::temp_dir().join(format!("welltempered-leveldb-{}", std::process::id()));
    std::fs::create_dir_all(&work).map_err(|e| format!("cannot create {}: {e}", work.display()))?;
    let driver = compile_driver(&work)?;
    let db = work.join("db");
    let out = Command::new(&driver)
        .arg("fill")
        .arg(&db)
        .arg(plan.keys.to_string())
        .output()
        .map_err(|e| format!("cannot run the LevelDB driver: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "filling the database failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(Tools {
        driver,
        library,
        db,
    })
}

/// One timed run of `variant` at `threads` readers.
fn run_variant(
    tools: &Tools,
    plan: &Plan,
    variant: &str,
    threads: usize,
) -> Result<(Sample, Reading)> {
    let mut cmd = Command::new(&tools.driver);
    cmd.arg("read")
        .arg(&tools.db)
        .arg(plan.keys.to_string())
        .arg(threads.to_string())
        .arg(plan.duration_ms.to_string())
        .env_remove("LD_PRELOAD")
        .env_remove("WELLTEMPERED_LOCK")
        .env_remove("WELLTEMPERED_PRELOAD_STATS");
    if variant != GLIBC {
        cmd.env("LD_PRELOAD", &tools.library)
            .env("WELLTEMPERED_LOCK", variant);
    }
    let before = Rusage::children_now();
    let out = cmd
        .output()
        .map_err(|e| Error::new(format!("cannot run the LevelDB driver: {e}")))?;
    let used = Rusage::children_now().since(&before);
    if !out.status.success() {
        return Err(Error::new(format!(
            "LevelDB readrandom under {variant} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().last().unwrap_or_default();
    let r = parse_reading(line)?;
    if r.found != r.reads {
        return Err(Error::new(format!(
            "under {variant}, {} of {} reads did not find their key",
            r.reads - r.found,
            r.reads
        )));
    }
    let sample = Sample {
        variant: variant.to_string(),
        value: r.reads as f64 / r.seconds.max(1e-9) / 1e6,
        ops: r.reads,
        wall_s: r.seconds,
        cpu_s: used.cpu_s,
        vcsw: used.vcsw,
        ivcsw: used.ivcsw,
        child: true,
        ..Default::default()
    };
    Ok((sample, r))
}

/// Runs the plan; `Err` only for a failed or inconsistent measurement.
pub fn run_plan(plan: &Plan, ctx: &Ctx<'_>) -> Result<Section> {
    let mut section = Section {
        name: "preload".into(),
        title: "LevelDB readrandom under LD_PRELOAD".into(),
        baselines: vec![GLIBC.to_string()],
        sweep: Some("threads".into()),
        config: serde_json::to_value(plan).unwrap_or_default(),
        groups: Vec::new(),
    };
    let tools = match prepare(plan) {
        Ok(t) => t,
        Err(why) => {
            eprintln!("welltempered: preload section skipped: {why}");
            section.config["skipped"] = serde_json::Value::String(why);
            return Ok(section);
        }
    };
    ctx.progress
        .add_steps((plan.threads.len() * plan.reps * plan.locks.len()) as u64);
    let mut checksum: Option<String> = None;
    for &t in &plan.threads {
        let id = format!("readrandom/t={t}");
        ctx.progress.stage(&id);
        let reps = harness::run_paired(&plan.locks, plan.reps, ctx.progress, |variant| {
            let (s, r) = run_variant(&tools, plan, variant, t)?;
            match &checksum {
                None => checksum = Some(r.checksum),
                Some(c) if *c == r.checksum => {}
                Some(c) => {
                    return Err(Error::new(format!(
                        "LevelDB returned different values under {variant} (checksum {} vs {c})",
                        r.checksum
                    )));
                }
            }
            Ok(s)
        })?;
        section.groups.push(Group {
            id,
            title: format!("LevelDB readrandom, {} keys, {t} threads", plan.keys),
            params: BTreeMap::from([("threads".to_string(), serde_json::json!(t))]),
            metric: Metric {
                unit: "M/s".into(),
                higher_is_better: true,
                op: "read".into(),
            },
            variants: plan.locks.clone(),
            reps,
        });
    }
    let _ = std::fs::remove_dir_all(tools.db.parent().unwrap_or(&tools.db));
    Ok(section)
}

/// The preload section's headlines: each lock of the run against glibc's mutexes in LevelDB,
/// with the preload library's targets for the default lock (`mutex`): at least 0.95x glibc at
/// 1 and 2 threads, at least 0.8x at 16 (oversubscribed).
fn summary(s: &Section) -> Vec<crate::headline::Line> {
    let mut out = Vec::new();
    for g in &s.groups {
        let Some(t) = g.params.get("threads").and_then(serde_json::Value::as_u64) else {
            continue;
        };
        let cell = format!("readrandom, {t} threads");
        for lock in g.variants.iter().filter(|v| *v != GLIBC) {
            let target = match (lock.as_str(), t) {
                ("mutex", 1 | 2) => Some(0.95),
                ("mutex", 16) => Some(0.8),
                _ => None,
            };
            out.extend(crate::headline::ratio(s, &g.id, &cell, lock, GLIBC, target));
        }
    }
    out
}

/// The preload section.
#[derive(Clone, Copy, Debug)]
pub struct PreloadBench;

impl Suite for PreloadBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        summary(section)
    }

    fn name(&self) -> &'static str {
        "preload"
    }

    fn help_after(&self) -> String {
        let mut names = vec![GLIBC.to_string()];
        names.extend(LockKind::ALL.iter().map(|k| k.to_string()));
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let time = |quick| {
            let plan = PreloadArgs::default().plan(quick).ok()?;
            let runs = (plan.reps * plan.locks.len() * plan.threads.len()) as u64;
            Some(Duration::from_millis(runs * plan.duration_ms))
        };
        format!(
            "{}\n\n{}",
            super::names_paragraph("Variants (--locks)", &names),
            super::run_time_paragraph(time(false), time(true))
        )
    }

    fn about(&self) -> &'static str {
        "LevelDB readrandom on unmodified LevelDB under glibc and under our locks (LD_PRELOAD)"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        PreloadArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = PreloadArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_plan(&a.plan(ctx.quick).map_err(Error::into_usage)?, ctx)
    }

    fn run_child(&self, _spec: &serde_json::Value) -> Result<Sample> {
        Err(Error::new(
            "the preload section runs the LevelDB driver as its child, not this command",
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_output_parses() {
        let r = parse_reading("reads=1000 found=1000 checksum=00ff seconds=0.250").unwrap();
        assert_eq!(r.reads, 1000);
        assert_eq!(r.found, 1000);
        assert_eq!(r.checksum, "00ff");
        assert_eq!(r.seconds, 0.25);
        assert!(parse_reading("reads=1 found=1 seconds=1").is_err());
        assert!(parse_reading("reads=x found=1 checksum=0 seconds=1").is_err());
    }

    #[test]
    fn plan_puts_glibc_first_and_rejects_unknown_locks() {
        let a = PreloadArgs {
            locks: Some(vec!["mcs-park".into(), "glibc".into(), "mcs-park".into()]),
            ..Default::default()
        };
        let p = a.plan(true).unwrap();
        assert_eq!(p.locks, ["glibc", "mcs-park"]);
        let bad = PreloadArgs {
            locks: Some(vec!["nope".into()]),
            ..Default::default()
        };
        let err = bad.plan(false).unwrap_err().to_string();
        assert!(
            err.contains("hemlock-park") && err.contains("glibc"),
            "{err}"
        );
    }

    #[test]
    fn quick_plan_is_small() {
        let p = PreloadArgs::default().plan(true).unwrap();
        assert_eq!(p.threads, [1, 2, 16]);
        assert_eq!(p.locks[0], GLIBC);
        assert!(p.locks.len() <= 4);
    }
}
