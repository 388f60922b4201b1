//! The team runtime's study (omp0's evaluation, with the EPCC method): `welltempered par`.
//!
//! - `epcc`: EPCC syncbench (Bull, EWOMP 1999): time `n` instances of a construct, each around a
//!   calibrated delay (default 100 ns), subtract `n` delays run alone, divide by `n`: the overhead
//!   of one construct in µs. Constructs: parallel, for, parallel-for, barrier, single, critical,
//!   lock, atomic, reduction, and the cost of one `dynamic,1` chunk. Ours (`welltempered-par`,
//!   default configuration) against libgomp (the same constructs in C, `c/omp_kernels.c`, built
//!   with `-fopenmp`) and rayon's nearest equivalents (broadcast, `par_iter`), at 2 threads and
//!   oversubscribed.
//! - `barrier`: barrier latency per barrier kind (central sense-reversing, tree, dissemination)
//!   against libgomp's, by thread count.
//! - `reduction`: omp0's crossover, linear against tree combining, with a combine that costs
//!   `W` LCG steps (1 to 65,536).
//! - `lock`: critical-section throughput per `LockKind` against `omp critical`, across
//!   critical-section lengths and an oversubscription sweep (omp0's lock figures).
//! - `apps`: Pi, Mandelbrot 512x512 (500 iterations), matmul 256 (and 1024 outside quick mode)
//!   per schedule, pinned and not; speed-up over serial, against libgomp and rayon.
//! - `idle`: the CPU time a team burns in the second after a region, ours against libgomp's and
//!   rayon's defaults (and ours with the active wait policy, for contrast).
//! - `programs`: real OpenMP programs (GraphicsMagick, ImageMagick, NumPy on OpenBLAS), the same
//!   binaries on libgomp and on ours through `libwelltempered_gomp.so`, outputs compared
//!   (`omp_programs.rs`).
//!
//! The `wt-gomp` variants run libgomp's variant's own compiled code (the same binary) with
//! `LD_PRELOAD=libwelltempered_gomp.so`: our runtime behind libgomp's ABI.
//!
//! Every sample runs in its own child process (`__child par <spec>`), ours and rayon's too, so
//! one runtime's threads (libgomp spins 300,000 times before it sleeps) never share a process with
//! another's, and every variant starts from the same cold state. Results are checked: each
//! application's answer must agree across variants, and the constructs count what they did.

use super::omp_programs;
use super::{Ctx, Suite};
use crate::args::{Threads, parse_duration, parse_positive, parse_threads, same_name};
use crate::counters::Rusage;
use crate::harness::{self, CHILD_COMMAND};
use crate::model::{Group, Metric, Sample, Section};
use crate::work::{busy, busy_iters};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use welltempered_lock::LockKind;
use welltempered_par::{
    BarrierKind, Config, Pinning, ReductionKind, Runtime, Schedule, WaitPolicy,
};

mod libgomp;
mod native;
mod parent;
mod parts;
mod summary;
use libgomp::*;
pub use native::*;
pub use parent::*;
use parts::*;

/// The libgomp variant (the constructs' baseline).
pub const LIBGOMP: &str = "libgomp";
/// Our runtime.
pub const OURS: &str = "ours";
/// rayon's nearest equivalent.
pub const RAYON: &str = "rayon";
/// The libgomp variant's own code and binary, run on our runtime through libgomp's ABI
/// (`LD_PRELOAD=libwelltempered_gomp.so`): the same compiled OpenMP, two runtimes.
pub const WT_GOMP: &str = "wt-gomp";
/// The serial kernel (the applications' baseline).
pub const SERIAL: &str = "serial";
/// `omp critical` (the lock sweep's baseline).
pub const OMP_CRITICAL: &str = "omp-critical";

/// Why the libgomp variants cannot run in this build (empty when they can).
const LIBGOMP_SKIPPED: &str = env!("WT_LIBGOMP_SKIPPED");

/// The parts of the study, in report order.
pub const PARTS: &[&str] = &[
    "epcc",
    "barrier",
    "reduction",
    "lock",
    "apps",
    "idle",
    "programs",
];

