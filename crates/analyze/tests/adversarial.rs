//! The adversarial suite: every program of `adversarial/src/bin/` moves, clones, stores, lends
//! or hides a channel handle in one way, and records, through a counting stand-in for
//! crossbeam-channel (`adversarial/counting`), which threads really used each side of each
//! channel it made. The programs are built and run, and the analysis of the same sources must
//! find every channel that ran and never claim an exact count below the threads that really
//! used a side (a lower bound or a refusal makes no such claim). Timing decides nothing here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use welltempered_analyze::{Count, Side};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("adversarial")
}

/// Builds every program and runs it: site -> (threads that sent, threads that received).
fn run_all(dir: &Path) -> (usize, BTreeMap<String, (usize, usize)>) {
    let target = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("adversarial");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let st = Command::new(cargo)
        .args(["build", "--quiet", "--offline", "--bins", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target)
        .status()
        .expect("cargo runs");
    assert!(st.success(), "the adversarial programs do not build");
    let mut programs: Vec<String> = std::fs::read_dir(dir.join("src/bin"))
        .unwrap()
        .filter_map(|e| {
            let p = e.unwrap().path();
            (p.extension()? == "rs").then(|| p.file_stem().unwrap().to_string_lossy().into_owned())
        })
        .collect();
    programs.sort();
    let mut seen = BTreeMap::new();
    for name in &programs {
        let out = Command::new(target.join("debug").join(name))
            .output()
            .expect("the program runs");
        assert!(out.status.success(), "{name} failed: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        let mut reported = 0;
        for line in text.lines().filter(|l| l.contains(" senders=")) {
            let mut it = line.split_whitespace();
            let site = it.next().unwrap().to_string();
            let n = |f: Option<&str>| -> usize {
                f.unwrap().split('=').nth(1).unwrap().parse().unwrap()
            };
            let (s, r) = (n(it.next()), n(it.next()));
            seen.insert(site, (s, r));
            reported += 1;
        }
        assert!(reported > 0, "{name} reported no channel: {text}");
    }
    (programs.len(), seen)
}

/// Whether `side` claims fewer handles than `used` threads used (an exact count below it).
fn below(side: &Side, used: usize) -> bool {
    match side {
        Side::Exact { count, .. } => match count {
            Count::Many => false,
            c => c.value().is_some_and(|n| n < used),
        },
        Side::Conservative { .. } | Side::Refused { .. } => false,
    }
}

#[test]
fn the_analysis_is_never_below_what_ran() {
    let dir = dir();
    let (programs, ran) = run_all(&dir);
    assert!(programs >= 60, "only {programs} adversarial programs");
    let a = welltempered_analyze::analyze_crate(&dir).unwrap();
    let mut failures = Vec::new();
    let (mut exact, mut conservative, mut refused) = (0, 0, 0);
    for (site, (s, r)) in &ran {
        let Some(c) = a.channels.iter().find(|c| &c.site.to_string() == site) else {
            failures.push(format!(
                "{site}: ran, but the analysis reports no channel there"
            ));
            continue;
        };
        if below(&c.senders, *s) || below(&c.receivers, *r) {
            failures.push(format!(
                "{site}: {s} threads sent and {r} received, but the analysis says\n{c}"
            ));
        }
        match (&c.senders, &c.receivers) {
            (Side::Exact { .. }, Side::Exact { .. }) => exact += 1,
            (Side::Refused { .. }, _) | (_, Side::Refused { .. }) => refused += 1,
            _ => conservative += 1,
        }
    }
    println!(
        "{programs} programs, {} channels ran: {exact} exact, {conservative} conservative, \
         {refused} refused, {} wrong",
        ran.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
