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

/// One channel's line in the report.
#[derive(Debug, Clone)]
pub struct ChannelRow {
    /// The tool's remarks for it.
    pub remark: String,
    /// The audited truth, `senders/receivers` (`None` when the channel has no audited entry).
    pub expected: Option<(String, String)>,
    /// How the truth was audited.
    pub audit: String,
    /// The tool claims fewer handles than the truth, or exact with another count.
    pub wrong: bool,
    /// Both sides exact.
    pub exact: bool,
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
    /// Channels judged wrong against the audit.
    pub wrong: usize,
    /// Every channel with its remark, expected verdict and audit.
    pub verdicts: Vec<ChannelRow>,
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

struct Expected {
    krate: String,
    file: String,
    line: usize,
    senders: String,
    receivers: String,
    audit: String,
}

/// Parses `expected.toml`: `[[channel]]` tables (crate, file, line, senders, receivers, audit).
fn expected(opts: &Options) -> Result<Vec<Expected>, Error> {
    let p = opts.reach_dir.join("expected.toml");
    let text =
        std::fs::read_to_string(&p).map_err(|e| Error::Reach(format!("{}: {e}", p.display())))?;
    let mut out = Vec::new();
    let mut cur: Option<Expected> = None;
    for line in text.lines() {
        let l = line.trim();
        if l == "[[channel]]" {
            out.extend(cur.take());
            cur = Some(Expected {
                krate: String::new(),
                file: String::new(),
                line: 0,
                senders: String::new(),
                receivers: String::new(),
                audit: String::new(),
            });
            continue;
        }
        let (Some(e), Some((k, v))) = (cur.as_mut(), l.split_once('=')) else {
            continue;
        };
        let v = v.trim().trim_matches('"').to_string();
        match k.trim() {
            "crate" => e.krate = v,
            "file" => e.file = v,
            "line" => e.line = v.parse().unwrap_or(0),
            "senders" => e.senders = v,
            "receivers" => e.receivers = v,
            "audit" => e.audit = v,
            _ => {}
        }
    }
    out.extend(cur);
    Ok(out)
}

/// `None` is many.
fn truth(s: &str) -> Option<usize> {
    s.parse().ok()
}

/// Whether the verdict on one side contradicts the audited truth: exact with another count, or
/// a lower bound above the truth. Refused never is.
pub fn wrong_side(side: &crate::Side, truth_text: &str) -> bool {
    let t = truth(truth_text);
    match side {
        crate::Side::Exact { count, .. } => count.value() != t,
        crate::Side::Conservative { at_least, .. } => match (at_least.value(), t) {
            (Some(a), Some(t)) => a > t,
            (None, Some(_)) => true,
            (_, None) => false,
        },
        crate::Side::Refused { .. } => false,
    }
}

/// Where crate `n` at version `v` is unpacked in the cargo registry (any index), if it is.
fn registry_dir(opts: &Options, n: &str, v: &str) -> Option<PathBuf> {
    std::fs::read_dir(opts.cargo_home.join("registry/src"))
        .ok()?
        .filter_map(Result::ok)
        .map(|e| e.path().join(format!("{n}-{v}")))
        .find(|d| d.is_dir())
}

/// Puts every crate of the corpus that is not yet in the cargo registry there: for each one, a
/// throwaway manifest depending on `name = "=version"` in a temporary directory, and
/// `cargo fetch` on it (`$CARGO`, else `cargo`, with `CARGO_HOME` set to `opts.cargo_home`).
/// Needs network the first time; a crate already unpacked in the registry is not fetched again.
///
/// # Errors
///
/// [`Error::Reach`] naming the crate when cargo cannot be started or its fetch fails (no
/// network, say), with cargo's own message.
pub fn fetch(opts: &Options) -> Result<(), Error> {
    let list = corpus(opts)?;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let tmp = std::env::temp_dir().join(format!("welltempered-reach-{}", std::process::id()));
    let result = (|| {
        for (n, v) in &list {
            if registry_dir(opts, n, v).is_some() {
                continue;
            }
            let dir = tmp.join(format!("{n}-{v}"));
            std::fs::create_dir_all(dir.join("src"))
                .and_then(|()| std::fs::write(dir.join("src/lib.rs"), ""))
                .and_then(|()| {
                    std::fs::write(
                        dir.join("Cargo.toml"),
                        format!(
                            "[package]\nname = \"reach-fetch\"\nversion = \"0.0.0\"\n\
                             edition = \"2021\"\n\n[dependencies]\n{n} = \"={v}\"\n\n\
                             [workspace]\n"
                        ),
                    )
                })
                .map_err(|e| Error::Reach(format!("{}: {e}", dir.display())))?;
            let out = std::process::Command::new(&cargo)
                .arg("fetch")
                .arg("--quiet")
                .arg("--manifest-path")
                .arg(dir.join("Cargo.toml"))
                .env("CARGO_HOME", &opts.cargo_home)
                .output()
                .map_err(|e| Error::Reach(format!("fetching {n}-{v}: cannot run cargo: {e}")))?;
            if !out.status.success() {
                return Err(Error::Reach(format!(
                    "fetching {n}-{v} failed (network?): {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
        }
        Ok(())
    })();
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

/// Analyses every crate of the corpus found in the cargo registry.
pub fn run(opts: &Options) -> Result<ReachReport, Error> {
    let list = corpus(opts)?;
    let expected = expected(opts)?;
    let mut report = ReachReport::default();
    for (n, v) in list {
        let dir = registry_dir(opts, &n, &v).ok_or_else(|| {
            Error::Reach(format!(
                "{n}-{v} is not in {} (corpus not fetched; needs network)",
                opts.cargo_home.join("registry/src").display()
            ))
        })?;
        let t = std::time::Instant::now();
        // The corpus was audited on its library and binary targets: its tests, examples and
        // benches (analysed by `check`) are not part of the table.
        let a = crate::analyze_targets(&dir, crate::discover::Targets::LibAndBins)?;
        let seconds = t.elapsed().as_secs_f64();
        let name = format!("{n}-{v}");
        let rows: Vec<ChannelRow> = a
            .channels
            .iter()
            .map(|c| {
                let e = expected
                    .iter()
                    .find(|e| e.krate == name && e.file == c.site.file && e.line == c.site.line);
                let exact = matches!(
                    (&c.senders, &c.receivers),
                    (crate::Side::Exact { .. }, crate::Side::Exact { .. })
                );
                ChannelRow {
                    remark: c.to_string(),
                    expected: e.map(|e| (e.senders.clone(), e.receivers.clone())),
                    audit: e.map_or_else(|| "not audited".to_string(), |e| e.audit.clone()),
                    wrong: e.is_some_and(|e| {
                        wrong_side(&c.senders, &e.senders) || wrong_side(&c.receivers, &e.receivers)
                    }),
                    exact,
                }
            })
            .collect();
        let summary = a.summary();
        report.crates.push(CrateRow {
            name: format!("{n}-{v}"),
            lines: a.lines,
            channels: summary.channels,
            exact: summary.exact,
            conservative: summary.conservative,
            refused: summary.refused,
            seconds,
            wrong: rows.iter().filter(|r| r.wrong).count(),
            verdicts: rows,
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
            "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8} {:>6} {:>9}",
            "crate", "lines", "channels", "exact", "conservative", "refused", "wrong", "seconds"
        );
        let (mut ch, mut ex, mut co, mut re, mut li, mut wr) = (0, 0, 0, 0, 0, 0);
        for c in &self.crates {
            let _ = writeln!(
                s,
                "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8} {:>6} {:>9.4}",
                c.name, c.lines, c.channels, c.exact, c.conservative, c.refused, c.wrong, c.seconds
            );
            wr += c.wrong;
            ch += c.channels;
            ex += c.exact;
            co += c.conservative;
            re += c.refused;
            li += c.lines;
        }
        let _ = writeln!(
            s,
            "{:<28} {:>7} {:>8} {:>6} {:>12} {:>8} {:>6}",
            "total", li, ch, ex, co, re, wr
        );
        for c in &self.crates {
            let _ = writeln!(s, "\n# {}", c.name);
            for r in &c.verdicts {
                let exp = r.expected.as_ref().map_or("none".to_string(), |(a, b)| {
                    format!("senders {a}, receivers {b}")
                });
                let _ = write!(
                    s,
                    "{}  expected: {exp}{}\n  audit: {}\n",
                    r.remark,
                    if r.wrong { " (WRONG)" } else { "" },
                    r.audit
                );
            }
        }
        s
    }
}
