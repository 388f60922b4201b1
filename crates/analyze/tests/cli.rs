//! Bad input gives the documented errors (naming file and line), the binary's exit codes, and
//! `--fix` round trips: rewritten fixtures pass `cargo check`; a rewrite that cannot compile is
//! undone byte-for-byte.

use std::path::{Path, PathBuf};
use std::process::Command;

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> PathBuf {
    let d = manifest_dir()
        .join("../../target/analyze-tests")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let t = to.join(e.file_name());
        if e.path().is_dir() {
            copy_dir(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).unwrap();
        }
    }
}

fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.file_name().is_some_and(|n| n == "target") {
                continue;
            }
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn nonexistent_path_is_an_error_naming_it() {
    let e = welltempered_analyze::analyze_crate(Path::new("/no/such/crate")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "error: /no/such/crate:1: no such file or directory"
    );
}

#[test]
fn directory_without_manifest_is_no_crate() {
    let d = scratch("nocrate");
    let e = welltempered_analyze::analyze_crate(&d).unwrap_err();
    assert!(
        e.to_string().contains("no crate here (no Cargo.toml)"),
        "{e}"
    );
}

#[test]
fn syntax_error_names_file_line_and_column() {
    let d = scratch_crate("syntax", "bad");
    std::fs::write(d.join("src/main.rs"), "fn main() {\n    let x = ;\n}\n").unwrap();
    let e = welltempered_analyze::analyze_crate(&d).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("error: src/main.rs:2:13: does not parse"),
        "{e}"
    );
}

#[test]
fn a_manifest_that_is_not_toml_names_its_line() {
    let d = scratch("not_toml");
    std::fs::write(
        d.join("Cargo.toml"),
        "[package]\nname = \"bad\"\nversion = 0.1.0\n",
    )
    .unwrap();
    let e = welltempered_analyze::analyze_crate(&d).unwrap_err();
    assert!(
        e.to_string().contains("Cargo.toml:3: not a valid manifest"),
        "{e}"
    );
}

#[test]
fn unsupported_edition_names_the_manifest_line() {
    let d = scratch("edition");
    std::fs::write(
        d.join("Cargo.toml"),
        "[package]\nname = \"bad\"\nversion = \"0.1.0\"\nedition = \"2099\"\n",
    )
    .unwrap();
    let e = welltempered_analyze::analyze_crate(&d).unwrap_err();
    assert!(
        e.to_string()
            .contains("Cargo.toml:4: unsupported edition \"2099\""),
        "{e}"
    );
}

