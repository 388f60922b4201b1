//! Regions, panics, nesting, concurrent callers, `critical`, `single`, `master`, barriers.

mod common;

use common::{config, runtime, scaled};
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use welltempered_lock::{DynRawMutex, LockKind};
use welltempered_par::{BarrierKind, Config, Runtime, WaitPolicy};

#[test]
fn master_is_thread_zero_on_the_calling_thread() {
    let rt = Runtime::new(config(4));
    let caller = std::thread::current().id();
    let seen = AtomicUsize::new(0);
    rt.parallel(|ctx| {
        assert_eq!(ctx.num_threads(), 4);
        let on_caller = std::thread::current().id() == caller;
        assert_eq!(on_caller, ctx.thread_num() == 0);
        seen.fetch_add(1 << (8 * ctx.thread_num()), Ordering::Relaxed);
    });
    assert_eq!(seen.into_inner(), 0x01010101);
}

#[test]
fn zero_threads_is_one() {
    let rt = Runtime::new(config(0));
    assert_eq!(rt.num_threads(), 1);
    assert_eq!(rt.config().threads, 1);
    let n = AtomicUsize::new(0);
    rt.parallel(|ctx| {
        assert_eq!((ctx.thread_num(), ctx.num_threads()), (0, 1));
        ctx.barrier();
        n.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(n.into_inner(), 1);
}

#[test]
fn regions_borrow_the_callers_stack_and_workers_persist() {
    let rt = Runtime::new(config(3));
    let mut ids = std::collections::HashSet::new();
    for round in 0..scaled(500) {
        let local = [round; 3];
        let sum = AtomicUsize::new(0);
        let id = std::sync::Mutex::new(Vec::new());
        rt.parallel(|ctx| {
            sum.fetch_add(local[ctx.thread_num()], Ordering::Relaxed);
            id.lock().unwrap().push(std::thread::current().id());
        });
        assert_eq!(sum.into_inner(), 3 * round);
        ids.extend(id.into_inner().unwrap());
    }
    // Two workers and the caller: the team is persistent.
    assert_eq!(ids.len(), 3);
}

#[test]
fn barriers_separate_phases_for_every_kind_and_policy() {
    for kind in BarrierKind::ALL {
        for wait in common::policies() {
            let rt = Runtime::new(Config {
                threads: 3,
                barrier: kind,
                wait,
                ..Config::default()
            });
            let phases = scaled(2000);
            let counts: Vec<AtomicUsize> = (0..phases).map(|_| AtomicUsize::new(0)).collect();
            rt.parallel(|ctx| {
                for c in &counts {
                    c.fetch_add(1, Ordering::Relaxed);
                    ctx.barrier();
                    assert_eq!(c.load(Ordering::Relaxed), 3);
                }
            });
        }
    }
}

/// omp0's bug: its sense barrier kept the sense in a thread-local, which a second runtime on
/// the same thread inherited out of phase.
#[test]
fn several_runtimes_on_one_thread_keep_their_barriers_apart() {
    for kind in BarrierKind::ALL {
        let a = runtime(2, kind);
        for round in 0..scaled(20) {
            let b = runtime(2, kind);
            // An odd number of phases on each leaves the senses in different states.
            for rt in [&a, &b, &a] {
                let hits = AtomicUsize::new(0);
                rt.parallel(|ctx| {
                    for phase in 1..=(3 + round % 2) {
                        hits.fetch_add(1, Ordering::Relaxed);
                        ctx.barrier();
                        assert_eq!(hits.load(Ordering::Relaxed), 2 * phase);
                        ctx.barrier();
                    }
                });
            }
        }
    }
}

#[test]
fn a_worker_panic_is_reraised_and_the_team_stays_usable() {
    for kind in BarrierKind::ALL {
        let rt = runtime(3, kind);
        for _ in 0..scaled(200).min(50) {
            let r = catch_unwind(AssertUnwindSafe(|| {
                rt.parallel(|ctx| {
                    if ctx.thread_num() == 2 {
                        panic!("worker boom");
                    }
                    // The others would wait here forever for thread 2: the panic releases them.
                    ctx.barrier();
                    ctx.barrier();
                })
            }));
            let payload = r.unwrap_err();
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"worker boom"));
            // Reuse: barriers, loops and singles work again.
            let hits = AtomicUsize::new(0);
            rt.parallel(|ctx| {
                hits.fetch_add(1, Ordering::Relaxed);
                ctx.barrier();
                assert_eq!(hits.load(Ordering::Relaxed) % 10, 3);
                ctx.barrier();
                ctx.single(|| hits.fetch_add(10, Ordering::Relaxed));
                ctx.for_range_schedule(
                    0..10,
                    welltempered_par::Schedule::Dynamic { chunk: 1 },
                    |_| {
                        hits.fetch_add(100, Ordering::Relaxed);
                    },
                );
            });
            assert_eq!(hits.into_inner(), 3 + 10 + 1000);
        }
    }
}