/// An EPCC construct.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Construct {
    /// A parallel region around the delay.
    Parallel,
    /// A worksharing loop of one iteration per thread inside one region.
    For,
    /// A combined parallel loop of one iteration per thread.
    ParallelFor,
    /// A delay then a barrier, inside one region.
    Barrier,
    /// A `single` (with its implicit barrier) around the delay.
    Single,
    /// A critical section around the delay.
    Critical,
    /// A user lock (`omp_set_lock`; our default mutex) around the delay.
    Lock,
    /// An atomic increment.
    Atomic,
    /// A parallel region with a `+` reduction.
    Reduction,
    /// One chunk of a `schedule(dynamic, 1)` loop with an empty body.
    DynamicChunk,
}

impl Construct {
    /// Every construct, in table order.
    pub const ALL: [Construct; 10] = [
        Construct::Parallel,
        Construct::For,
        Construct::ParallelFor,
        Construct::Barrier,
        Construct::Single,
        Construct::Critical,
        Construct::Lock,
        Construct::Atomic,
        Construct::Reduction,
        Construct::DynamicChunk,
    ];

    /// The name used in group ids and `--constructs`.
    pub fn name(self) -> &'static str {
        match self {
            Construct::Parallel => "parallel",
            Construct::For => "for",
            Construct::ParallelFor => "parallel-for",
            Construct::Barrier => "barrier",
            Construct::Single => "single",
            Construct::Critical => "critical",
            Construct::Lock => "lock",
            Construct::Atomic => "atomic",
            Construct::Reduction => "reduction",
            Construct::DynamicChunk => "dynamic-chunk",
        }
    }

    /// The code of the construct in `c/omp_kernels.c` (used where libgomp is built in).
    #[cfg_attr(not(wt_libgomp), allow(dead_code))]
    fn c_code(self) -> i32 {
        Construct::ALL
            .iter()
            .position(|&c| c == self)
            .map_or(-1, |i| i as i32)
    }

    /// Whether rayon has an equivalent (broadcast, `par_iter`, a parallel sum, a one-element
    /// split).
    fn rayon_has(self) -> bool {
        matches!(
            self,
            Construct::Parallel
                | Construct::ParallelFor
                | Construct::Reduction
                | Construct::DynamicChunk
        )
    }

    /// Whether the construct runs the delay (the others are timed bare).
    fn delayed(self) -> bool {
        !matches!(self, Construct::Atomic | Construct::DynamicChunk)
    }
}

fn parse_construct(s: &str) -> std::result::Result<Construct, String> {
    Construct::ALL
        .iter()
        .copied()
        .find(|c| c.name() == s.trim())
        .ok_or_else(|| {
            let names: Vec<&str> = Construct::ALL.iter().map(|c| c.name()).collect();
            format!("unknown construct {s:?}; valid: {}", names.join(", "))
        })
}

/// A loop schedule as the study names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Sched {
    /// Static, one block per thread.
    Static,
    /// Dynamic with the application's chunk.
    Dynamic,
    /// Guided with the application's chunk as the minimum.
    Guided,
}

impl Sched {
    const ALL: [Sched; 3] = [Sched::Static, Sched::Dynamic, Sched::Guided];

    fn name(self) -> &'static str {
        match self {
            Sched::Static => "static",
            Sched::Dynamic => "dynamic",
            Sched::Guided => "guided",
        }
    }

    fn ours(self, chunk: usize) -> Schedule {
        match self {
            Sched::Static => Schedule::Static,
            Sched::Dynamic => Schedule::Dynamic { chunk },
            Sched::Guided => Schedule::Guided { min_chunk: chunk },
        }
    }
}

/// An application kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum App {
    /// Pi by the midpoint rule, 10^7 intervals, chunk 4096.
    Pi,
    /// Mandelbrot 512x512, 500 iterations, rows shared out, chunk 1.
    Mandel,
    /// 256x256 matrix product, rows shared out, chunk 1.
    Matmul256,
    /// 1024x1024 matrix product.
    Matmul1024,
}

impl App {
    const ALL: [App; 4] = [App::Pi, App::Mandel, App::Matmul256, App::Matmul1024];