#[test]
fn binary_prints_remarks_and_exits_nonzero_on_error() {
    let bin = env!("CARGO_BIN_EXE_cargo-welltempered");
    let fx = manifest_dir().join("tests/fixtures/cloned_twice");
    for with_name in [true, false] {
        let mut c = Command::new(bin);
        if with_name {
            c.arg("welltempered");
        }
        let out = c.arg("check").arg(&fx).output().unwrap();
        assert!(out.status.success());
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            std::fs::read_to_string(fx.join("expected.txt")).unwrap()
        );
    }
    let out = Command::new(bin)
        .args(["welltempered", "check", "/no/such/crate"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/no/such/crate:1"));
    let out = Command::new(bin)
        .args(["check", "--format", "json"])
        .arg(&fx)
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(j["channels"].as_array().unwrap().len(), 1);
}

#[test]
fn summary_line_goes_to_stderr_and_counts_the_verdicts() {
    let bin = env!("CARGO_BIN_EXE_cargo-welltempered");
    let fx = manifest_dir().join("tests/fixtures/cloned_twice");
    let out = Command::new(bin).arg("check").arg(&fx).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    let a = welltempered_analyze::analyze_crate(&fx).unwrap();
    let s = a.summary();
    assert_eq!(s.channels, 1);
    assert_eq!(s.exact + s.conservative + s.refused, 1);
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert_eq!(plan.rewrites.len() + plan.kept.len(), 1);
    assert!(
        err.contains(&format!(
            "{s}; {plan}; {} lines of Rust in 1 target",
            a.lines
        )),
        "{err}"
    );
    assert!(err.contains("--fix would rewrite "), "{err}");
    assert!(err.contains("1 channel: "), "{err}");
}

#[test]
fn examples_tests_and_benches_are_analysed_each_as_its_own_crate() {
    let bin = env!("CARGO_BIN_EXE_cargo-welltempered");
    let fx = manifest_dir().join("tests/fixtures/dev_targets");
    let out = Command::new(bin).arg("check").arg(&fx).output().unwrap();
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    // lib, 3 examples (one declared with a path), 2 tests, 1 bench.
    assert!(
        err.contains("7 channels: 7 exact") && err.contains("in 7 targets"),
        "{err}"
    );
    let a = welltempered_analyze::analyze_crate(&fx).unwrap();
    assert_eq!(
        a.targets,
        [
            "src/lib.rs",
            "demos/custom.rs",
            "examples/demo.rs",
            "examples/multi/main.rs",
            "tests/a.rs",
            "tests/b.rs",
            "benches/b.rs"
        ]
    );
    let lib_only = welltempered_analyze::analyze_targets(
        &fx,
        welltempered_analyze::discover::Targets::LibAndBins,
    )
    .unwrap();
    assert_eq!(lib_only.targets, ["src/lib.rs"]);
    assert_eq!(lib_only.channels.len(), 1);
}

#[test]
fn a_reader_that_closes_early_is_not_an_error() {
    // The pipe is closed before the binary writes: its first write fails with EPIPE, which used
    // to panic ("failed printing to stdout") and exit 101.
    let bin = env!("CARGO_BIN_EXE_cargo-welltempered");
    let fx = manifest_dir().join("tests/fixtures/cloned_twice");
    for format in ["text", "json"] {
        let mut child = Command::new(bin)
            .args(["check", "--format", format])
            .arg(&fx)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{format}: {:?}: {err}", out.status);
        assert!(!err.contains("panicked"), "{format}: {err}");
    }
}

/// A workspace of two fixture crates (their own `[workspace]` lines removed, as members).
fn two_member_workspace(name: &str) -> PathBuf {
    let ws = scratch(name);
    for (dir, fixture) in [("a", "cloned_twice"), ("b", "spawned_once")] {
        copy_dir(
            &manifest_dir().join("tests/fixtures").join(fixture),
            &ws.join(dir),
        );
        let m = ws.join(dir).join("Cargo.toml");
        let text = std::fs::read_to_string(&m)
            .unwrap()
            .replace("[workspace]\n", "");
        std::fs::write(&m, text).unwrap();
    }
    std::fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n",
    )
    .unwrap();
    ws
}