#[test]
fn a_master_panic_is_reraised_after_the_workers_finish() {
    let rt = Runtime::new(config(3));
    let finished = AtomicUsize::new(0);
    let r = catch_unwind(AssertUnwindSafe(|| {
        rt.parallel(|ctx| {
            if ctx.thread_num() == 0 {
                panic!("master boom");
            }
            // Workers reaching a barrier after the panic unwind out of it.
            finished.fetch_add(1, Ordering::Relaxed);
            ctx.barrier();
            unreachable!("a poisoned barrier never returns");
        })
    }));
    assert_eq!(r.unwrap_err().downcast_ref::<&str>(), Some(&"master boom"));
    // Both workers had left the closure before `parallel` unwound.
    assert_eq!(finished.load(Ordering::Relaxed), 2);
    let n = AtomicUsize::new(0);
    rt.parallel(|_| {
        n.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(n.into_inner(), 3);
}

#[test]
fn a_panic_in_a_dynamic_loop_releases_threads_waiting_for_a_ring_slot() {
    let rt = Runtime::new(config(2));
    let r = catch_unwind(AssertUnwindSafe(|| {
        rt.parallel(|ctx| {
            if ctx.thread_num() == 1 {
                panic!("never meets the loops");
            }
            // Thread 0 runs ahead through more nowait loops than the ring holds and waits
            // for thread 1 to leave the first one: the poison releases it.
            for _ in 0..20 {
                ctx.for_range_schedule_nowait(
                    0..4,
                    welltempered_par::Schedule::Dynamic { chunk: 1 },
                    |_| {},
                );
            }
        })
    }));
    assert!(r.is_err());
    let sum = rt.reduce(0..100, 0u64, |i| i as u64, |a, b| a + b);
    assert_eq!(sum, 4950);
}

#[test]
fn a_region_inside_a_region_runs_serially() {
    let outer = Runtime::new(config(3));
    let other = Runtime::new(config(2));
    let inner_runs = AtomicUsize::new(0);
    outer.parallel(|octx| {
        for rt in [&outer, &other] {
            rt.parallel(|ictx| {
                assert_eq!((ictx.thread_num(), ictx.num_threads()), (0, 1));
                ictx.barrier();
                assert_eq!(ictx.single(|| 5), Some(5));
                assert_eq!(ictx.reduce(7u32, |a, b| a + b), 7);
                inner_runs.fetch_add(1, Ordering::Relaxed);
            });
            rt.parallel_for(0..10, |_| {
                inner_runs.fetch_add(100, Ordering::Relaxed);
            });
            assert_eq!(rt.reduce(0..10, 0u32, |i| i as u32, |a, b| a + b), 45);
        }
        octx.barrier();
    });
    assert_eq!(inner_runs.into_inner(), 3 * 2 * 1001);
}

#[test]
fn concurrent_callers_take_turns() {
    let rt = Runtime::new(config(2));
    let inside = AtomicUsize::new(0);
    let total = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(|| {
                for _ in 0..scaled(300) {
                    rt.parallel(|ctx| {
                        // Only one region's team at a time: at most two threads inside.
                        assert!(inside.fetch_add(1, Ordering::SeqCst) < 2);
                        ctx.barrier();
                        inside.fetch_sub(1, Ordering::SeqCst);
                        ctx.barrier();
                        total.fetch_add(1, Ordering::Relaxed);
                    });
                }
            });
        }
    });
    assert_eq!(total.into_inner(), 3 * scaled(300) * 2);
}

