//! The default [`Mutex`] under stress: mutual exclusion with a non-atomic counter from 2 to 64
//! threads, the bypass bound seen from outside, and (ignored by default) a quick MutexBench-style
//! comparison with `parking_lot` and `std`.

#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};
use welltempered_lock::{Futex, MUTEX_BYPASS_LIMIT, Mutex, RawMutex, TtasYield};

fn scale(n: u64) -> u64 {
    if cfg!(miri) { (n / 500).max(5) } else { n }
}

#[test]
fn mutual_exclusion_2_to_64_threads() {
    let counts: &[u64] = if cfg!(miri) { &[2, 4] } else { &[2, 4, 16, 64] };
    for &threads in counts {
        let m = Mutex::new((0u64, 0u64));
        let iters = scale(40_000) / threads.min(8);
        std::thread::scope(|s| {
            for t in 0..threads {
                let m = &m;
                s.spawn(move || {
                    for i in 0..iters {
                        let mut g = m.lock();
                        // Two non-atomic updates that must stay in step under exclusion.
                        g.0 += 1;
                        g.1 += t * 1_000_003 + i;
                        if i % 256 == 0 {
                            std::thread::yield_now();
                        }
                    }
                });
            }
        });
        let (n, sum) = *m.lock();
        let expect: u64 = (0..threads)
            .map(|t| iters * t * 1_000_003 + iters * (iters - 1) / 2)
            .sum();
        assert_eq!(n, threads * iters, "{threads} threads");
        assert_eq!(sum, expect, "{threads} threads");
    }
}

#[test]
fn try_lock_fails_while_held_from_another_thread() {
    let m = Mutex::new(1);
    let g = m.lock();
    std::thread::scope(|s| {
        s.spawn(|| assert!(m.try_lock().is_none()));
    });
    drop(g);
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(*m.try_lock().expect("free"), 1));
    });
}

#[test]
fn guard_may_be_released_on_another_thread() {
    let m = Mutex::new(5);
    let g = m.lock();
    std::thread::scope(|s| {
        s.spawn(move || drop(g));
    });
    assert_eq!(*m.try_lock().expect("released by the other thread"), 5);
}

/// The bypass bound from outside: this thread holds the lock while another becomes the head
/// and waits; then this thread keeps unlocking and taking the lock back with `lock`. However
/// the two interleave, the count of overtakes never passes `MUTEX_BYPASS_LIMIT`, and once the
/// word has refused barging (the head awake, overtaken the bound or waiting longer than its
/// patience) the next `lock` is the head's turn: a refusing word stays so until the head has
/// the lock. The head gets it in the end. (While the head sleeps, barging goes on uncounted:
/// `try_lock` takes any free lock, as POSIX's trylock must; the bound is on `lock`'s barging.)
#[test]
fn head_is_overtaken_at_most_the_bypass_limit() {
    let m = Mutex::new(0u32);
    let raw = unsafe_raw(&m);
    let first = m.lock();
    let head_done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut g = m.lock();
            // Inside the critical section, so whoever locks next sees it.
            head_done.store(true, Ordering::Relaxed);
            *g += 1;
        });
        // Held in this closure, so that a failed assertion releases it while unwinding (the
        // scope waits for the head, which waits for the lock).
        let mut g = Some(first);
        // Wait until the other thread is the head (it gave up barging and queued).
        while !raw.has_head() {
            std::thread::yield_now();
        }
        loop {
            assert!(raw.bypass_count() <= MUTEX_BYPASS_LIMIT);
            // Read while this thread holds the lock: nothing but the head's acquisition makes
            // a refusing word accept barging again.
            let due = raw.head_is_due();
            drop(g.take());
            let again = m.lock();
            if head_done.load(Ordering::Relaxed) {
                // The head had its turn before this acquisition.
                assert_eq!(*again, 1);
                break;
            }
            assert!(!due, "barged past a head whose turn it was");
            g = Some(again);
        }
    });
    assert_eq!(*m.lock(), 1);
}

fn unsafe_raw<T>(m: &Mutex<T>) -> &RawMutex {
    // SAFETY: only the read-only snapshot methods of the raw lock are used through this.
    unsafe { m.raw() }
}