#[test]
fn a_workspace_root_checks_every_member() {
    let bin = env!("CARGO_BIN_EXE_cargo-welltempered");
    let ws = two_member_workspace("workspace");
    let out = Command::new(bin).arg("check").arg(&ws).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    let fx = |f: &str| {
        std::fs::read_to_string(
            manifest_dir()
                .join("tests/fixtures")
                .join(f)
                .join("expected.txt"),
        )
        .unwrap()
    };
    let ws = ws.canonicalize().unwrap();
    assert_eq!(
        text,
        format!(
            "crate: {}\n{}crate: {}\n{}",
            ws.join("a").display(),
            fx("cloned_twice"),
            ws.join("b").display(),
            fx("spawned_once")
        )
    );
    assert_eq!(err.matches(" lines of Rust").count(), 2, "{err}");

    let out = Command::new(bin)
        .args(["check", "--format", "json"])
        .arg(&ws)
        .output()
        .unwrap();
    assert!(out.status.success());
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let members = j.as_array().unwrap();
    assert_eq!(members.len(), 2);
    for (m, dir) in members.iter().zip(["a", "b"]) {
        assert_eq!(m["crate"], ws.join(dir).display().to_string());
        assert_eq!(m["channels"].as_array().unwrap().len(), 1);
    }

    let out = Command::new(bin)
        .args(["check", "--fix"])
        .arg(&ws)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("workspace of 2 members"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A new crate `name` (edition 2021, a workspace of its own, an empty `src/`) in a scratch
/// directory `dir`, for a test to write its sources.
fn scratch_crate(dir: &str, name: &str) -> PathBuf {
    let d = scratch(dir);
    std::fs::create_dir_all(d.join("src")).unwrap();
    std::fs::write(
        d.join("Cargo.toml"),
        format!(
            "[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n[workspace]\n"
        ),
    )
    .unwrap();
    d
}

/// `--fix`'s options for these tests: welltempered from this checkout, one target directory.
fn fix_options() -> welltempered_analyze::fix::FixOptions {
    let wt = manifest_dir()
        .join("../welltempered")
        .canonicalize()
        .unwrap();
    welltempered_analyze::fix::FixOptions {
        dependency: welltempered_analyze::fix::Dependency::Path(wt),
        target_dir: Some(manifest_dir().join("../../target/analyze-fix")),
        verify_tests: None,
    }
}

/// What the crate at `d` prints when run, built in `opts`'s target directory.
fn cargo_run(d: &Path, opts: &welltempered_analyze::fix::FixOptions) -> String {
    let run = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["run", "--quiet", "--manifest-path"])
        .arg(d.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(opts.target_dir.as_ref().unwrap())
        .output()
        .unwrap();
    String::from_utf8_lossy(&run.stdout).into_owned()
}

#[test]
fn fix_round_trips_and_restores_on_failure() {
    let opts = fix_options();
    let work = scratch("fix");
    for (name, want) in [
        ("spawned_once", "welltempered::channel::spsc::channel()"),
        ("sync_channel", "welltempered::channel::spsc::bounded(2)"),
        ("spawned_in_loop", "welltempered::channel::unbounded()"),
        // The element type is kept: `channel()` alone would infer i32 and the sum overflow.
        ("turbofish", "welltempered::channel::spsc::channel::<u64>()"),
        // A sender shared by reference between threads: plain handles are not Sync, so the
        // rewrite is retried with shareable ones.
        (
            "shared_by_reference",
            "welltempered::channel::shared::unbounded()",
        ),
    ] {
        let d = work.join(name);
        copy_dir(&manifest_dir().join("tests/fixtures").join(name), &d);
        let a = welltempered_analyze::analyze_crate(&d).unwrap();
        let r =
            welltempered_analyze::fix::apply(&a, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(r.rewritten.len(), 1, "{name}");
        let main = std::fs::read_to_string(d.join("src/main.rs")).unwrap();
        assert!(main.contains(want), "{name}: {main}");
        // The `use` of std's mpsc that only the constructor needed is gone with it.
        assert!(!main.contains("std::sync::mpsc"), "{name}: {main}");
        assert!(main.contains("use std::thread;"), "{name}: {main}");
        let toml = std::fs::read_to_string(d.join("Cargo.toml")).unwrap();
        assert!(toml.contains("welltempered = { path"), "{toml}");
    }
    // Handle and error types named privately are rewritten with their channels (to the general
    // handles, generic arguments kept), and the program still computes what it did.
    let d = work.join("fixtypes");
    copy_dir(&manifest_dir().join("tests/fixtypes"), &d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let r = welltempered_analyze::fix::apply(&a, &opts).unwrap();
    assert_eq!((r.rewritten.len(), r.types.len()), (3, 10), "{r}");
    let main = std::fs::read_to_string(d.join("src/main.rs")).unwrap();
    for want in [
        "results: welltempered::channel::Sender<u64>,",
        "fn total(rx: welltempered::channel::Receiver<u64>) -> u64",
        "welltempered::channel::unbounded::<u64>()",
        "Err(welltempered::channel::TryRecvError::Disconnected) => true,",
        "use welltempered::channel::TryRecvError::Empty;",
        "if let Err(welltempered::channel::RecvError) = d.recv() {",
        "RefCell<Option<welltempered::channel::Sender<u64>>>",
    ] {
        assert!(main.contains(want), "{want}: {main}");
    }
    assert!(!main.contains("mpsc"), "{main}");
    assert_eq!(cargo_run(&d, &opts), "6 10 true true\n");
    let d = work.join("fixfail");
    copy_dir(&manifest_dir().join("tests/fixfail"), &d);
    let before = snapshot(&d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let e = welltempered_analyze::fix::apply(&a, &opts).unwrap_err();
    assert!(e.to_string().contains("originals restored"), "{e}");
    assert_eq!(snapshot(&d), before);
    // It compiles after the rewrite, but one of its own tests fails: rolled back.
    let d = work.join("fixtests");
    copy_dir(&manifest_dir().join("tests/fixtests"), &d);
    let before = snapshot(&d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let e = welltempered_analyze::fix::apply(&a, &opts).unwrap_err();
    assert!(
        e.to_string().contains("tests failed after the rewrite")
            && e.to_string().contains("originals restored"),
        "{e}"
    );
    assert_eq!(snapshot(&d), before);
    // Asked not to run them, the rewrite stays (it compiles).
    let no_tests = welltempered_analyze::fix::FixOptions {
        verify_tests: Some(false),
        ..opts.clone()
    };
    let r = welltempered_analyze::fix::apply(&a, &no_tests).unwrap();
    assert!(!r.tested && r.rewritten.len() == 2, "{r}");
    assert_ne!(snapshot(&d), before);
}

#[test]
fn fix_in_edition_2015_declares_the_crate_and_keeps_the_build_scripts_channel() {
    let opts = fix_options();
    let d = scratch("fix2015").join("fix2015");
    copy_dir(&manifest_dir().join("tests/fix2015"), &d);
    let build = std::fs::read(d.join("build.rs")).unwrap();
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let r = welltempered_analyze::fix::apply(&a, &opts).unwrap();
    assert_eq!((r.rewritten.len(), r.types.len()), (2, 1), "{r}");
    assert_eq!(r.skipped.len(), 1, "{r}");
    assert!(r.skipped[0].1.contains("build script"), "{r}");
    assert_eq!(std::fs::read(d.join("build.rs")).unwrap(), build);
    let read = |f: &str| std::fs::read_to_string(d.join(f)).unwrap();
    // Each root that compiles a rewritten file declares the crate, after its inner attributes.
    assert!(
        read("src/lib.rs").contains("#![allow(dead_code)]\nextern crate welltempered;\n"),
        "{}",
        read("src/lib.rs")
    );
    assert!(
        read("src/main.rs").starts_with("extern crate welltempered;\nextern crate fx_fix2015;\n"),
        "{}",
        read("src/main.rs")
    );
    // A module other than the root reaches it by an absolute path, generic arguments kept.
    let pipe = read("src/pipe.rs");
    for want in [
        "::welltempered::channel::unbounded::<u64>()",
        "fn sum(rx: ::welltempered::channel::Receiver<u64>)",
    ] {
        assert!(pipe.contains(want), "{want}: {pipe}");
    }
    assert!(!pipe.contains("mpsc"), "{pipe}");
    assert_eq!(cargo_run(&d, &opts), "16000000000\n");
}

#[test]
fn fix_falls_back_to_shared_handles_for_a_single_channel_lent_by_reference() {
    // One thread per side, but the receiver is lent by reference to the thread that uses it,
    // which asks for `Sync`, and the spsc handles are not: the plain rewrite fails to compile,
    // the shared one compiles.
    let opts = fix_options();
    let d = scratch_crate("fix-sync-bound", "syncbound");
    std::fs::write(
        d.join("src/main.rs"),
        "use std::sync::mpsc::channel;\n\
         fn main() {\n    let (tx, rx) = channel();\n    tx.send(7u8).unwrap();\n    \
         std::thread::scope(|s| {\n        s.spawn(|| println!(\"{}\", rx.recv().unwrap()));\n    });\n}\n",
    )
    .unwrap();
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert_eq!(
        plan.rewrites[0].to, "welltempered::channel::spsc::channel",
        "{plan}"
    );
    let r = welltempered_analyze::fix::apply(&a, &opts).unwrap();
    assert_eq!(
        r.rewritten[0].1, "welltempered::channel::shared::unbounded",
        "{r}"
    );
    let main = std::fs::read_to_string(d.join("src/main.rs")).unwrap();
    assert!(
        main.contains("welltempered::channel::shared::unbounded()"),
        "{main}"
    );
}

#[test]
fn fix_rewrites_crossbeams_selection_and_timers_with_its_channels() {
    let opts = fix_options();
    let d = scratch("fixselect").join("fixselect");
    copy_dir(&manifest_dir().join("tests/fixselect"), &d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let r = welltempered_analyze::fix::apply(&a, &opts).unwrap();
    assert_eq!((r.rewritten.len(), r.types.len()), (2, 3), "{r}");
    let main = std::fs::read_to_string(d.join("src/main.rs")).unwrap();
    for want in [
        "let mut sel = welltempered::channel::Select::new();",
        "let off = welltempered::channel::never::<u64>();",
        "welltempered::channel::select! {",
        // Not crossbeam's: it stays.
        "own::Select::new().0",
    ] {
        assert!(main.contains(want), "{want}: {main}");
    }
    assert!(!main.contains("crossbeam_channel"), "{main}");
    let own = std::fs::read_to_string(d.join("src/own.rs")).unwrap();
    assert_eq!(
        own,
        std::fs::read_to_string(manifest_dir().join("tests/fixselect/src/own.rs")).unwrap()
    );
    assert_eq!(cargo_run(&d, &opts), "10 7\n");
}

#[test]
fn fix_on_a_crate_that_fails_as_it_is_says_so() {
    let opts = fix_options();
    let d = scratch_crate("fix-broken", "broken");
    std::fs::write(
        d.join("src/main.rs"),
        "fn main() {\n    let (tx, rx) = std::sync::mpsc::channel::<u8>();\n    \
         tx.send(1).unwrap();\n    let n: u8 = \"not a number\";\n    println!(\"{} {n}\", rx.recv().unwrap());\n}\n",
    )
    .unwrap();
    let before = snapshot(&d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let e = welltempered_analyze::fix::apply(&a, &opts).unwrap_err();
    assert!(
        e.to_string()
            .contains("fails on the crate as it is, without the rewrite (error[E0308]")
            && e.to_string().contains("at src/main.rs:4:"),
        "{e}"
    );
    assert_eq!(snapshot(&d), before);
    // It compiles, but a test fails with or without the rewrite: nothing says the rewrite kept
    // what the tests check.
    std::fs::write(
        d.join("src/main.rs"),
        "fn main() {\n    let (tx, rx) = std::sync::mpsc::channel::<u8>();\n    \
         tx.send(1).unwrap();\n    println!(\"{}\", rx.recv().unwrap());\n}\n\
         #[test]\nfn fails_as_it_is() {\n    assert_eq!(1 + 1, 3);\n}\n",
    )
    .unwrap();
    let before = snapshot(&d);
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let e = welltempered_analyze::fix::apply(&a, &opts).unwrap_err();
    assert!(
        e.to_string().contains("tests failed after the rewrite")
            && e.to_string().contains("and fail without it too")
            && e.to_string().contains("--no-verify-tests keeps it"),
        "{e}"
    );
    assert_eq!(snapshot(&d), before);
}

#[test]
fn the_dependency_is_added_by_version_path_or_git_keeping_the_manifest() {
    use welltempered_analyze::fix::Dependency;
    let manifest = "[package]\nname = \"x\" # the name\nversion = \"0.1.0\"\n\n[dependencies] # deps\nlibc = \"0.2\"\n";
    let with = |d: &Dependency| welltempered_analyze::fix::dependency_added(manifest, d).unwrap();
    let v = with(&Dependency::Version("0.1".into())).unwrap();
    assert!(
        v.contains("libc = \"0.2\"\nwelltempered = \"0.1\"\n"),
        "{v}"
    );
    assert!(
        v.contains("name = \"x\" # the name") && v.contains("[dependencies] # deps"),
        "{v}"
    );
    let g = with(&Dependency::Git {
        url: "https://example.org/wt.git".into(),
        rev: Some("abc123".into()),
    })
    .unwrap();
    assert!(
        g.contains("welltempered = { git = \"https://example.org/wt.git\", rev = \"abc123\" }"),
        "{g}"
    );
    let p = with(&Dependency::Path("/src/wt".into())).unwrap();
    assert!(p.contains("welltempered = { path = \"/src/wt\" }"), "{p}");
    // Already there: nothing to add. No [dependencies] yet: the table is made.
    assert_eq!(
        welltempered_analyze::fix::dependency_added(&v, &Dependency::Version("0.2".into()))
            .unwrap(),
        None
    );
    let bare = "[package]\nname = \"x\"\nversion = \"0.1.0\"\n";
    let b = welltempered_analyze::fix::dependency_added(bare, &Dependency::default())
        .unwrap()
        .unwrap();
    assert!(
        b.ends_with("[dependencies]\nwelltempered = \"0.1\"\n"),
        "{b}"
    );
}

#[test]
fn fix_keeps_a_channel_whose_handle_type_is_named_under_any_cfg() {
    // `Sender` is crossbeam's in one configuration and std's in the other: named either way.
    let a = welltempered_analyze::analyze_crate(
        &manifest_dir().join("tests/fixtures/cfg_alternative_imports"),
    )
    .unwrap();
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert!(plan.rewrites.is_empty(), "{plan}");
    assert_eq!(plan.kept.len(), 1);
    assert!(
        plan.kept[0].1.contains("is named at src/main.rs:10"),
        "{:?}",
        plan.kept
    );
}

#[test]
fn fix_keeps_a_channel_whose_handle_type_is_public_api() {
    // Rewriting a type in a public signature would change the crate's API for its users.
    let d = scratch_crate("public-api", "pubapi");
    std::fs::write(
        d.join("src/lib.rs"),
        "use std::sync::mpsc::{channel, Receiver};\n\
         pub struct Feed { pub rx: Receiver<u8> }\n\
         pub fn feed() -> Feed { let (tx, rx) = channel(); tx.send(1).unwrap(); Feed { rx } }\n",
    )
    .unwrap();
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert!(plan.rewrites.is_empty() && plan.types.is_empty(), "{plan}");
    assert!(
        plan.kept[0]
            .1
            .contains("named in the public API at src/lib.rs:2"),
        "{:?}",
        plan.kept
    );
    // The same field, private: the type is rewritten with the channel.
    std::fs::write(
        d.join("src/lib.rs"),
        "use std::sync::mpsc::{channel, Receiver};\n\
         pub struct Feed { rx: Receiver<u8> }\n\
         pub fn feed() -> Feed { let (tx, rx) = channel(); tx.send(1).unwrap(); Feed { rx } }\n\
         impl Feed { pub fn next(&self) -> u8 { self.rx.recv().unwrap() } }\n",
    )
    .unwrap();
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert_eq!((plan.rewrites.len(), plan.types.len()), (1, 1), "{plan}");
    assert_eq!(plan.rewrites[0].to, "welltempered::channel::unbounded");
    // Named inside a macro's tokens with a `pub` among them: it may be public, so kept.
    std::fs::write(
        d.join("src/lib.rs"),
        "use std::sync::mpsc::{channel, Receiver};\n\
         thread_local! { pub static FEED: std::cell::RefCell<Option<Receiver<u8>>> = const { std::cell::RefCell::new(None) }; }\n\
         pub fn feed() { let (tx, rx) = channel(); tx.send(1).unwrap(); FEED.with(|f| *f.borrow_mut() = Some(rx)); }\n",
    )
    .unwrap();
    let a = welltempered_analyze::analyze_crate(&d).unwrap();
    let plan = welltempered_analyze::fix::plan(&a).unwrap();
    assert!(plan.rewrites.is_empty(), "{plan}");
    assert!(
        plan.kept[0].1.contains("public API at src/lib.rs:2"),
        "{:?}",
        plan.kept
    );
}