/// A counter that is not atomic: only mutual exclusion keeps its increments.
struct Unguarded(UnsafeCell<u64>);
// SAFETY: only accessed inside `critical`, which excludes (that is what the test checks).
unsafe impl Sync for Unguarded {}

impl Unguarded {
    /// # Safety
    ///
    /// No other thread may access the counter during the call.
    unsafe fn bump(&self) {
        // SAFETY: the caller's contract.
        unsafe { *self.0.get() += 1 };
    }
}

/// The default `critical` lock is the two-phase lock, spinning for exactly the wait policy's
/// window (throttled when threads outnumber CPUs); another kind is made as named.
#[test]
fn the_default_critical_lock_spins_for_the_wait_policy_window() {
    let us = Duration::from_micros;
    for (wait, window) in [
        (WaitPolicy::Active, None),
        (WaitPolicy::Passive, Some(Duration::ZERO)),
        (WaitPolicy::SpinThenSleep { window: us(300) }, Some(us(300))),
        (
            WaitPolicy::default(),
            Some(welltempered_par::DEFAULT_SPIN_WINDOW),
        ),
    ] {
        let c = Config {
            wait,
            threads: 1,
            ..Config::default()
        };
        assert_eq!(c.lock, LockKind::TwoPhase);
        match c.critical_lock() {
            DynRawMutex::TwoPhase(l) => assert_eq!(l.window(), window, "{wait:?}"),
            other => panic!("{:?} for {wait:?}", other.kind()),
        }
    }
    // More threads than CPUs: the window is throttled.
    let c = Config {
        threads: std::thread::available_parallelism().map_or(1, |n| n.get()) + 1,
        wait: WaitPolicy::Active,
        ..Config::default()
    };
    match c.critical_lock() {
        DynRawMutex::TwoPhase(l) => {
            assert_eq!(
                l.window(),
                Some(welltempered_par::OVERSUBSCRIBED_LOCK_WINDOW)
            )
        }
        other => panic!("{:?}", other.kind()),
    }
    let c = Config {
        lock: LockKind::McsPark,
        wait: WaitPolicy::Active,
        ..Config::default()
    };
    assert_eq!(c.critical_lock().kind(), LockKind::McsPark);
}

#[test]
fn critical_excludes_for_every_lock_kind() {
    for kind in [
        LockKind::Mutex,
        LockKind::Hemlock,
        LockKind::McsPark,
        LockKind::Ttas,
        LockKind::Futex,
        LockKind::TwoPhase,
    ] {
        let rt = Runtime::new(Config {
            threads: 3,
            lock: kind,
            ..Config::default()
        });
        let counter = Unguarded(UnsafeCell::new(0));
        let per = scaled(2000) as u64;
        rt.parallel(|ctx| {
            for _ in 0..per {
                ctx.critical(|| {
                    // SAFETY: inside the critical section, no other thread touches it.
                    unsafe { counter.bump() };
                });
            }
        });
        assert_eq!(counter.0.into_inner(), 3 * per, "{kind}");
    }
}

#[test]
fn single_runs_once_per_encounter_and_master_on_thread_zero() {
    let rt = Runtime::new(config(3));
    let encounters = scaled(300);
    let runs: Vec<AtomicUsize> = (0..encounters).map(|_| AtomicUsize::new(0)).collect();
    let nowait_runs: Vec<AtomicUsize> = (0..encounters).map(|_| AtomicUsize::new(0)).collect();
    let masters = AtomicUsize::new(0);
    for _ in 0..2 {
        rt.parallel(|ctx| {
            for (r, nw) in runs.iter().zip(&nowait_runs) {
                let got = ctx.single(|| r.fetch_add(1, Ordering::Relaxed));
                // The implicit barrier: every thread sees the run.
                assert!(r.load(Ordering::Relaxed) >= 1);
                let _ = got;
                ctx.single_nowait(|| nw.fetch_add(1, Ordering::Relaxed));
                if let Some(t) = ctx.master(|| ctx.thread_num()) {
                    assert_eq!(t, 0);
                    masters.fetch_add(1, Ordering::Relaxed);
                }
            }
        });
    }
    assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 2));
    assert!(nowait_runs.iter().all(|r| r.load(Ordering::Relaxed) == 2));
    assert_eq!(masters.into_inner(), 2 * encounters);
}

