//! The welltempered evaluation harness: workloads, baselines, paired ratios, reports.
//!
//! The `welltempered` command runs workload sections (MutexBench, the channel workloads, LevelDB
//! under the preload library, the team runtime's study, the static analysis's reach; see
//! [`sections`]) against baselines with paired, interleaved repetitions, and writes tables, a
//! JSON file with every raw sample, SVG plots and a Markdown report.
//!
//! # Commands
//!
//! ```text
//! welltempered                       # = report --quick (what `cargo run --release` runs)
//! welltempered report [--only mutex] # every section; --quick for the 2-4 minute version
//! welltempered mutex [--locks hemlock,mcs,std,parking_lot] [--threads 1,2,64]
//!                    [--workload max,moderate] [--cs 0,100ns,1us,10us] [--duration 100ms]
//!                    [--reps 5] [--no-latency] [--isolate]
//! welltempered channel [--workloads w1,w9,...] [--channels ours,crossbeam,...] [--duration 100ms]
//!                      [--allocators system,mimalloc,jemalloc] [--load 0,2,mixed] [--reps 5]
//!                      [--isolate]
//!                      # WTC's workloads W1-W3, W7, W9-W11, one-core, memory after a burst,
//!                      # small bounded channels; optionally under foreign load
//! welltempered par [--parts epcc,barrier,reduction,lock,apps,idle] [--threads 2,4,8]
//!                  # the team runtime against libgomp and rayon (EPCC, omp0's study)
//! welltempered preload [--locks glibc,mutex,hemlock-park] [--threads 1,2,4,8,16] [--keys N]
//!                      [--duration 500ms] [--reps 5]   # LevelDB readrandom under LD_PRELOAD
//! welltempered reach [--reps 3] [--offline]   # the static analysis's reach table (WTC)
//! welltempered compare a.json b.json ...   # the summary, one column per machine
//! welltempered show report.json            # a recorded report printed again
//! global options: --quick, --quiet/-q, --verbose/-v, --json PATH,
//!                 --out DIR (default: beside --json, else results/)
//! ```
//!
//! Every run prints each section's summary on stdout ([`headline`]: ours against each anchor,
//! intervals, a verdict per target; `--verbose` adds every table) and writes
//! `<out>/<command>.json` (or `--json PATH`), `<out>/<command>.md` and one SVG plot per thread
//! sweep. Each sample records the CPU time other processes took while it ran, and disturbed
//! repetitions are run again ([`disturbance`]). The JSON format is [`model::Report`]
//! (schema `welltempered-report/1`): `host` (CPU, cores, kernel, rustc, crate versions, PMU,
//! UTC date), `config`, and `sections[]`, each with `groups[]` (one experiment cell: `id`,
//! `params`, `metric`, `variants`) holding `reps[]` (the rotated `order` and one raw `samples[]`
//! entry per variant: `value`, `ops`, `wall_s`, `cpu_s`, `vcsw`, `ivcsw`, `hw` with `null` where
//! not counted, `per_thread`, `child`, `extra`). Summaries are recomputed from the raw samples.
//!
//! ```
//! use welltempered_bench::stats::estimate;
//!
//! // The median of paired ratios with its bootstrap 95% interval.
//! let e = estimate(&[1.10, 0.95, 1.30, 1.05, 1.20]).unwrap();
//! assert_eq!(e.median, 1.10);
//! assert!(e.lo <= e.median && e.median <= e.hi);
//! ```

pub mod alloc;
pub mod args;
pub mod cli;
pub mod compare;
pub mod counters;
pub mod disturbance;
pub mod harness;
pub mod headline;
pub mod host;
pub mod html;
pub mod load;
pub mod model;
pub mod output;
pub mod sections;
pub mod stats;
pub mod summary;
pub mod work;

/// The harness's error: a message for the user, and whether it is about the command line (bad
/// input, exit code [`EXIT_USAGE`]) or about the run (exit code 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    msg: String,
    usage: bool,
}

/// The exit code of bad input, whichever layer rejects it: clap's, so that a malformed value
/// and an unknown name exit alike.
pub const EXIT_USAGE: i32 = 2;

impl Error {
    /// An error of the run with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        Self {
            msg: msg.into(),
            usage: false,
        }
    }

    /// An error of the command line (bad input) with this message.
    pub fn usage(msg: impl Into<String>) -> Self {
        Self {
            msg: msg.into(),
            usage: true,
        }
    }

    /// This error, as one of the command line: what a section's plan rejects is bad input.
    #[must_use]
    pub fn into_usage(self) -> Self {
        Self {
            usage: true,
            ..self
        }
    }

    /// Whether this is an error of the command line.
    pub fn is_usage(&self) -> bool {
        self.usage
    }

    /// The process's exit code for this error.
    pub fn exit_code(&self) -> i32 {
        if self.usage { EXIT_USAGE } else { 1 }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.msg)
    }
}

impl std::error::Error for Error {}

/// The harness's result type.
pub type Result<T> = std::result::Result<T, Error>;
