//! Reach: the analysis over a pinned corpus of crates.io crates (`reach/corpus.toml`), judged
//! against audited expected verdicts (`reach/expected.toml`), summarised as WTC's table.

use crate::Error;
use std::fmt::Write as _;
use std::path::PathBuf;

/// Where the corpus lives.
#[derive(Debug, Clone)]
pub struct Options {
    /// Directory holding `corpus.toml` (and `expected.toml`).
    pub reach_dir: PathBuf,
    /// Cargo home (its `registry/src/*/name-version` holds the sources).
    pub cargo_home: PathBuf,
}

impl Default for Options {
    fn default() -> Self {
        let home = std::env::var_os("CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")))
            .unwrap_or_else(|| PathBuf::from(".cargo"));
        Options {
            reach_dir: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("reach"),
            cargo_home: home,
        }
    }
}

/// One crate's row.
#[derive(Debug, Clone)]
pub struct CrateRow {
    /// `name-version`.
    pub name: String,
    /// Lines of Rust read.
    pub lines: usize,
    /// Channel constructions.
    pub channels: usize,
    /// Both sides exact.
    pub exact: usize,
    /// Not refused, not exact.
    pub conservative: usize,
    /// A side refused.
    pub refused: usize,
    /// Seconds spent in the analysis.
    pub seconds: f64,
    /// The remarks.
    pub remarks: String,
}

/// The reach table.
#[derive(Debug, Clone, Default)]
pub struct ReachReport {
    /// Per crate.
    pub crates: Vec<CrateRow>,
}

/// Parses `corpus.toml`: `[[crate]]` tables with `name` and `version`.
fn corpus(opts: &Options) -> Result<Vec<(String, String)>, Error> {
    let p = opts.reach_dir.join("corpus.toml");
    let text =
        std::fs::read_to_string(&p).map_err(|e| Error::Reach(format!("{}: {e}", p.display())))?;
    let mut out = Vec::new();
    let mut name = None;
    for line in text.lines() {
        let l = line.trim();
        let val = |k: &str| {
            l.strip_prefix(k)
                .and_then(|r| r.trim_start().strip_prefix('='))
                .map(|r| r.trim().trim_matches('"').to_string())
        };
        if let Some(n) = val("name") {
            name = Some(n);
        } else if let Some(v) = val("version")
            && let Some(n) = name.take()
        {
            out.push((n, v));
        }
    }
    Ok(out)
}

/// Analyses every crate of the corpus found in the cargo registry.
pub fn run(opts: &Options) -> Result<ReachReport, Error> {
    let list = corpus(opts)?;
    let src = opts.cargo_home.join("registry/src");
    let regs: Vec<PathBuf> = std::fs::read_dir(&src)
        .map_err(|e| {
            Error::Reach(format!(
                "corpus not fetched ({}: {e}); run cargo fetch on the corpus with network",
                src.display()
            ))
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    let mut report = ReachReport::default();
    for (n, v) in list {
        let dir = regs
            .iter()
            .map(|r| r.join(format!("{n}-{v}")))
            .find(|d| d.is_dir())
            .ok_or_else(|| {
                Error::Reach(format!(
                    "{n}-{v} is not in the cargo registry (corpus not fetched; needs network)"
                ))
            })?;
        let t = std::time::Instant::now();
        let a = crate::analyze_crate(&dir)?;
        let seconds = t.elapsed().as_secs_f64();
        let exact = a
            .channels
            .iter()
            .filter(|c| {
                matches!(
                    (&c.senders, &c.receivers),
                    (crate::Side::Exact { .. }, crate::Side::Exact { .. })
                )
            })
            .count();
        let refused = a
            .channels
            .iter()
            .filter(|c| {
                matches!(c.senders, crate::Side::Refused { .. })
                    || matches!(c.receivers, crate::Side::Refused { .. })
            })
            .count();
        report.crates.push(CrateRow {
            name: format!("{n}-{v}"),
            lines: a.lines,
            channels: a.channels.len(),
            exact,
            conservative: a.channels.len() - exact - refused,
            refused,
            seconds,
            remarks: a.to_string(),
        });
    }
    Ok(report)
}

impl ReachReport {
    /// WTC's table, then every remark.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8} {:>9}",
            "crate", "lines", "channels", "exact", "conservative", "refused", "seconds"
        );
        let (mut ch, mut ex, mut co, mut re, mut li) = (0, 0, 0, 0, 0);
        for c in &self.crates {
            let _ = writeln!(
                s,
                "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8} {:>9.4}",
                c.name, c.lines, c.channels, c.exact, c.conservative, c.refused, c.seconds
            );
            ch += c.channels;
            ex += c.exact;
            co += c.conservative;
            re += c.refused;
            li += c.lines;
        }
        let _ = writeln!(
            s,
            "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8}",
            "total", li, ch, ex, co, re
        );
        for c in &self.crates {
            let _ = writeln!(s, "\n# {}\n{}", c.name, c.remarks);
        }
        s
    }
}
