//! The report as a reader gets it, rendered from a recorded quick run (`fixtures/
//! report-quick.json`, trimmed to a few cells of each section) and compared with stored
//! expectations: the summary on stdout, the tables behind `--verbose`, the Markdown report, and
//! `compare` over two recorded files. Rendering is deterministic (the bootstrap is seeded), so
//! any change of the summary shows up here; after an intended change, rerun with
//! `WELLTEMPERED_BLESS=1` to store the new output and review its diff.

#![cfg(not(miri))]

use std::path::{Path, PathBuf};
use std::process::Command;

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_welltempered")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn run_ok(args: &[&str]) -> String {
    let out = Command::new(exe()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Compares `actual` with the stored expectation `name`, or stores it when blessing.
fn expect(name: &str, actual: &str) {
    let path = fixture(name);
    if std::env::var_os("WELLTEMPERED_BLESS").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or(expected.lines().count().min(actual.lines().count()));
        panic!(
            "{name} differs from line {}:\nexpected: {:?}\nactual:   {:?}\n\n{actual}",
            first + 1,
            expected.lines().nth(first),
            actual.lines().nth(first)
        );
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wt-report-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn the_summary_of_a_recorded_run_is_as_stored() {
    let json = fixture("report-quick.json");
    let stdout = run_ok(&["show", json.to_str().unwrap()]);
    expect("report-quick.summary.txt", &stdout);
    // What the summary promises, whatever the stored text says.
    for section in [
        "== MutexBench ==",
        "== WTC channel workloads ==",
        "== Team runtime",
    ] {
        assert!(stdout.contains(section), "{section}");
    }
    assert!(stdout.contains("result [95% CI]") && stdout.contains("verdict"));
    assert!(stdout.contains("targets: "));
    assert!(stdout.contains("skipped: "), "the skipped section says why");
    // No table of every cell, no exponents, no column of n/a.
    assert!(!stdout.contains("max/min"));
    assert!(!stdout.contains("e-"), "{stdout}");
    assert!(!stdout.contains("n/a"));
}

#[test]
fn verbose_adds_every_table_without_empty_columns() {
    let json = fixture("report-quick.json");
    let summary = run_ok(&["show", json.to_str().unwrap()]);
    let stdout = run_ok(&["show", "--verbose", json.to_str().unwrap()]);
    assert!(stdout.starts_with(summary.lines().next().unwrap()));
    assert!(stdout.contains("vs parking_lot [95% CI]") && stdout.contains("max/min"));
    // The recorded host has no PMU: its counter columns are left out, and said so once.
    assert!(stdout.contains("no PMU"));
    assert!(!stdout.contains("cycles/") && !stdout.contains("misses/"));
    // Units chosen per table, never an exponent.
    assert!(stdout.contains("cpu-ns/acq"), "{stdout}");
    assert!(!stdout.contains("e-"));
    assert!(stdout.contains("M acq/s"));
    expect("report-quick.verbose.txt", &stdout);
}

#[test]
fn the_markdown_report_opens_with_the_summary() {
    let dir = scratch("md");
    let json = fixture("report-quick.json");
    run_ok(&[
        "show",
        json.to_str().unwrap(),
        "--out",
        dir.to_str().unwrap(),
    ]);
    let md = std::fs::read_to_string(dir.join("report-quick.md")).unwrap();
    let summary = md.find("## Summary").expect("a summary");
    let mutex = md.find("\n## MutexBench").expect("the mutex section");
    assert!(summary < mutex);
    assert!(md.contains("| cell | ours | against | result [95% CI] | target | verdict |"));
    // The HTML page beside it: self-contained, the summary first, every plot inlined.
    let html = std::fs::read_to_string(dir.join("report-quick.html")).unwrap();
    let svgs = std::fs::read_dir(&dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "svg")
        })
        .count();
    assert!(svgs > 0);
    assert_eq!(html.matches("<figure class=\"plot\">").count(), svgs);
    assert!(html.find("id=\"summary\"").unwrap() < html.find("<figure").unwrap());
    // Nothing to fetch: no script, no source, no address but the SVG namespace's name.
    let fetched = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    assert!(!fetched.contains("<script") && !fetched.contains("src=") && !fetched.contains("://"));
    assert!(html.contains("class=\"not-met\"") && html.contains("class=\"met\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn compare_of_two_recorded_files_is_as_stored() {
    let dir = scratch("compare");
    let a = fixture("report-quick.json");
    let mut other: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&a).unwrap()).unwrap();
    other["host"]["hostname"] = "second-host".into();
    other["host"]["cores"] = 8.into();
    let b = dir.join("second.json");
    std::fs::write(&b, other.to_string()).unwrap();
    let stdout = run_ok(&["compare", a.to_str().unwrap(), b.to_str().unwrap()]);
    // The temporary path is not part of what is compared.
    expect(
        "report-quick.compare.txt",
        &stdout.replace(dir.to_str().unwrap(), "<dir>"),
    );
    assert!(stdout.contains("report-quick") && stdout.contains("second"));
    std::fs::remove_dir_all(&dir).unwrap();
}
