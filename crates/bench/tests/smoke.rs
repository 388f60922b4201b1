//! Smoke tests of the `welltempered` binary: a tiny mutex run in-process and in child processes,
//! and `compare` over the results. They check the structure of the output, never its timing.

#![cfg(not(miri))]

use std::path::{Path, PathBuf};
use std::process::Command;
use welltempered_bench::model::{Report, SCHEMA};

fn exe() -> &'static str {
    env!("CARGO_BIN_EXE_welltempered")
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("wt-smoke-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
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

fn tiny_mutex(dir: &Path, extra: &[&str]) -> (String, Report) {
    let json = dir.join("mutex.json");
    let mut args = vec![
        "mutex",
        "--quiet",
        "--locks",
        "std,parking_lot,spin",
        "--threads",
        "1,2",
        "--workload",
        "max,moderate",
        "--cs",
        "0",
        "--duration",
        "10ms",
        "--reps",
        "1",
        "--json",
        json.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let stdout = run_ok(&args);
    (stdout, Report::load(&json).unwrap())
}

fn check_structure(r: &Report, child: bool) {
    assert_eq!(r.schema, SCHEMA);
    assert!(r.host.cores >= 1);
    assert!(r.host.versions.contains_key("parking_lot"));
    let s = &r.sections[0];
    assert_eq!(s.name, "mutex");
    assert_eq!(s.baselines, ["std", "parking_lot"]);
    // latency + 2 workloads x 1 cs x 2 thread counts.
    assert_eq!(s.groups.len(), 5);
    assert_eq!(s.groups[0].id, "latency");
    for g in &s.groups {
        assert_eq!(g.variants, ["std", "parking_lot", "spin"]);
        assert_eq!(g.reps.len(), 1);
        let rep = &g.reps[0];
        assert_eq!(rep.samples.len(), 3);
        for smp in &rep.samples {
            assert_eq!(smp.child, child);
            assert_eq!(smp.ops, smp.per_thread.iter().sum::<u64>());
            assert!(smp.wall_s > 0.0);
            if !r.host.pmu {
                assert!(smp.hw.cycles.is_none() && smp.hw.instructions.is_none());
            }
        }
        if g.id != "latency" {
            let t = g.params["threads"].as_u64().unwrap() as usize;
            assert!(rep.samples.iter().all(|s| s.per_thread.len() == t));
        }
    }
}

#[test]
fn tiny_mutex_run_has_the_documented_structure() {
    let dir = scratch("inproc");
    let (stdout, r) = tiny_mutex(&dir, &[]);
    check_structure(&r, false);
    assert!(stdout.contains("MutexBench"));
    assert!(stdout.contains("vs std [95% CI]") && stdout.contains("vs parking_lot [95% CI]"));
    // No summary for these locks (it follows ours), so the tables are printed; units are
    // chosen per table, and counter columns nothing filled are left out.
    assert!(
        stdout.contains("cpu-") && stdout.contains("csw/"),
        "{stdout}"
    );
    if !r.host.pmu {
        assert!(!stdout.contains("cycles/"), "{stdout}");
    }
    // Markdown and one plot per (workload, cs) sweep, beside the JSON.
    assert!(dir.join("mutex.md").exists());
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
    assert_eq!(svgs, 2);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn isolated_runs_and_compare() {
    let dir = scratch("child");
    let (_, r) = tiny_mutex(&dir, &["--isolate"]);
    check_structure(&r, true);
    let a = dir.join("a.json");
    std::fs::rename(dir.join("mutex.json"), &a).unwrap();
    let out = run_ok(&["compare", a.to_str().unwrap(), a.to_str().unwrap()]);
    assert!(out.contains("a#1") && out.contains("a#2"), "{out}");
    assert!(out.contains("max/cs=0/t=2"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_lock_name_lists_valid_ones() {
    let out = Command::new(exe())
        .args([
            "mutex",
            "--quiet",
            "--locks",
            "nosuch",
            "--json",
            "/nonexistent/x.json",
        ])
        .output()
        .unwrap();
    // Bad input: clap's usage code, as for a malformed value.
    assert_eq!(out.status.code(), Some(welltempered_bench::EXIT_USAGE));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown lock \"nosuch\"") && err.contains("parking_lot"),
        "{err}"
    );
}

/// Whichever layer rejects bad input (clap for a malformed value, a section's plan for an
/// unknown name or an empty list, the report for an unknown section), the exit code is the same.
#[test]
fn bad_input_exits_with_one_code_whichever_layer_rejects_it() {
    for args in [
        &["mutex", "--threads", "8-2"][..],
        &["mutex", "--duration", "5parsecs"],
        &["mutex", "--nosuchflag"],
        &["par", "--parts", "nosuch"],
        &["channel", "--channels", "nosuch"],
        &["report", "--only", "nosuch"],
    ] {
        let out = Command::new(exe()).args(args).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(welltempered_bench::EXIT_USAGE),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(!out.stderr.is_empty(), "{args:?} said nothing");
    }
}

#[test]
fn child_entry_point_rejects_bad_specs() {
    let out = Command::new(exe())
        .args(["__child", "mutex", "{\"lock\": 3}"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad mutex spec"));
}

#[test]
fn first_workload_runs_each_measurement_in_a_fresh_child() {
    let dir = scratch("first");
    let json = dir.join("channel.json");
    run_ok(&[
        "channel",
        "--quiet",
        "--workloads",
        "first",
        "--channels",
        "ours,crossbeam,rtrb",
        "--reps",
        "2",
        "--json",
        json.to_str().unwrap(),
    ]);
    let r = Report::load(&json).unwrap();
    let ids: Vec<_> = r.sections[0].groups.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(ids, ["first/one-thread", "first/blocking"]);
    let groups = &r.sections[0].groups;
    assert_eq!(groups[0].variants, ["ours", "crossbeam", "rtrb"]);
    // rtrb has no blocking receive: it is left out of the sleeping receiver's group.
    assert_eq!(groups[1].variants, ["ours", "crossbeam"]);
    for g in groups {
        assert_eq!(g.reps.len(), 2, "{}", g.id);
        for s in g.reps.iter().flat_map(|r| &r.samples) {
            assert!(s.child && s.ops == 1, "{} {}", g.id, s.variant);
            assert!(s.value >= 0.0 && s.wall_s > 0.0, "{} {}", g.id, s.variant);
        }
    }
    for s in groups[1].reps.iter().flat_map(|r| &r.samples) {
        // The sender waited 2 ms before it sent.
        assert!(s.extra["wall_us"] >= 2000.0, "{s:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn memory_workload_runs_each_allocator_in_its_own_child() {
    let dir = scratch("memory");
    let json = dir.join("channel.json");
    run_ok(&[
        "channel",
        "--quiet",
        "--workloads",
        "memory",
        "--channels",
        "ours,crossbeam",
        "--allocators",
        "system,mimalloc,jemalloc",
        "--reps",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let r = Report::load(&json).unwrap();
    let g = &r.sections[0].groups[0];
    assert_eq!(g.id, "memory/burst=1e6");
    assert_eq!(
        g.variants,
        [
            "ours",
            "crossbeam",
            "ours@mimalloc",
            "crossbeam@mimalloc",
            "ours@jemalloc",
            "crossbeam@jemalloc"
        ]
    );
    for s in &g.reps[0].samples {
        assert!(s.child, "{}", s.variant);
        assert_eq!(s.ops, 1_000_000, "{}", s.variant);
        assert!(
            s.value > 0.0 && s.extra["peak_kib"] >= s.extra["idle_kib"],
            "{}",
            s.variant
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn par_section_runs_ours_libgomp_and_rayon_in_children() {
    let dir = scratch("par");
    let json = dir.join("par.json");
    run_ok(&[
        "par",
        "--quiet",
        "--parts",
        "epcc,barrier,reduction,idle",
        "--threads",
        "2",
        "--constructs",
        "parallel,barrier,critical,dynamic-chunk",
        "--target",
        "1ms",
        "--idle",
        "50ms",
        "--reps",
        "1",
        "--json",
        json.to_str().unwrap(),
    ]);
    let r = Report::load(&json).unwrap();
    let s = &r.sections[0];
    assert_eq!(s.name, "par");
    let libgomp = s.config["libgomp_skipped"].is_null();
    let ids: Vec<&str> = s.groups.iter().map(|g| g.id.as_str()).collect();
    assert!(ids.contains(&"epcc/parallel/t=2"), "{ids:?}");
    assert!(ids.contains(&"barrier-kind/t=2"), "{ids:?}");
    assert!(ids.contains(&"idle"), "{ids:?}");
    for g in &s.groups {
        assert_eq!(
            g.variants.contains(&"libgomp".to_string()),
            libgomp && !g.id.starts_with("reduction"),
            "{}",
            g.id
        );
        for sample in &g.reps[0].samples {
            assert!(sample.child, "{} {}", g.id, sample.variant);
            assert!(sample.value.is_finite(), "{} {}", g.id, sample.variant);
        }
    }
    let parallel = s
        .groups
        .iter()
        .find(|g| g.id == "epcc/parallel/t=2")
        .unwrap();
    assert!(parallel.variants.contains(&"rayon".to_string()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The processes whose environment holds `marker` (as `NAME=VALUE`).
fn processes_with_env(marker: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = e.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        if let Ok(env) = std::fs::read(e.path().join("environ"))
            && env.split(|&b| b == 0).any(|v| v == marker.as_bytes())
        {
            out.push(pid);
        }
    }
    out
}

#[test]
fn small_workload_runs_quiet_and_under_load() {
    let dir = scratch("load");
    let json = dir.join("channel.json");
    // Marks the harness and, through inheritance, its load processes.
    let marker = format!("WT_SMOKE_LOAD={}", std::process::id());
    let (name, value) = marker.split_once('=').unwrap();
    let out = Command::new(exe())
        .env(name, value)
        .args([
            "channel",
            "-q",
            "--verbose",
            "--workloads",
            "small",
            "--load",
            "0,1",
            "--duration",
            "20ms",
            "--reps",
            "1",
            "--channels",
            "ours,crossbeam",
            "--json",
            json.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every load process was killed and reaped with its group.
    assert_eq!(processes_with_env(&marker), Vec::<u32>::new());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(stdout.contains("vs crossbeam [95% CI]"), "{stdout}");
    assert!(stdout.contains("load: 1 busy process"), "{stdout}");
    let r = Report::load(&json).unwrap();
    let s = &r.sections[0];
    assert_eq!(s.config["load_small"], serde_json::json!(["0", "1"]));
    let ids: Vec<&str> = s.groups.iter().map(|g| g.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "small/cap=0/1:1",
            "small/cap=0/1:1/load=1",
            "small/cap=0/8:1",
            "small/cap=0/8:1/load=1",
            "small/cap=1/1:1",
            "small/cap=1/1:1/load=1",
            "small/cap=1/8:1",
            "small/cap=1/8:1/load=1",
        ]
    );
    for (i, g) in s.groups.iter().enumerate() {
        let load = if i % 2 == 0 { "0" } else { "1" };
        assert_eq!(g.params["load"], load, "{}", g.id);
        assert_eq!(g.params["workload"], "small", "{}", g.id);
        assert!(g.params["x"] == 1 || g.params["x"] == 8, "{}", g.id);
        assert_eq!(g.variants, ["ours", "crossbeam"]);
        for smp in &g.reps[0].samples {
            assert!(!smp.child && smp.wall_s > 0.0, "{} {}", g.id, smp.variant);
            assert!(smp.ops as f64 <= smp.extra["sent_total"]);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_load_process_runs_until_its_stdin_closes() {
    use std::io::BufRead;
    use std::process::Stdio;
    for kind in ["busy", "mixed"] {
        let mut child = Command::new(exe())
            .args(["__load", kind])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "ready", "{kind}");
        // The harness going away closes the pipe; the load process then exits by itself.
        drop(child.stdin.take());
        assert!(child.wait().unwrap().success(), "{kind}");
    }
    let out = Command::new(exe())
        .args(["__load", "nosuch"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("valid kinds: busy, mixed"));
}