    fn name(self) -> &'static str {
        match self {
            App::Pi => "pi",
            App::Mandel => "mandel",
            App::Matmul256 => "matmul256",
            App::Matmul1024 => "matmul1024",
        }
    }

    /// The chunk of the dynamic and guided schedules.
    fn chunk(self) -> usize {
        match self {
            App::Pi => 4096,
            _ => 1,
        }
    }
}

fn parse_app(s: &str) -> std::result::Result<App, String> {
    App::ALL
        .iter()
        .copied()
        .find(|a| a.name() == s.trim())
        .ok_or_else(|| format!("unknown app {s:?}; valid: pi, mandel, matmul256, matmul1024"))
}

const PI_STEPS: usize = 10_000_000;
const MANDEL_N: usize = 512;
const MANDEL_ITER: u32 = 500;

/// Options of `welltempered par`.
#[derive(Args, Clone, Debug, Default)]
pub struct ParArgs {
    /// Parts of the study: epcc, barrier, reduction, lock, apps, idle, programs [default:
    /// all].
    #[arg(long, value_delimiter = ',')]
    pub parts: Option<Vec<String>>,
    /// Team sizes for the constructs and barriers, counts or ranges (2,4 or 2-8) [default: 2,4,8;
    /// quick: 2,4].
    #[arg(long, value_delimiter = ',', value_parser = parse_threads)]
    pub threads: Option<Vec<Threads>>,
    /// EPCC constructs [default: all].
    #[arg(long, value_delimiter = ',', value_parser = parse_construct)]
    pub constructs: Option<Vec<Construct>>,
    /// EPCC delay inside each construct, e.g. 100ns [default: 100ns].
    #[arg(long, value_parser = parse_duration)]
    pub delay: Option<Duration>,
    /// Timed length of one construct measurement, e.g. 20ms [default: 20ms; quick: 10ms].
    #[arg(long, value_parser = parse_duration)]
    pub target: Option<Duration>,
    /// Lock kinds of the lock sweep [default: every kind; quick: two-phase,mutex,hemlock-park,mcs-park,futex].
    #[arg(long, value_delimiter = ',')]
    pub locks: Option<Vec<String>>,
    /// Critical-section lengths of the lock sweep [default: 0,100ns,1us,10us; quick: 0,1us].
    #[arg(long, value_delimiter = ',', value_parser = parse_duration)]
    pub cs: Option<Vec<Duration>>,
    /// Applications [default: pi,mandel,matmul256,matmul1024; quick: pi,mandel,matmul256].
    #[arg(long, value_delimiter = ',', value_parser = parse_app)]
    pub apps: Option<Vec<App>>,
    /// Idle window measured after a region, e.g. 1s [default: 1s; quick: 500ms].
    #[arg(long, value_parser = parse_duration)]
    pub idle: Option<Duration>,
    /// Repetitions [default: 5, in --quick too].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
}

/// The options in effect.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Parts to run.
    pub parts: Vec<String>,
    /// Team sizes for constructs and barriers.
    pub threads: Vec<usize>,
    /// EPCC constructs.
    pub constructs: Vec<Construct>,
    /// EPCC delay, nanoseconds.
    pub delay_ns: u64,
    /// Timed length of one construct measurement, milliseconds.
    pub target_ms: u64,
    /// Lock kinds of the lock sweep.
    pub locks: Vec<String>,
    /// Critical-section lengths, nanoseconds.
    pub cs_ns: Vec<u64>,
    /// Team sizes of the lock sweep.
    pub lock_threads: Vec<usize>,
    /// Combine costs of the reduction crossover, LCG steps.
    pub work: Vec<u64>,
    /// Applications.
    pub apps: Vec<App>,
    /// Team size of the applications (the machine's cores).
    pub app_threads: usize,
    /// Idle window, milliseconds.
    pub idle_ms: u64,
    /// Repetitions.
    pub reps: usize,
    /// Why the libgomp variants are missing, if they are.
    pub libgomp_skipped: Option<String>,
    /// The C compiler (and so the libgomp) the libgomp variants were built with.
    pub libgomp_compiler: String,
    /// `libwelltempered_gomp.so`, which the `wt-gomp` variants preload.
    pub wt_gomp_library: Option<std::path::PathBuf>,
    /// Why the `wt-gomp` variants are missing, if they are.
    pub wt_gomp_skipped: Option<String>,
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get())
}

