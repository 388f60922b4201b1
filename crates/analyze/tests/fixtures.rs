//! Lit-style tests: each fixture crate under `tests/fixtures/<name>/` is analysed and its remarks
//! must equal `expected.txt` exactly (`WT_BLESS=1` rewrites the expectations).

use std::path::PathBuf;

fn fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    v.sort();
    v
}

#[test]
fn every_fixture_gives_its_expected_remarks() {
    let all = fixtures();
    assert!(all.len() >= 30, "only {} fixtures", all.len());
    let bless = std::env::var_os("WT_BLESS").is_some();
    let mut failures = Vec::new();
    for f in &all {
        let got = welltempered_analyze::analyze_crate(f)
            .map(|a| a.to_string())
            .unwrap_or_else(|e| format!("{e}\n"));
        let exp_path = f.join("expected.txt");
        if bless {
            std::fs::write(&exp_path, &got).unwrap();
            continue;
        }
        let expected = std::fs::read_to_string(&exp_path).unwrap_or_default();
        if got != expected {
            failures.push(format!(
                "{}:\n--- expected\n{expected}--- got\n{got}",
                f.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_names_every_channel() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/renames");
    let a = welltempered_analyze::analyze_crate(&f).unwrap();
    let j: serde_json::Value =
        serde_json::from_str(&welltempered_analyze::remark::to_json(&a)).unwrap();
    let chans = j["channels"].as_array().unwrap();
    assert_eq!(chans.len(), 2);
    assert_eq!(chans[0]["constructor"], "std::sync::mpsc::channel");
    assert_eq!(chans[1]["constructor"], "crossbeam_channel::unbounded");
    assert_eq!(chans[0]["site"]["file"], "src/main.rs");
}

#[test]
fn json_lists_what_was_not_read() {
    let f = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/include_item");
    let a = welltempered_analyze::analyze_crate(&f).unwrap();
    let j: serde_json::Value =
        serde_json::from_str(&welltempered_analyze::remark::to_json(&a)).unwrap();
    let notes = j["notes"].as_array().unwrap();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0]["site"]["file"], "src/main.rs");
    assert_eq!(notes[0]["site"]["line"], 10);
    assert!(
        notes[0]["text"]
            .as_str()
            .unwrap()
            .contains("computed at build time")
    );
    // The included file's channel is found, with the including module's `use`.
    assert_eq!(j["channels"][0]["site"]["file"], "src/worker.rs");
}

/// The README's rule table names, per rule, the fixtures that exercise it: every fixture is
/// named under some rule, every rule names at least one, and every name is a fixture.
#[test]
fn rule_table_names_every_fixture() {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(manifest.join("README.md")).unwrap();
    let header = "| construct | effect on the side | rule in | fixtures (tests/fixtures/) |";
    let start = readme
        .find(header)
        .expect("README.md has the rule table with its fixtures column");
    let rows: Vec<&str> = readme[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .collect();
    assert!(rows.len() >= 15, "only {} rules in the table", rows.len());
    let mut named = std::collections::BTreeSet::new();
    for row in &rows {
        // The last cell: `| ... | a, b, c |`.
        let cell = row.trim_end_matches('|').rsplit('|').next().unwrap().trim();
        let names: Vec<&str> = cell
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .collect();
        assert!(!names.is_empty(), "a rule with no fixture: {row}");
        named.extend(names.into_iter().map(str::to_owned));
    }
    let fixtures: std::collections::BTreeSet<String> = fixtures()
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    let unlisted: Vec<_> = fixtures.difference(&named).collect();
    let missing: Vec<_> = named.difference(&fixtures).collect();
    assert!(
        unlisted.is_empty(),
        "fixtures under no rule of README.md: {unlisted:?}"
    );
    assert!(
        missing.is_empty(),
        "README.md names fixtures that do not exist: {missing:?}"
    );
}