/// One MutexBench cell: `threads` threads loop lock / update / unlock / local work for `dur`.
/// Returns (acquisitions per second, per-thread max/min).
fn bench_cell<L: Sync>(
    lock: &L,
    acquire: impl Fn(&L) + Sync,
    threads: usize,
    ncs: u32,
    dur: Duration,
) -> (f64, f64) {
    let stop = AtomicBool::new(false);
    let counts: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for c in &counts {
            let (stop, acquire) = (&stop, &acquire);
            s.spawn(move || {
                let mut n = 0u64;
                let mut x = 1u64;
                while !stop.load(Ordering::Relaxed) {
                    for _ in 0..64 {
                        acquire(lock);
                        n += 1;
                        for _ in 0..ncs {
                            x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
                        }
                    }
                }
                std::hint::black_box(x);
                c.store(n, Ordering::Relaxed);
            });
        }
        std::thread::sleep(dur);
        stop.store(true, Ordering::Relaxed);
    });
    let secs = start.elapsed().as_secs_f64();
    let v: Vec<u64> = counts.iter().map(|c| c.load(Ordering::Relaxed)).collect();
    let total: u64 = v.iter().sum();
    let (max, min) = (*v.iter().max().unwrap(), *v.iter().min().unwrap());
    if std::env::var_os("BENCH_DIST").is_some() {
        let mut sorted = v.clone();
        sorted.sort_unstable();
        let k: Vec<u64> = sorted.iter().map(|c| c / 1000).collect();
        println!("  per-thread k-acquisitions, sorted: {k:?}");
    }
    (total as f64 / secs, max as f64 / (min.max(1)) as f64)
}

/// `cargo test --release -p welltempered-lock --test mutex -- --ignored --nocapture`
#[test]
#[ignore = "a quick measurement, not a test; run by hand"]
fn quick_mutexbench() {
    let dur = Duration::from_millis(
        std::env::var("BENCH_MS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(200),
    );
    let list = |var: &str, default: &str| -> Vec<usize> {
        std::env::var(var)
            .unwrap_or_else(|_| default.into())
            .split(',')
            .map(|v| v.trim().parse().expect("a number"))
            .collect()
    };
    let reps = list("BENCH_REPS", "3")[0];
    for ncs in list("BENCH_NCS", "0,100") {
        let ncs = ncs as u32;
        for threads in list("BENCH_THREADS", "1,2,4,16,64") {
            let mut rows: Vec<(&str, Vec<(f64, f64)>)> = vec![
                ("welltempered", vec![]),
                ("parking_lot", vec![]),
                ("std", vec![]),
                ("ttas-yield", vec![]),
                ("futex", vec![]),
            ];
            let only = std::env::var("BENCH_LOCKS").unwrap_or_default();
            let on = |name: &str| only.is_empty() || only.split(',').any(|o| o == name);
            for _ in 0..reps {
                let a = Mutex::new(0u64);
                rows[0]
                    .1
                    .push(bench_cell(&a, |m| *m.lock() += 1, threads, ncs, dur));
                let b = parking_lot::Mutex::new(0u64);
                rows[1]
                    .1
                    .push(bench_cell(&b, |m| *m.lock() += 1, threads, ncs, dur));
                if on("std") {
                    let c = std::sync::Mutex::new(0u64);
                    rows[2].1.push(bench_cell(
                        &c,
                        |m| *m.lock().unwrap() += 1,
                        threads,
                        ncs,
                        dur,
                    ));
                }
                if on("ttas-yield") {
                    let d = lock_api::Mutex::<TtasYield, u64>::new(0);
                    rows[3]
                        .1
                        .push(bench_cell(&d, |m| *m.lock() += 1, threads, ncs, dur));
                }
                if on("futex") {
                    let e = lock_api::Mutex::<Futex, u64>::new(0);
                    rows[4]
                        .1
                        .push(bench_cell(&e, |m| *m.lock() += 1, threads, ncs, dur));
                }
            }
            rows.retain(|r| !r.1.is_empty());
            let base: Vec<f64> = rows[1].1.iter().map(|r| r.0).collect();
            for (name, v) in &rows {
                let tput: Vec<f64> = v.iter().map(|r| r.0).collect();
                let mut ratio: Vec<f64> = tput.iter().zip(&base).map(|(a, b)| a / b).collect();
                ratio.sort_by(f64::total_cmp);
                let mut fair: Vec<f64> = v.iter().map(|r| r.1).collect();
                fair.sort_by(f64::total_cmp);
                println!(
                    "ncs={ncs:3} threads={threads:2} {name:12} {:8.2} Mops/s  ratio-vs-pl(median) {:5.2}  max/min(median) {:6.2}",
                    tput.iter().sum::<f64>() / tput.len() as f64 / 1e6,
                    ratio[ratio.len() / 2],
                    fair[fair.len() / 2],
                );
            }
        }
    }
}
