//! Every reduction kind equals the serial result.

mod common;

use common::{REDUCTIONS, SCHEDULES, scaled};
use welltempered_par::{Config, ReductionKind, Runtime};

fn rt(threads: usize, reduction: ReductionKind) -> Runtime {
    Runtime::new(Config {
        threads,
        reduction,
        ..Config::default()
    })
}

/// A cheap hash so that the values are not all alike.
fn h(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 20
}

#[test]
fn runtime_reduce_equals_serial_for_every_kind_schedule_and_size() {
    for kind in REDUCTIONS {
        for threads in [1, 2, 3, 4, 5] {
            let rt = rt(threads, kind);
            for len in [0, 1, 3, scaled(1000)] {
                let serial: u64 = (0..len).map(h).fold(0, u64::wrapping_add);
                assert_eq!(
                    rt.reduce(0..len, 0, h, u64::wrapping_add),
                    serial,
                    "{kind:?} {threads}"
                );
                for s in SCHEDULES {
                    let got = rt.reduce_chunks(
                        0..len,
                        s,
                        0u64,
                        |r, acc| r.map(h).fold(acc, u64::wrapping_add),
                        u64::wrapping_add,
                    );
                    assert_eq!(got, serial, "{kind:?} {threads} {s:?}");
                }
            }
        }
    }
}

/// A non-commutative (but associative) combine: string concatenation in index order. With
/// a static schedule the result is the serial one.
#[test]
fn order_is_kept_with_a_static_schedule() {
    for kind in REDUCTIONS {
        for threads in [2, 3, 4] {
            let rt = rt(threads, kind);
            let n = scaled(200);
            let got = rt.reduce(0..n, String::new(), |i| format!("{i},"), |a, b| a + &b);
            let serial: String = (0..n).map(|i| format!("{i},")).collect();
            assert_eq!(got, serial);
        }
    }
}

#[test]
fn context_reduce_equals_serial_and_every_thread_gets_it() {
    for kind in REDUCTIONS {
        for threads in [1, 2, 3, 4, 7] {
            let rt = rt(threads, kind);
            rt.parallel(|ctx| {
                for round in 0..scaled(200) as u64 {
                    let v = ctx.reduce(round * 100 + ctx.thread_num() as u64, |a, b| a + b);
                    let n = ctx.num_threads() as u64;
                    assert_eq!(v, round * 100 * n + n * (n - 1) / 2);
                    // Order: thread-ordered concatenation.
                    let s = ctx.reduce(vec![ctx.thread_num()], |mut a, b| {
                        a.extend(b);
                        a
                    });
                    assert_eq!(s, (0..ctx.num_threads()).collect::<Vec<_>>());
                }
            });
        }
    }
}

/// Floating point: equal to the serial evaluation in the same grouping (each thread's block
/// summed left to right, the blocks combined in the kind's grouping).
#[test]
fn floats_equal_the_same_grouping() {
    let n = scaled(1000);
    let x = |i: usize| 1.0 / (i as f64 + 1.0);
    for threads in [2, 3, 4] {
        let blocks: Vec<f64> = (0..threads)
            .map(|t| {
                welltempered_par::static_block(n, threads, t)
                    .map(x)
                    .fold(0.0, |a, b| a + b)
            })
            .collect();
        let linear = blocks.iter().fold(0.0, |a, b| a + b);
        // Pairwise: stride 1, 2, 4... in place.
        let mut tree = blocks.clone();
        let mut s = 1;
        while s < threads {
            for i in (0..threads).step_by(2 * s) {
                if i + s < threads {
                    tree[i] += tree[i + s];
                }
            }
            s *= 2;
        }
        assert_eq!(
            rt(threads, ReductionKind::Linear).reduce(0..n, 0.0, x, |a, b| a + b),
            linear
        );
        assert_eq!(
            rt(threads, ReductionKind::Tree).reduce(0..n, 0.0, x, |a, b| a + b),
            tree[0]
        );
    }
}

#[test]
#[should_panic(expected = "different types")]
fn mismatched_types_panic() {
    let rt = rt(2, ReductionKind::Linear);
    rt.parallel(|ctx| {
        if ctx.thread_num() == 0 {
            ctx.reduce(1u32, |a, b| a + b);
        } else {
            ctx.reduce(1u64, |a, b| a + b);
        }
    });
}
