//! User code inside the runtime's protocols: region closures, loop bodies, reduction closures
//! and values, `critical` and `single` bodies, and panic payloads, each of which may panic or
//! re-enter the runtime.
//!
//! | where user code runs | panics | re-enters |
//! |---|---|---|
//! | a panic payload's `Drop` (master, worker) | `a_payload_whose_drop_panics_*` | - |
//! | reduction values' `Drop`, left by a panicking region | `reduction_values_whose_drop_panics_after_a_panicking_region` | - |
//! | `critical`'s body | `a_panic_in_critical_releases_the_lock` | `critical_inside_critical_panics_instead_of_deadlocking` |
//! | a reduction's combine and map | `a_panic_in_a_reduction_is_reraised` | `a_region_inside_a_reduction_runs_serially` |
//! | loop bodies, every schedule | `a_panic_in_a_loop_body_is_reraised_for_every_schedule` | `a_region_inside_a_loop_body_runs_serially` |
//! | `single`'s body | `a_panic_in_single_is_reraised` | - |
//!
//! After each, the team must still run a region correctly (`team_works`). Run under Miri too
//! (`cargo +nightly miri test -p welltempered-par --test user_code`): a worker still reading
//! the caller's stack after `parallel` returned is a use after free there.

mod common;

use common::{SCHEDULES, config, scaled};
use std::panic::{AssertUnwindSafe, catch_unwind, panic_any};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use welltempered_par::{Config, ReductionKind, Runtime};

/// A panic payload whose `Drop` panics while armed.
struct PanicOnDrop {
    armed: bool,
}

impl Drop for PanicOnDrop {
    fn drop(&mut self) {
        if self.armed {
            self.armed = false;
            panic!("the payload's drop panics");
        }
    }
}

/// Unwraps the payload `parallel` re-raised, disarming it if it is a [`PanicOnDrop`].
fn disarm(payload: Box<dyn std::any::Any + Send>) -> Box<dyn std::any::Any + Send> {
    let mut payload = payload;
    if let Some(p) = payload.downcast_mut::<PanicOnDrop>() {
        p.armed = false;
    }
    payload
}

/// Runs a region that checks the team: every thread takes part, barriers and a reduction work.
fn team_works(rt: &Runtime) {
    let n = rt.num_threads();
    let arrived = AtomicUsize::new(0);
    rt.parallel(|ctx| {
        arrived.fetch_add(1, Ordering::SeqCst);
        ctx.barrier();
        assert_eq!(arrived.load(Ordering::SeqCst), n);
        let total = ctx.reduce(1usize, |a, b| a + b);
        assert_eq!(total, n);
    });
    assert_eq!(rt.reduce(0..100, 0usize, |i| i, |a, b| a + b), 4950);
}

fn runtimes() -> Vec<Runtime> {
    ReductionKind::ALL
        .into_iter()
        .map(|reduction| {
            Runtime::new(Config {
                reduction,
                ..config(4)
            })
        })
        .collect()
}

#[test]
fn a_payload_whose_drop_panics_is_not_dropped_before_the_join() {
    // Two threads panic with payloads whose drop panics; the others are still reading the
    // caller's stack. `parallel` may return only after all of them are done, and must
    // re-raise one payload without dropping the other on the way.
    for rt in runtimes() {
        for panicker in [0, 1] {
            let data = vec![1u64; 1000];
            let readers_done = AtomicUsize::new(0);
            let r = catch_unwind(AssertUnwindSafe(|| {
                rt.parallel(|ctx| {
                    let t = ctx.thread_num();
                    if t == panicker || t == 3 {
                        panic_any(PanicOnDrop { armed: true });
                    }
                    // The readers outlast the panickers.
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    assert_eq!(data.iter().sum::<u64>(), 1000);
                    readers_done.fetch_add(1, Ordering::SeqCst);
                })
            }));
            let payload = disarm(r.unwrap_err());
            assert!(payload.is::<PanicOnDrop>());
            // Read before anything else: the readers must all have finished.
            assert_eq!(readers_done.load(Ordering::SeqCst), 2);
            drop(payload);
            team_works(&rt);
        }
    }
}

#[test]
fn a_payload_whose_drop_panics_on_every_worker() {
    // Every worker panics with such a payload (one is kept, the others are dropped after the
    // join): no worker thread dies, so the join completes and the team goes on.
    for rt in runtimes() {
        for _ in 0..scaled(20).min(5) {
            let r = catch_unwind(AssertUnwindSafe(|| {
                rt.parallel(|ctx| {
                    if ctx.thread_num() != 0 {
                        panic_any(PanicOnDrop { armed: true });
                    }
                })
            }));
            drop(disarm(r.unwrap_err()));
            team_works(&rt);
        }
    }
}

