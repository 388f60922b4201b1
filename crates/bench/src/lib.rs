//! The welltempered evaluation harness: workloads, baselines, paired ratios, reports.
//!
//! The `welltempered` command runs workload sections (MutexBench now; the channel, team runtime
//! and preload sections register the same way, see [`sections`]) against baselines with paired,
//! interleaved repetitions, and writes tables, a JSON file with every raw sample, SVG plots and a
//! Markdown report.
//!
//! ```
//! use welltempered_bench::stats::estimate;
//!
//! // The median of paired ratios with its bootstrap 95% interval.
//! let e = estimate(&[1.10, 0.95, 1.30, 1.05, 1.20]).unwrap();
//! assert_eq!(e.median, 1.10);
//! assert!(e.lo <= e.median && e.median <= e.hi);
//! ```

pub mod cli;
pub mod compare;
pub mod counters;
pub mod harness;
pub mod host;
pub mod model;
pub mod output;
pub mod sections;
pub mod stats;
pub mod summary;

/// The harness's error: a message for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    /// An error with this message.
    pub fn new(msg: impl Into<String>) -> Self {
        Self(msg.into())
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

/// The harness's result type.
pub type Result<T> = std::result::Result<T, Error>;
