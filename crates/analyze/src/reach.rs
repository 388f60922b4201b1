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

/// The two corpora: the crates the rules were written against, and crates held out from that
/// work to measure how the rules generalise.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Corpus {
    /// `reach/`: the 15 crates the rules were tuned on.
    #[default]
    Tuning,
    /// `reach/validation/`: crates audited before any rule was changed for them.
    Validation,
}

impl Options {
    /// The default cargo home, with the given corpus's directory.
    pub fn for_corpus(corpus: Corpus) -> Self {
        let mut o = Self::default();
        if corpus == Corpus::Validation {
            o.reach_dir = o.reach_dir.join("validation");
        }
        o
    }
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

/// `corpus.toml`: the pinned crates.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct CorpusFile {
    #[serde(rename = "crate", default)]
    crates: Vec<Pinned>,
}

/// One `[[crate]]` of `corpus.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Pinned {
    name: String,
    version: String,
}

/// `expected.toml`: the audited truth.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ExpectedFile {
    #[serde(default)]
    channel: Vec<Expected>,
}

/// One `[[channel]]` of `expected.toml`.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Expected {
    #[serde(rename = "crate")]
    krate: String,
    file: String,
    line: usize,
    senders: String,
    receivers: String,
    audit: String,
}

/// Reads and parses one of the corpus's TOML files, naming it in any error.
fn read_toml<T: serde::de::DeserializeOwned>(opts: &Options, file: &str) -> Result<T, Error> {
    let p = opts.reach_dir.join(file);
    let text =
        std::fs::read_to_string(&p).map_err(|e| Error::Reach(format!("{}: {e}", p.display())))?;
    toml::from_str(&text).map_err(|e| Error::Reach(format!("{}: {e}", p.display())))
}

/// The pinned crates of `corpus.toml`, as `(name, version)`.
fn corpus(opts: &Options) -> Result<Vec<(String, String)>, Error> {
    let f: CorpusFile = read_toml(opts, "corpus.toml")?;
    Ok(f.crates.into_iter().map(|c| (c.name, c.version)).collect())
}

/// The audited channels of `expected.toml`; a count that is neither a number nor `many` is an
/// error, naming the channel.
fn expected(opts: &Options) -> Result<Vec<Expected>, Error> {
    let f: ExpectedFile = read_toml(opts, "expected.toml")?;
    for e in &f.channel {
        for v in [&e.senders, &e.receivers] {
            if v != "many" && v.parse::<usize>().is_err() {
                return Err(Error::Reach(format!(
                    "{}: {} {}:{}: count {v:?} is neither a number nor \"many\"",
                    opts.reach_dir.join("expected.toml").display(),
                    e.krate,
                    e.file,
                    e.line
                )));
            }
        }
    }
    Ok(f.channel)
}

/// `None` is many.
fn truth(s: &str) -> Option<usize> {
    s.parse().ok()
}

/// Whether the verdict on one side contradicts the audited truth. Counts are judged as the
/// analysis means them: 0 and 1 are both a *single* side (no thread, or one, uses it: a ring
/// can serve it), and `many` is any count above one that the analysis does not pin down (a
/// loop's clones, a pool's workers). Wrong is:
/// - an exact verdict in the other class than the truth (single for a side several threads
///   use, or several for a side at most one uses), or an exact number above one that is not
///   the truth (2 where 3 use it, or where the truth is an open `many`);
/// - a lower bound that the truth is below, unless both are single (at least 1 where no
///   thread uses the side states nothing false about the topology).
///
/// Refused never is.
pub fn wrong_side(side: &crate::Side, truth_text: &str) -> bool {
    // `None`: many.
    let t = truth(truth_text);
    let single = |v: Option<usize>| v.is_some_and(|v| v <= 1);
    match side {
        crate::Side::Exact { count, .. } => {
            let c = count.value();
            single(c) != single(t) || matches!((c, t), (Some(c), t) if c > 1 && t != Some(c))
        }
        crate::Side::Conservative { at_least, .. } => {
            let a = at_least.value();
            if single(a) && single(t) {
                return false;
            }
            match (a, t) {
                (Some(a), Some(t)) => a > t,
                // At least many (more than one) is below any shared truth.
                (None, Some(t)) => t <= 1,
                (_, None) => false,
            }
        }
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
    // One directory per call: two fetches of one process (the two corpora's tests) must not
    // remove each other's manifests.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp =
        std::env::temp_dir().join(format!("welltempered-reach-{}-{call}", std::process::id()));
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
        let a = crate::analyze_targets(&dir, crate::discover::Targets::LibAndBins)
            .map_err(|e| Error::Reach(format!("{n}-{v}: {e}")))?;
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
        let pct = |n: usize| {
            if ch == 0 {
                0.0
            } else {
                100.0 * n as f64 / ch as f64
            }
        };
        let _ = writeln!(
            s,
            "{} crates; exact {ex} of {ch} channels ({:.0}%), conservative {:.0}%, refused {:.0}%, \
             wrong {wr}",
            self.crates.len(),
            pct(ex),
            pct(co),
            pct(re)
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
