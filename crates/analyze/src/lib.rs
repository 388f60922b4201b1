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
    /// The root file of each target read (`src/lib.rs`, `tests/it.rs`, ...), relative to the
    /// crate root.
    pub targets: Vec<String>,
    /// Lines of Rust read.
    pub lines: usize,
    /// The files of each target (its root first), relative to the crate root, and whether the
    /// target is the build script: what `--fix` must add where it rewrites a file.
    #[serde(skip)]
    pub target_files: Vec<(Vec<String>, bool)>,
    /// The package's edition.
    #[serde(skip)]
    pub edition: String,
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
    /// The manifest is not valid TOML.
    Manifest {
        /// The manifest.
        file: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// The parser's message.
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
            Error::Manifest {
                file,
                line,
                message,
            } => write!(
                f,
                "error: {}:{line}: not a valid manifest: {message}",
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

/// Analyses the crate whose `Cargo.toml` is in `path` (or is `path`): every target (the
/// library, binaries, examples, tests, benchmarks, build script).
pub fn analyze_crate(path: &Path) -> Result<Analysis, Error> {
    analyze_targets(path, discover::Targets::All)
}

/// Analyses the targets `which` selects of the crate at `path`, each target on its own (each is
/// a crate of its own to the compiler). A file compiled into several targets (a module shared
/// by test crates) is reported once per channel, with the verdicts of its targets merged
/// ([`Side::merge`]).
pub fn analyze_targets(path: &Path, which: discover::Targets) -> Result<Analysis, Error> {
    let targets = discover::discover_each(path, which)?;
    let root = match targets.first() {
        Some(k) => k.root.clone(),
        None => discover::discover(path)?.root,
    };
    let mut read = std::collections::HashSet::new();
    let mut lines = 0;
    let mut channels: Vec<Channel> = Vec::new();
    let mut notes = Vec::new();
    let mut roots = Vec::new();
    let mut target_files = Vec::new();
    for krate in &targets {
        if let Some(f) = krate.files.first() {
            roots.push(f.rel.clone());
        }
        target_files.push((
            krate.files.iter().map(|f| f.rel.clone()).collect(),
            krate.build,
        ));
        for f in &krate.files {
            if read.insert(f.abs.clone()) {
                lines += f.text.lines().count();
            }
        }
        let (found, n) = flow::analyze(krate);
        notes.extend(n);
        notes.extend(krate.notes.iter().cloned());
        for c in found {
            match channels.iter_mut().find(|d| d.site == c.site) {
                Some(d) => {
                    let s = d.site.clone();
                    d.senders =
                        std::mem::replace(&mut d.senders, c.senders.clone()).merge(c.senders, &s);
                    d.receivers = std::mem::replace(&mut d.receivers, c.receivers.clone())
                        .merge(c.receivers, &s);
                }
                None => channels.push(c),
            }
        }
    }
    channels.sort_by(|a, b| a.site.cmp(&b.site));
    notes.sort_by(|a, b| a.site.cmp(&b.site));
    notes.dedup();
    Ok(Analysis {
        root,
        channels,
        targets: roots,
        lines,
        target_files,
        edition: targets
            .first()
            .map_or_else(|| "2021".to_string(), |k| k.edition.clone()),
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