/// A reduction value whose drop panics while the flag says so.
#[derive(Clone)]
struct Value(&'static AtomicBool);

impl Drop for Value {
    fn drop(&mut self) {
        if self.0.load(Ordering::SeqCst) {
            panic!("a reduction value's drop panics");
        }
    }
}

#[test]
fn reduction_values_whose_drop_panics_after_a_panicking_region() {
    // Threads publish their values to `Context::reduce`; thread 2 panics instead, so the
    // values stay in the runtime's slots until the recovery after the join, whose drops
    // panic. The recovery must finish (the next region runs clean) and the region's own
    // panic is the one re-raised.
    static ARMED: AtomicBool = AtomicBool::new(false);
    for rt in runtimes() {
        ARMED.store(true, Ordering::SeqCst);
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel(|ctx| {
                if ctx.thread_num() == 2 {
                    panic!("thread 2 never reduces");
                }
                let v = ctx.reduce(Value(&ARMED), |a, _b| a);
                drop(v);
            })
        }));
        let payload = r.unwrap_err();
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"thread 2 never reduces")
        );
        ARMED.store(false, Ordering::SeqCst);
        team_works(&rt);
    }
}

#[test]
fn a_panic_in_critical_releases_the_lock() {
    for rt in runtimes() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel(|ctx| {
                ctx.critical(|| {
                    if ctx.thread_num() == 1 {
                        panic!("in critical");
                    }
                });
            })
        }));
        assert!(r.is_err());
        let count = AtomicUsize::new(0);
        rt.parallel(|ctx| {
            ctx.critical(|| count.fetch_add(1, Ordering::SeqCst));
        });
        assert_eq!(count.load(Ordering::SeqCst), 4);
        team_works(&rt);
    }
}

#[test]
fn critical_inside_critical_panics_instead_of_deadlocking() {
    for rt in runtimes() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel(|ctx| {
                ctx.critical(|| {
                    // A region inside runs serially on this thread, with the same lock.
                    rt.parallel(|inner| inner.critical(|| ()));
                });
            })
        }));
        let payload = r.unwrap_err();
        let msg = payload
            .downcast_ref::<&str>()
            .copied()
            .or_else(|| payload.downcast_ref::<String>().map(|s| s.as_str()))
            .unwrap_or("");
        assert!(msg.contains("not reentrant"), "{msg}");
        team_works(&rt);
    }
}

#[test]
fn a_panic_in_a_reduction_is_reraised() {
    for rt in runtimes() {
        // In the combine of a team reduction.
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel(|ctx| {
                ctx.reduce(ctx.thread_num(), |a, b| {
                    if a + b > 2 {
                        panic!("combine");
                    }
                    a + b
                });
            })
        }));
        assert!(r.is_err());
        team_works(&rt);
        // In the map and in the combine of a loop reduction.
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.reduce(
                0..1000,
                0usize,
                |i| if i == 777 { panic!("map") } else { i },
                |a, b| a + b,
            )
        }));
        assert!(r.is_err());
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.reduce(
                0..1000,
                0usize,
                |i| i,
                |a, b| if b == 999 { panic!("combine") } else { a + b },
            )
        }));
        assert!(r.is_err());
        team_works(&rt);
    }
}

#[test]
fn a_region_inside_a_reduction_runs_serially() {
    for rt in runtimes() {
        let sum = rt.reduce(
            0..100,
            0usize,
            |i| {
                let inner = AtomicUsize::new(0);
                rt.parallel(|ctx| {
                    assert_eq!(ctx.num_threads(), 1);
                    inner.fetch_add(i, Ordering::SeqCst);
                });
                inner.load(Ordering::SeqCst)
            },
            |a, b| a + b,
        );
        assert_eq!(sum, 4950);
        team_works(&rt);
    }
}

#[test]
fn a_panic_in_a_loop_body_is_reraised_for_every_schedule() {
    let rt = Runtime::new(config(4));
    for schedule in SCHEDULES {
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel_for_schedule(0..scaled(1000), schedule, |i| {
                if i == 3 {
                    panic!("body");
                }
            })
        }));
        assert!(r.is_err(), "{schedule:?}");
        // Loops met after the panic on the other threads, and the next region's loops, work.
        let hits: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
        rt.parallel_for_schedule(0..64, schedule, |i| {
            hits[i].fetch_add(1, Ordering::SeqCst);
        });
        assert!(
            hits.iter().all(|h| h.load(Ordering::SeqCst) == 1),
            "{schedule:?}"
        );
        team_works(&rt);
    }
}

#[test]
fn a_region_inside_a_loop_body_runs_serially() {
    let rt = Runtime::new(config(4));
    for schedule in SCHEDULES {
        let hits = AtomicUsize::new(0);
        rt.parallel_for_schedule(0..40, schedule, |_| {
            rt.parallel_for(0..10, |_| {
                hits.fetch_add(1, Ordering::SeqCst);
            });
        });
        assert_eq!(hits.load(Ordering::SeqCst), 400, "{schedule:?}");
    }
    team_works(&rt);
}

#[test]
fn a_panic_in_single_is_reraised() {
    for rt in runtimes() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            rt.parallel(|ctx| {
                ctx.single(|| panic!("single"));
                ctx.single(|| ());
            })
        }));
        assert!(r.is_err());
        let ran = AtomicUsize::new(0);
        rt.parallel(|ctx| {
            ctx.single(|| ran.fetch_add(1, Ordering::SeqCst));
        });
        assert_eq!(ran.load(Ordering::SeqCst), 1);
        team_works(&rt);
    }
}
