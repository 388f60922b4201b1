//! Every schedule visits every index exactly once, in every shape of range.

mod common;

use common::{SCHEDULES, config, scaled};
use std::ops::Range;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering};
use welltempered_par::{Config, Runtime, Schedule};

fn ranges() -> Vec<Range<usize>> {
    let (seven, three) = (std::hint::black_box(7), std::hint::black_box(3));
    vec![
        0..0,
        5..5,
        seven..three, // empty: end before start
        0..1,
        0..2,   // fewer iterations than threads
        10..13, // a non-zero start
        0..scaled(1000),
        usize::MAX - 20..usize::MAX, // at the top of the index space
        3..scaled(10_007),
    ]
}

fn check(r: &Range<usize>, counts: &[AtomicU8], what: &str) {
    for (k, c) in counts.iter().enumerate() {
        let expect = u8::from(k < r.end.saturating_sub(r.start));
        assert_eq!(
            c.load(Ordering::Relaxed),
            expect,
            "{what}: index {} of {r:?}",
            r.start + k
        );
    }
}

#[test]
fn parallel_for_every_schedule_every_range() {
    for threads in [1, 2, 3, 4] {
        let rt = Runtime::new(config(threads));
        for s in SCHEDULES {
            for r in ranges() {
                let counts: Vec<AtomicU8> = (0..r.end.saturating_sub(r.start))
                    .map(|_| AtomicU8::new(0))
                    .collect();
                rt.parallel_for_schedule(r.clone(), s, |i| {
                    counts[i - r.start].fetch_add(1, Ordering::Relaxed);
                });
                check(&r, &counts, &format!("{threads} threads, {s:?}"));
            }
        }
    }
}

#[test]
fn the_configured_schedule_applies() {
    for s in SCHEDULES {
        let rt = Runtime::new(Config {
            threads: 3,
            schedule: s,
            ..Config::default()
        });
        let r = 2..scaled(500);
        let counts: Vec<AtomicU8> = (0..r.len()).map(|_| AtomicU8::new(0)).collect();
        rt.parallel_for(r.clone(), |i| {
            counts[i - r.start].fetch_add(1, Ordering::Relaxed);
        });
        check(&r, &counts, &format!("{s:?}"));
    }
}

/// Many loops in one region, nowait, so that fast threads run ahead through the ring of
/// dispensers (more loops than the ring has slots), then with barriers.
#[test]
fn many_loops_in_one_region() {
    let loops = scaled(300);
    for threads in [2, 3, 5] {
        let rt = Runtime::new(config(threads));
        for s in [
            Schedule::Dynamic { chunk: 1 },
            Schedule::Guided { min_chunk: 2 },
            Schedule::Dynamic { chunk: 3 },
        ] {
            let counts: Vec<Vec<AtomicU8>> = (0..loops)
                .map(|l| (0..l % 37).map(|_| AtomicU8::new(0)).collect())
                .collect();
            let second: Vec<AtomicUsize> = (0..loops).map(|_| AtomicUsize::new(0)).collect();
            rt.parallel(|ctx| {
                for c in &counts {
                    ctx.for_range_schedule_nowait(0..c.len(), s, |i| {
                        c[i].fetch_add(1, Ordering::Relaxed);
                    });
                }
                for (l, c) in second.iter().enumerate() {
                    ctx.for_range_schedule(0..l % 5, s, |_| {
                        c.fetch_add(1, Ordering::Relaxed);
                    });
                    // The implicit barrier: the loop is complete here.
                    assert_eq!(c.load(Ordering::Relaxed), l % 5);
                }
            });
            for c in &counts {
                assert!(
                    c.iter().all(|x| x.load(Ordering::Relaxed) == 1),
                    "{threads} {s:?}"
                );
            }
        }
    }
}

#[test]
fn for_range_inside_a_region_every_schedule() {
    let rt = Runtime::new(config(3));
    for s in SCHEDULES {
        let r = 1..scaled(300);
        let counts: Vec<AtomicU8> = (0..r.len()).map(|_| AtomicU8::new(0)).collect();
        rt.parallel(|ctx| {
            ctx.for_range_schedule(r.clone(), s, |i| {
                counts[i - r.start].fetch_add(1, Ordering::Relaxed);
            });
            // After the implicit barrier the whole loop is done.
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        });
    }
}

#[test]
fn chunks_have_the_schedules_sizes() {
    let rt = Runtime::new(config(2));
    let sizes = std::sync::Mutex::new(Vec::new());
    rt.parallel(|ctx| {
        ctx.for_chunks(0..100, Schedule::Dynamic { chunk: 7 }, |r| {
            sizes.lock().unwrap().push(r.len())
        });
    });
    let mut sizes = sizes.into_inner().unwrap();
    sizes.sort_unstable();
    assert_eq!(sizes[0], 100 % 7);
    assert!(sizes[1..].iter().all(|&s| s == 7));
}
