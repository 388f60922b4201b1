//! The adversarial suite: every program of `adversarial/src/bin/` moves, clones, stores, lends
//! or hides a channel handle in one way, and records, through a counting stand-in for
//! crossbeam-channel (`adversarial/counting`), which threads really used each side of each
//! channel it made, and how many handles of each side it made. The programs are built and
//! run, and the analysis of the same sources must find every channel that ran and never claim
//! an exact count below the threads that really used a side, nor above both the handles made
//! and the threads that used them (a lower bound or a refusal makes no such claim). Timing
//! decides nothing here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use welltempered_analyze::Side;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("adversarial")
}

/// What one channel really did: per side (senders, receivers), the threads that used it and
/// the handles made of it.
struct Ran {
    used: [usize; 2],
    made: [usize; 2],
}

/// Builds every program and runs it: site -> what the channel made there did.
fn run_all(dir: &Path) -> (usize, BTreeMap<String, Ran>) {
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
            let made: Vec<usize> = it
                .next()
                .and_then(|f| f.strip_prefix("made="))
                .unwrap()
                .split('/')
                .map(|x| x.parse().unwrap())
                .collect();
            seen.insert(
                site,
                Ran {
                    used: [s, r],
                    made: [made[0], made[1]],
                },
            );
            reported += 1;
        }
        assert!(reported > 0, "{name} reported no channel: {text}");
    }
    (programs.len(), seen)
}

/// Why `side` is wrong for a side that `used` threads used and that had `made` handles: an
/// exact count below the threads that used it (the dangerous direction), or above both the
/// handles made and the threads that used them (an over-count labelled exact). `None` when it
/// is not refuted; a lower bound or a refusal claims nothing that a run can refute, nor does
/// an exact "many".
fn refuted(side: &Side, used: usize, made: usize) -> Option<String> {
    let Side::Exact { count, .. } = side else {
        return None;
    };
    let n = count.value()?;
    if n < used {
        return Some(format!("exact {n}, but {used} threads used it"));
    }
    if n > made.max(used) {
        return Some(format!(
            "exact {n}, but only {made} handles were made and {used} threads used them"
        ));
    }
    None
}

#[test]
fn the_analysis_is_never_below_what_ran() {
    let dir = dir();
    let (programs, ran) = run_all(&dir);
    assert!(programs >= 60, "only {programs} adversarial programs");
    let a = welltempered_analyze::analyze_crate(&dir).unwrap();
    let mut failures = Vec::new();
    let (mut exact, mut conservative, mut refused) = (0, 0, 0);
    for (site, ran) in &ran {
        let Some(c) = a.channels.iter().find(|c| &c.site.to_string() == site) else {
            failures.push(format!(
                "{site}: ran, but the analysis reports no channel there"
            ));
            continue;
        };
        for (i, (name, side)) in [("senders", &c.senders), ("receivers", &c.receivers)]
            .into_iter()
            .enumerate()
        {
            if let Some(why) = refuted(side, ran.used[i], ran.made[i]) {
                failures.push(format!("{site}: {name}: {why}; the analysis says\n{c}"));
            }
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