impl ParArgs {
    /// Applies the defaults and validates the names.
    pub fn plan(&self, quick: bool) -> Result<Plan> {
        let parts = match &self.parts {
            Some(p) => {
                let mut out = Vec::new();
                for given in p.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
                    let Some(name) = PARTS.iter().find(|n| same_name(n, given)) else {
                        return Err(Error::new(format!(
                            "unknown part {given:?}; valid parts: {}",
                            PARTS.join(", ")
                        )));
                    };
                    out.push(name.to_string());
                }
                out
            }
            None => PARTS.iter().map(|s| s.to_string()).collect(),
        };
        let locks: Vec<String> = match &self.locks {
            Some(l) => l
                .iter()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            None if quick => ["two-phase", "mutex", "hemlock-park", "mcs-park", "futex"]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            None => LockKind::ALL.iter().map(|k| k.to_string()).collect(),
        };
        for l in &locks {
            l.parse::<LockKind>()
                .map_err(|e| Error::new(e.to_string()))?;
        }
        let ns = |d: &Duration| d.as_nanos() as u64;
        let target = self
            .target
            .unwrap_or(Duration::from_millis(if quick { 10 } else { 20 }));
        if target.as_millis() == 0 {
            return Err(Error::new("--target must be at least 1ms"));
        }
        // The same C kernels on our runtime need libgomp's build of them and the GOMP library.
        let (wt_gomp_library, wt_gomp_skipped) = if !LIBGOMP_SKIPPED.is_empty() {
            (
                None,
                Some(format!("libgomp is not built in: {LIBGOMP_SKIPPED}")),
            )
        } else if !parts
            .iter()
            .any(|p| ["epcc", "apps", "idle", "programs"].contains(&p.as_str()))
        {
            (None, None)
        } else {
            match super::workspace_library("welltempered-gomp", "libwelltempered_gomp.so") {
                Ok(lib) => (Some(lib), None),
                Err(why) => (None, Some(why)),
            }
        };
        Ok(Plan {
            parts,
            threads: self
                .threads
                .clone()
                .map(Threads::flatten)
                .unwrap_or_else(|| if quick { vec![2, 4] } else { vec![2, 4, 8] }),
            constructs: self
                .constructs
                .clone()
                .unwrap_or_else(|| Construct::ALL.to_vec()),
            delay_ns: self.delay.map_or(100, |d| ns(&d)),
            target_ms: target.as_millis() as u64,
            locks,
            cs_ns: self.cs.as_ref().map_or_else(
                || {
                    if quick {
                        vec![0, 1000]
                    } else {
                        vec![0, 100, 1000, 10_000]
                    }
                },
                |v| v.iter().map(ns).collect(),
            ),
            lock_threads: if quick { vec![2, 8] } else { vec![2, 4, 8, 16] },
            work: if quick {
                vec![1, 256, 65_536]
            } else {
                vec![1, 16, 256, 4096, 65_536]
            },
            apps: self.apps.clone().unwrap_or_else(|| {
                if quick {
                    vec![App::Pi, App::Mandel, App::Matmul256]
                } else {
                    App::ALL.to_vec()
                }
            }),
            app_threads: cores(),
            idle_ms: self
                .idle
                .map_or(if quick { 500 } else { 1000 }, |d| d.as_millis() as u64),
            reps: self.reps.unwrap_or(crate::sections::REPS),
            libgomp_skipped: (!LIBGOMP_SKIPPED.is_empty()).then(|| LIBGOMP_SKIPPED.to_string()),
            libgomp_compiler: env!("WT_LIBGOMP_COMPILER").to_string(),
            wt_gomp_library,
            wt_gomp_skipped,
        })
    }
}

