//! Static channel-topology analysis: the compiler side of WTC, the Well-tempered Compiler for
//! Multithreading (its analysis of which threads touch each queue, and its remarks), for Rust
//! sources.
//!
//! [`analyze_crate`] reads a crate (following `mod` declarations from its targets), finds every
//! channel construction (`std::sync::mpsc`, `crossbeam_channel`, `crossbeam::channel`, `flume`,
//! `welltempered::channel`) through `use` aliases, renames and globs, follows each handle through
//! bindings, clones, spawned closures and same-crate calls, and gives a verdict per side: exact
//! (with the spawn sites of the threads that use it), conservative (at least what is certain, with
//! the reason) or refused (with the reason). Soundness: a verdict may be less precise than the
//! truth, never wrong; it never reports fewer handles than can exist.
#![forbid(unsafe_code)]

pub mod discover;
pub mod fix;
pub mod flow;
pub mod reach;
pub mod remark;
pub mod resolve;
pub mod verdict;

use std::fmt;
use std::path::{Path, PathBuf};

pub use verdict::{Channel, Count, Side, Site};

/// The result of analysing one crate.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Analysis {
    /// The crate root (the directory holding `Cargo.toml`).
    #[serde(skip)]
    pub root: PathBuf,
    /// Every channel construction found, in file then source order.
    pub channels: Vec<Channel>,
    /// Lines of Rust read.
    pub lines: usize,
    /// What the analysis could not read (a computed `include!` path, a missing module file):
    /// channels made there are not in `channels`.
    pub notes: Vec<discover::Note>,
}

/// Why a crate could not be analysed.
#[derive(Debug)]
pub enum Error {
    /// The path does not exist.
    NoSuchPath(PathBuf),
    /// The path holds no `Cargo.toml`.
    NoCrate(PathBuf),
    /// A file could not be read.
    Io {
        /// The file.
        file: PathBuf,
        /// The error.
        message: String,
    },
    /// A file that does not parse, at syn's line:column.
    Parse {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// syn's message.
        message: String,
    },
    /// The manifest names an edition the analysis does not know.
    Edition {
        /// The manifest.
        file: PathBuf,
        /// 1-based line of the `edition` key.
        line: usize,
        /// The edition named.
        edition: String,
    },
    /// `--fix` could not be applied (the originals are restored).
    Fix(String),
    /// The reach corpus could not be fetched or read.
    Reach(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoSuchPath(p) => {
                write!(f, "error: {}:1: no such file or directory", p.display())
            }
            Error::NoCrate(p) => {
                write!(f, "error: {}:1: no crate here (no Cargo.toml)", p.display())
            }
            Error::Io { file, message } => write!(f, "error: {}:1: {message}", file.display()),
            Error::Parse {
                file,
                line,
                column,
                message,
            } => write!(
                f,
                "error: {}:{line}:{column}: does not parse: {message}",
                file.display()
            ),
            Error::Edition {
                file,
                line,
                edition,
            } => write!(
                f,
                "error: {}:{line}: unsupported edition \"{edition}\" (supported: 2015, 2018, 2021, 2024)",
                file.display()
            ),
            Error::Fix(m) => write!(f, "error: fix not applied: {m}"),
            Error::Reach(m) => write!(f, "error: reach: {m}"),
        }
    }
}

impl std::error::Error for Error {}

/// Analyses the crate whose `Cargo.toml` is in `path` (or is `path`).
pub fn analyze_crate(path: &Path) -> Result<Analysis, Error> {
    let krate = discover::discover(path)?;
    let lines = krate.files.iter().map(|f| f.text.lines().count()).sum();
    let (channels, mut notes) = flow::analyze(&krate);
    notes.extend(krate.notes.iter().cloned());
    notes.sort_by(|a, b| a.site.cmp(&b.site));
    Ok(Analysis {
        root: krate.root.clone(),
        channels,
        lines,
        notes,
    })
}

/// How many channels of an analysis got each kind of verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub struct Summary {
    /// Channel constructions found.
    pub channels: usize,
    /// Both sides exact.
    pub exact: usize,
    /// Neither side refused, not both exact.
    pub conservative: usize,
    /// A side refused.
    pub refused: usize,
}

impl Analysis {
    /// The counts of its verdicts.
    pub fn summary(&self) -> Summary {
        let exact = self
            .channels
            .iter()
            .filter(|c| {
                matches!(
                    (&c.senders, &c.receivers),
                    (Side::Exact { .. }, Side::Exact { .. })
                )
            })
            .count();
        let refused = self
            .channels
            .iter()
            .filter(|c| {
                matches!(c.senders, Side::Refused { .. })
                    || matches!(c.receivers, Side::Refused { .. })
            })
            .count();
        Summary {
            channels: self.channels.len(),
            exact,
            conservative: self.channels.len() - exact - refused,
            refused,
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = if self.channels == 1 { "" } else { "s" };
        write!(
            f,
            "{} channel{s}: {} exact, {} conservative, {} refused",
            self.channels, self.exact, self.conservative, self.refused
        )
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.channels {
            write!(f, "{c}")?;
        }
        for n in &self.notes {
            writeln!(f, "note: {}: {}", n.site, n.text)?;
        }
        Ok(())
    }
}