#[test]
fn more_threads_than_cores_completes() {
    for threads in [8, 16] {
        let threads = if cfg!(miri) { threads / 4 } else { threads };
        for wait in [WaitPolicy::Active, WaitPolicy::default()] {
            let rt = Runtime::new(Config {
                threads,
                wait,
                barrier: BarrierKind::Dissemination,
                ..Config::default()
            });
            let hits = AtomicUsize::new(0);
            for _ in 0..scaled(50) {
                rt.parallel(|ctx| {
                    hits.fetch_add(1, Ordering::Relaxed);
                    ctx.barrier();
                    ctx.for_range_schedule(
                        0..100,
                        welltempered_par::Schedule::Guided { min_chunk: 2 },
                        |_| {
                            hits.fetch_add(1, Ordering::Relaxed);
                        },
                    );
                    let s = ctx.reduce(1usize, |a, b| a + b);
                    assert_eq!(s, threads);
                });
            }
            assert_eq!(hits.into_inner(), scaled(50) * (threads + 100));
        }
    }
}

#[test]
fn global_runtime_works() {
    if cfg!(miri) {
        // The global team's threads outlive the test.
        return;
    }
    let n = AtomicUsize::new(0);
    welltempered_par::parallel(|ctx| {
        n.fetch_add(1, Ordering::Relaxed);
        assert!(ctx.thread_num() < ctx.num_threads());
    });
    assert_eq!(n.into_inner(), welltempered_par::global().num_threads());
    let seen: Vec<AtomicUsize> = (0..50).map(|_| AtomicUsize::new(0)).collect();
    welltempered_par::parallel_for(0..50, |i| {
        seen[i].fetch_add(1, Ordering::Relaxed);
    });
    assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
    assert_eq!(
        welltempered_par::reduce(0..50, 0u64, |i| i as u64, |a, b| a + b),
        1225
    );
}

#[test]
fn runtime_is_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<Runtime>();
    send_sync::<Config>();
    send_sync::<welltempered_par::EnvError>();
}

#[test]
fn from_env_reads_the_process_environment() {
    // Only reads: the variables are whatever the test runner has (normally unset).
    match Runtime::from_env() {
        Ok(rt) => assert!(rt.num_threads() >= 1),
        Err(e) => assert!(
            e.variable().starts_with("WELLTEMPERED_") || e.variable().starts_with("OMP_"),
            "{e}"
        ),
    }
}

#[test]
#[cfg(all(target_os = "linux", not(miri)))]
fn workers_get_the_configured_stack_size() {
    /// The size of the calling thread's stack.
    fn own_stack_size() -> usize {
        // SAFETY: `attr` is initialised by pthread_getattr_np before it is read, and destroyed
        // once; the out-pointer is a live usize.
        unsafe {
            let mut attr: libc::pthread_attr_t = core::mem::zeroed();
            assert_eq!(libc::pthread_getattr_np(libc::pthread_self(), &mut attr), 0);
            let mut size = 0usize;
            assert_eq!(libc::pthread_attr_getstacksize(&attr, &mut size), 0);
            libc::pthread_attr_destroy(&mut attr);
            size
        }
    }
    const ASKED: usize = 32 << 20;
    let sizes = std::sync::Mutex::new(Vec::new());
    let rt = Runtime::new(Config {
        threads: 3,
        stack_size: Some(ASKED),
        ..Config::default()
    });
    rt.parallel(|ctx| {
        if ctx.thread_num() != 0 {
            sizes.lock().unwrap().push(own_stack_size());
        }
    });
    let sizes = sizes.into_inner().unwrap();
    assert_eq!(sizes.len(), 2);
    // The standard library's default is 2 MiB: without the setting this fails.
    assert!(sizes.iter().all(|&s| s >= ASKED), "{sizes:?}");
}