/// One measurement, run in a child process.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "job", rename_all = "kebab-case")]
pub enum Job {
    /// An EPCC construct: overhead in µs per construct.
    Construct {
        /// `ours`, `libgomp` or `rayon`; for barriers, `ours` may be a barrier kind.
        variant: String,
        /// The construct.
        construct: Construct,
        /// Team size.
        threads: usize,
        /// Delay inside the construct, ns.
        delay_ns: u64,
        /// Timed length, ms.
        target_ms: u64,
    },
    /// One team reduction with a combine of `work` LCG steps: µs per reduction.
    Reduction {
        /// `linear` or `tree`.
        kind: String,
        /// Team size.
        threads: usize,
        /// LCG steps per combine.
        work: u64,
        /// Timed length, ms.
        target_ms: u64,
    },
    /// Critical-section throughput: M acquisitions per second.
    Lock {
        /// `omp-critical` or a lock kind.
        variant: String,
        /// Team size.
        threads: usize,
        /// Busy-loop iterations inside the critical section (calibrated by the parent).
        cs_iters: u64,
        /// Window, ms.
        duration_ms: u64,
    },
    /// An application kernel: milliseconds per run.
    App {
        /// `serial`, `ours`, `ours-pinned`, `libgomp`, `libgomp-pinned` or `rayon`.
        variant: String,
        /// The kernel.
        app: App,
        /// The schedule.
        sched: Sched,
        /// Team size.
        threads: usize,
    },
    /// CPU milliseconds burnt per second of idleness after a region.
    Idle {
        /// `ours`, `ours-active`, `libgomp` or `rayon`.
        variant: String,
        /// Team size.
        threads: usize,
        /// Idle window, ms.
        idle_ms: u64,
    },
}

/// Runs `job` in a child process of this executable, with the environment its runtime needs
/// (libgomp's pinning is an environment setting) and none of the variables that would change a
/// runtime's defaults.
fn run_job(job: &Job, plan: &Plan) -> Result<Sample> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot find the harness executable: {e}")))?;
    let spec = serde_json::to_value(job).map_err(|e| Error::new(e.to_string()))?;
    let mut cmd = Command::new(exe);
    cmd.arg(CHILD_COMMAND)
        .arg("par")
        .arg(spec.to_string())
        .stdin(std::process::Stdio::null());
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if k.starts_with("OMP_") || k.starts_with("GOMP_") || k.starts_with("WELLTEMPERED_") {
            cmd.env_remove(&k);
        }
    }
    cmd.env_remove("RAYON_NUM_THREADS");
    let variant = match job {
        Job::Construct { variant, .. } | Job::App { variant, .. } | Job::Idle { variant, .. } => {
            variant.as_str()
        }
        _ => "",
    };
    if variant.starts_with(WT_GOMP) {
        let lib = plan.wt_gomp_library.as_ref().ok_or_else(|| {
            Error::new(format!(
                "the {WT_GOMP} variant needs libwelltempered_gomp.so: {}",
                plan.wt_gomp_skipped.as_deref().unwrap_or("not found")
            ))
        })?;
        cmd.env("LD_PRELOAD", lib);
    }
    if matches!(job, Job::App { .. }) && variant.ends_with("-pinned") && variant != "ours-pinned" {
        // libgomp's pinning, and ours through libgomp's ABI: the same OpenMP variables.
        cmd.env("OMP_PROC_BIND", "true").env("OMP_PLACES", "cores");
    }
    let out = cmd
        .output()
        .map_err(|e| Error::new(format!("cannot start the harness child: {e}")))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "par child {spec} failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    harness::parse_child_output(&String::from_utf8_lossy(&out.stdout))
}

/// The team-runtime section.
#[derive(Clone, Copy, Debug)]
pub struct ParBench;

