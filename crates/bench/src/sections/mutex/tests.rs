//! Tests of the mutex section: options, plans, groups and every lock's run.

use super::*;

fn parse(args: &[&str]) -> std::result::Result<MutexArgs, clap::Error> {
    let cmd = MutexBench.args(clap::Command::new("mutex"));
    let m = cmd.try_get_matches_from(std::iter::once("mutex").chain(args.iter().copied()))?;
    MutexArgs::from_arg_matches(&m)
}

#[test]
fn names_and_thread_ranges_are_read_as_a_person_writes_them() {
    let a = parse(&[
        "--locks",
        "Parking-Lot,STD,parking_lot",
        "--threads",
        "2-4,16",
    ])
    .unwrap();
    let plan = a.plan(false).unwrap();
    // Case and `-`/`_` do not matter; the plan holds the canonical names, once each.
    assert_eq!(plan.locks, ["parking_lot", "std"]);
    assert_eq!(plan.threads, [2, 3, 4, 16]);
}

#[test]
fn cli_accepts_the_documented_form() {
    let a = parse(&[
        "--locks",
        "std,parking_lot",
        "--threads",
        "1,2,64",
        "--workload",
        "max,moderate,condvar",
        "--cs",
        "0,100ns",
        "--duration",
        "200ms",
        "--reps",
        "7",
    ])
    .unwrap();
    let p = a.plan(false).unwrap();
    assert_eq!(p.locks, ["std", "parking_lot"]);
    assert_eq!(p.threads, [1, 2, 64]);
    assert_eq!(
        p.workloads,
        [Workload::Max, Workload::Moderate, Workload::Condvar]
    );
    assert_eq!(p.cs_ns, [0, 100]);
    // An explicit --cs applies to every workload of the sweep; the ping-pong is a group of
    // its own.
    assert_eq!(p.cells.len(), 4);
    let g = groups(&p);
    assert_eq!(g.last().unwrap().0.id, "condvar/pingpong");
    assert_eq!(g.last().unwrap().0.variants, ["std", "parking_lot"]);
    assert_eq!(p.duration_ns, 200_000_000);
    assert_eq!(p.reps, 7);
}

#[test]
fn cli_rejects_bad_values() {
    assert!(parse(&["--threads", "0"]).is_err());
    assert!(parse(&["--threads", "two"]).is_err());
    assert!(parse(&["--workload", "extreme"]).is_err());
    assert!(parse(&["--cs", "10"]).is_err());
    assert!(parse(&["--reps", "0"]).is_err());
    assert!(parse(&["--bogus"]).is_err());
    let a = parse(&["--locks", "std,nosuchlock"]).unwrap();
    let err = a.plan(false).unwrap_err().to_string();
    assert!(
        err.contains("nosuchlock") && err.contains("valid locks: std"),
        "{err}"
    );
    let zero = parse(&["--duration", "0"]).unwrap();
    assert!(zero.plan(false).is_err());
}

#[test]
fn quick_defaults_are_a_subset() {
    let quick = MutexArgs::default().plan(true).unwrap();
    let full = MutexArgs::default().plan(false).unwrap();
    assert!(quick.locks.iter().all(|l| full.locks.contains(l)));
    assert!(quick.locks.contains(&"std".to_string()));
    assert!(quick.threads.contains(&64) && full.threads.contains(&64));
    assert!(groups(&quick).len() < groups(&full).len());
    // By default the critical-section sweep runs on the max workload only.
    assert_eq!(
        full.cells,
        [
            (Workload::Max, 0),
            (Workload::Max, 100),
            (Workload::Max, 1000),
            (Workload::Max, 10_000),
            (Workload::Moderate, 0)
        ]
    );
    // Group ids are unique.
    let g = groups(&full);
    let mut ids: Vec<&str> = g.iter().map(|(g, _)| g.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), g.len());
}

#[test]
fn every_lock_excludes_and_counts() {
    let threads = if cfg!(miri) { 2 } else { 4 };
    let duration_ns = if cfg!(miri) { 50_000 } else { 2_000_000 };
    // Under Miri, one lock of each family: the interpreter is slow.
    let chosen: Vec<&LockEntry> = locks()
        .iter()
        .filter(|e| !cfg!(miri) || ["std", "parking_lot", "hemlock", "mcs"].contains(&e.name))
        .collect();
    for e in chosen {
        for w in [Workload::Max, Workload::Moderate] {
            let s = run_spec(&Spec {
                lock: e.name.to_string(),
                workload: Some(w),
                cs_ns: 0,
                cs_iters: 3,
                threads,
                duration_ns,
            })
            .unwrap();
            assert_eq!(s.variant, e.name);
            assert_eq!(s.per_thread.len(), threads);
            assert_eq!(s.ops, s.per_thread.iter().sum::<u64>());
            assert!(s.value >= 0.0 && s.wall_s > 0.0);
        }
    }
}

#[test]
fn latency_counts_every_acquisition() {
    let s = run_spec(&Spec {
        lock: "std".into(),
        workload: None,
        cs_ns: 0,
        cs_iters: 0,
        threads: 1,
        duration_ns: if cfg!(miri) { 50_000 } else { 1_000_000 },
    })
    .unwrap();
    assert!(s.ops > 0);
    assert_eq!(s.per_thread, [s.ops]);
    assert!(s.value > 0.0);
}

/// A lock that loses one update (as a broken lock would): the check must catch it.
struct LossyLock(StdLock<Shared>);
impl BenchLock<Shared> for LossyLock {
    fn new(value: Shared) -> Self {
        Self(StdLock::new(value))
    }
    fn with<R>(&self, f: impl FnOnce(&mut Shared) -> R) -> R {
        self.0.with(f)
    }
    fn into_inner(self) -> Shared {
        let mut s = self.0.into_inner();
        s.counter -= 1;
        s
    }
}

#[test]
fn lost_update_is_detected() {
    let err = run_cell::<LossyLock>(&Spec {
        lock: "lossy".into(),
        workload: Some(Workload::Max),
        cs_ns: 0,
        cs_iters: 0,
        threads: 2,
        duration_ns: if cfg!(miri) { 50_000 } else { 1_000_000 },
    })
    .unwrap_err();
    assert!(
        err.to_string().contains("mutual exclusion violated"),
        "{err}"
    );
}

#[test]
fn every_lock_of_the_lock_crate_is_wired_in() {
    // Ours are exactly the crate's LockKind names (in its order), so a lock added there and
    // not here fails this test.
    let ours: Vec<&str> = locks().iter().filter(|e| e.ours).map(|e| e.name).collect();
    let kinds: Vec<String> = wl::LockKind::ALL.iter().map(|k| k.to_string()).collect();
    assert_eq!(ours, kinds);
    for name in ours {
        assert_eq!(name.parse::<wl::LockKind>().map(|k| k.name()), Ok(name));
    }
}

#[test]
fn calibration_is_positive() {
    assert!(busy_iters_per_ns() > 0.0);
    assert_eq!(busy_iters(0), 0);
    assert!(busy_iters(1000) >= 1);
}
