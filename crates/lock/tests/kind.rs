//! `LockKind` names and `DynRawMutex`: parsing, the error message, and mutual exclusion of
//! every kind chosen at run time.

#![cfg(not(loom))]

use std::error::Error;
use welltempered_lock::{DynRawMutex, LockKind, UnknownLockKind, dyn_mutex};

const NAMES: [&str; 18] = [
    "hemlock",
    "hemlock-park",
    "hemlock-overlap",
    "hemlock-overlap-park",
    "hemlock-ah",
    "hemlock-ah-park",
    "mcs",
    "mcs-park",
    "clh",
    "clh-park",
    "ticket",
    "ticket-park",
    "tas",
    "ttas",
    "ttas-yield",
    "futex",
    "two-phase",
    "mutex",
];

#[test]
fn every_name_parses_and_prints_back() {
    assert_eq!(LockKind::ALL.len(), NAMES.len());
    for name in NAMES {
        let k: LockKind = name.parse().unwrap();
        assert_eq!(k.to_string(), name);
        assert_eq!(k.name(), name);
    }
    let mut all = LockKind::ALL.to_vec();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), NAMES.len(), "ALL has no duplicates");
}

#[test]
fn unknown_name_is_an_error_listing_the_valid_ones() {
    for bad in ["", "Hemlock", "mcs_park", "spin", "mutex2"] {
        let e: UnknownLockKind = bad.parse::<LockKind>().unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains(&format!("`{bad}`")), "{msg}");
        for name in NAMES {
            assert!(msg.contains(name), "{msg} lacks {name}");
        }
        let boxed: Box<dyn Error> = Box::new(e);
        assert!(boxed.source().is_none());
    }
}

#[test]
fn classification() {
    use LockKind::*;
    for k in LockKind::ALL {
        let name = k.name();
        assert_eq!(
            k.parks(),
            name.ends_with("-park") || k == Futex || k == TwoPhase || k == Mutex,
            "{k}"
        );
        assert_eq!(
            k.is_fifo(),
            ["hemlock", "mcs", "clh", "ticket"]
                .iter()
                .any(|p| name.starts_with(p)),
            "{k}"
        );
    }
}

/// Mutual exclusion of every kind through `DynRawMutex`, with a non-atomic counter pair.
/// Spin-only FIFO locks collapse when threads outnumber cores (omp0's finding: a descheduled
/// waiter stalls the queue), so they run at 2 and 4 threads only; the rest also at 16 and 64.
#[test]
fn every_kind_excludes() {
    for k in LockKind::ALL {
        let spin_fifo = k.is_fifo() && !k.parks();
        let counts: &[u64] = match (cfg!(miri), spin_fifo) {
            (true, _) => &[2],
            (false, true) => &[2, 4],
            (false, false) => &[2, 4, 16, 64],
        };
        for &threads in counts {
            let total: u64 = if cfg!(miri) {
                20
            } else if spin_fifo {
                1_200
            } else {
                16_000
            };
            let iters = total / threads;
            let m = dyn_mutex(k, (0u64, 0u64));
            std::thread::scope(|s| {
                for t in 0..threads {
                    let m = &m;
                    s.spawn(move || {
                        for i in 0..iters {
                            let mut g = m.lock();
                            g.0 += 1;
                            g.1 += t + i;
                        }
                    });
                }
            });
            let (n, sum) = *m.lock();
            assert_eq!(n, threads * iters, "{k} at {threads} threads");
            let expect: u64 = (0..threads)
                .map(|t| iters * t + iters * (iters - 1) / 2)
                .sum();
            assert_eq!(sum, expect, "{k} at {threads} threads");
            assert!(!m.is_locked(), "{k}");
        }
    }
}

#[test]
fn every_kind_try_locks() {
    for k in LockKind::ALL {
        let m = dyn_mutex(k, 7);
        assert_eq!(unsafe_kind(&m), k);
        {
            let g = m.lock();
            assert!(m.is_locked(), "{k}");
            std::thread::scope(|s| {
                s.spawn(|| assert!(m.try_lock().is_none(), "{k}: try_lock of a held lock"));
            });
            drop(g);
        }
        std::thread::scope(|s| {
            s.spawn(|| assert_eq!(*m.try_lock().expect("free"), 7, "{k}"));
        });
        assert!(!m.is_locked(), "{k}");
    }
}

fn unsafe_kind<T>(m: &lock_api::Mutex<DynRawMutex, T>) -> LockKind {
    // SAFETY: only reads which algorithm the raw lock holds.
    unsafe { m.raw() }.kind()
}