impl Suite for ParBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        summary::lines(section)
    }

    fn name(&self) -> &'static str {
        "par"
    }

    fn help_after(&self) -> String {
        // The plans are not built here: they look for a C compiler and build the GOMP library.
        let constructs: Vec<&str> = Construct::ALL.iter().map(|c| c.name()).collect();
        let apps: Vec<&str> = App::ALL.iter().map(|a| a.name()).collect();
        let kinds: Vec<String> = LockKind::ALL.iter().map(|k| k.to_string()).collect();
        let kinds: Vec<&str> = kinds.iter().map(String::as_str).collect();
        format!(
            "{}\n\n{}\n\n{}\n\n{}\n\nRun time: each construct, barrier, reduction and lock cell runs for \
             --target per variant, team size\n  and repetition; the applications and the idle \
             part run whole programs and windows of --idle.",
            super::names_paragraph("Parts (--parts)", PARTS),
            super::names_paragraph("Constructs (--constructs)", &constructs),
            super::names_paragraph("Lock kinds (--locks)", &kinds),
            super::names_paragraph("Applications (--apps)", &apps),
        )
    }

    fn about(&self) -> &'static str {
        "The team runtime against libgomp and rayon: EPCC constructs, barriers, reductions, \
         locks, apps, idle CPU"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        ParArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = ParArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_plan(&a.plan(ctx.quick).map_err(Error::into_usage)?, ctx)
    }

    fn run_child(&self, spec: &serde_json::Value) -> Result<Sample> {
        let job: Job = serde_json::from_value(spec.clone())
            .map_err(|e| Error::new(format!("bad par job {spec}: {e}")))?;
        run_job_here(&job)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructs_parse_by_name_and_c_codes_match_the_c_enum() {
        assert_eq!(parse_construct("barrier").unwrap(), Construct::Barrier);
        let err = parse_construct("nope").unwrap_err();
        assert!(err.contains("dynamic-chunk"), "{err}");
        assert_eq!(Construct::Parallel.c_code(), 0);
        assert_eq!(Construct::DynamicChunk.c_code(), 9);
    }

    #[test]
    fn quick_plan_is_small_and_names_are_checked() {
        let p = ParArgs::default().plan(true).unwrap();
        assert_eq!(p.threads, [2, 4]);
        assert!(!p.apps.contains(&App::Matmul1024));
        assert_eq!(p.locks.len(), 5);
        let bad = ParArgs {
            locks: Some(vec!["nope".into()]),
            ..Default::default()
        };
        assert!(bad.plan(true).unwrap_err().to_string().contains("hemlock"));
        let bad = ParArgs {
            parts: Some(vec!["epcc".into(), "nope".into()]),
            ..Default::default()
        };
        assert!(bad.plan(true).unwrap_err().to_string().contains("idle"));
    }

    #[test]
    fn calibration_reaches_the_target() {
        let (reps, t) = calibrate(0.01, |r| r as f64 * 1e-6);
        assert!(t >= 0.01);
        assert!(reps >= 10_000);
    }

    #[test]
    fn jobs_round_trip_through_json() {
        let j = Job::App {
            variant: "ours".into(),
            app: App::Mandel,
            sched: Sched::Guided,
            threads: 2,
        };
        let v = serde_json::to_value(&j).unwrap();
        assert_eq!(v["job"], "app");
        assert_eq!(serde_json::from_value::<Job>(v).unwrap(), j);
    }

    #[test]
    fn ours_constructs_count_what_they_did() {
        for c in Construct::ALL {
            let s = ours_construct(OURS, c, 2, 0, 0.001).unwrap();
            assert!(s.ops >= 8, "{c:?}");
        }
    }

    #[test]
    fn apps_agree_with_serial() {
        let mats = matrices(256);
        let serial = app_once(SERIAL, App::Matmul256, Sched::Static, 2, None, None, &mats)
            .unwrap()
            .1;
        let rt = runtime(2, |c| c.schedule = Sched::Dynamic.ours(1));
        let ours = app_once(
            OURS,
            App::Matmul256,
            Sched::Dynamic,
            2,
            Some(&rt),
            None,
            &mats,
        )
        .unwrap()
        .1;
        assert_eq!(serial, ours);
        let m = app_once(SERIAL, App::Mandel, Sched::Static, 2, None, None, &mats)
            .unwrap()
            .1;
        let mo = app_once(OURS, App::Mandel, Sched::Guided, 2, Some(&rt), None, &mats)
            .unwrap()
            .1;
        assert_eq!(m, mo);
    }
}
