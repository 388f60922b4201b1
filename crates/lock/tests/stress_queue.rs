//! Mutual exclusion under stress for every queue lock, spin and park forms, at 2, 4, 16 and 64
//! threads (64 threads on a 2-core machine is the oversubscription point: spinning FIFO locks
//! collapse there, so their spin forms run only a few iterations at 64; the park forms must
//! not collapse and run many). Each critical section updates non-atomic data in an
//! `UnsafeCell`; the totals and a checksum of every (thread, iteration) pair must come out
//! exact, and an occupancy flag must never see two threads inside at once.
#![cfg(not(loom))]

use lock_api::{GuardNoSend, RawMutex};
use std::cell::UnsafeCell;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use welltempered_lock::*;

struct Shared {
    count: UnsafeCell<u64>,
    sum: UnsafeCell<u64>,
    inside: AtomicBool,
}

// SAFETY: the cells are only accessed under the lock under test.
unsafe impl Sync for Shared {}

impl Shared {
    fn cells(&self) -> (*mut u64, *mut u64) {
        (self.count.get(), self.sum.get())
    }
}

fn stress<L: RawMutex<Guard = GuardNoSend> + Sync>(threads: u64, iters: u64) {
    let l = L::INIT;
    let sh = Shared {
        count: UnsafeCell::new(0),
        sum: UnsafeCell::new(0),
        inside: AtomicBool::new(false),
    };
    // All threads start together, so the lock is really contended.
    let start = Barrier::new(threads as usize);
    std::thread::scope(|s| {
        for t in 0..threads {
            let (l, sh, start) = (&l, &sh, &start);
            s.spawn(move || {
                start.wait();
                for i in 0..iters {
                    let g = l.lock();
                    assert!(
                        !sh.inside.swap(true, Ordering::Relaxed),
                        "two threads inside"
                    );
                    let (count, sum) = sh.cells();
                    // SAFETY: we hold the lock; nobody else touches the cells.
                    unsafe {
                        let c = *count;
                        *sum = (*sum).wrapping_add(t * 1_000_003 + i);
                        *count = c + 1;
                    }
                    sh.inside.store(false, Ordering::Relaxed);
                    // SAFETY: acquired above on this thread.
                    unsafe { l.unlock(g) };
                }
            });
        }
    });
    let expect_sum: u64 = (0..threads)
        .map(|t| iters * t * 1_000_003 + iters * (iters - 1) / 2)
        .sum();
    assert_eq!(
        sh.count.into_inner(),
        threads * iters,
        "lost or doubled updates"
    );
    assert_eq!(sh.sum.into_inner(), expect_sum, "checksum");
    assert!(!l.is_locked());
}

/// Iterations per thread for each thread count: park forms.
/// Under ThreadSanitizer (`scripts/tsan.sh`), which slows every atomic access and lets 64
/// threads on 2 cores wait out whole time slices per handoff, fewer: it looks for races, which
/// thousands of contended handoffs per form show as well; the full counts run without it.
const PARK: [(u64, u64); 4] = if cfg!(miri) {
    [(2, 10), (4, 5), (16, 1), (64, 1)]
} else if cfg!(welltempered_tsan) {
    [(2, 5_000), (4, 2_000), (16, 400), (64, 100)]
} else {
    [(2, 20_000), (4, 10_000), (16, 2_000), (64, 500)]
};

/// Iterations per thread for each thread count: spin forms (few at 64: they collapse).
const SPIN: [(u64, u64); 4] = if cfg!(miri) {
    [(2, 10), (4, 5), (16, 1), (64, 1)]
} else if cfg!(welltempered_tsan) {
    [(2, 500), (4, 200), (16, 20), (64, 3)]
} else {
    [(2, 2_000), (4, 500), (16, 50), (64, 10)]
};

fn both<S, P>()
where
    S: RawMutex<Guard = GuardNoSend> + Sync,
    P: RawMutex<Guard = GuardNoSend> + Sync,
{
    for (t, n) in SPIN {
        stress::<S>(t, n);
    }
    for (t, n) in PARK {
        stress::<P>(t, n);
    }
}

#[test]
fn stress_hemlock() {
    both::<Hemlock, HemlockPark>();
}

#[test]
fn stress_hemlock_overlap() {
    both::<HemlockOverlap, HemlockOverlapPark>();
}

#[test]
fn stress_hemlock_ah() {
    both::<HemlockAh, HemlockAhPark>();
}

#[test]
fn stress_mcs() {
    both::<Mcs, McsPark>();
}

#[test]
fn stress_clh() {
    both::<Clh, ClhPark>();
}

#[test]
fn stress_ticket() {
    both::<Ticket, TicketPark>();
}

/// Nested holders: some threads take two or three Hemlocks at once (always in the order
/// a, b, c), others contend on single locks, so several threads keep waiting on one holder's
/// Grant. Per-lock counters must be exact.
fn nested<L: RawMutex<Guard = GuardNoSend> + Sync>(iters: u64) {
    let locks = [L::INIT, L::INIT, L::INIT];
    let counts = [
        UnsafeCell::new(0u64),
        UnsafeCell::new(0u64),
        UnsafeCell::new(0u64),
    ];
    struct Cells<'a>(&'a [UnsafeCell<u64>; 3]);
    // SAFETY: cell k is only accessed under lock k.
    unsafe impl Sync for Cells<'_> {}
    impl Cells<'_> {
        fn cell(&self, k: usize) -> *mut u64 {
            self.0[k].get()
        }
    }
    let cells = Cells(&counts);
    std::thread::scope(|s| {
        // Two multi-lock holders: {a, b, c} and {b, c}.
        for first in [0usize, 1] {
            let (locks, cells) = (&locks, &cells);
            s.spawn(move || {
                for _ in 0..iters {
                    let gs: Vec<_> = (first..3).map(|k| locks[k].lock()).collect();
                    for k in first..3 {
                        // SAFETY: we hold lock k.
                        unsafe { *cells.cell(k) += 1 };
                    }
                    for (k, g) in (first..3).zip(gs).rev() {
                        // SAFETY: acquired above on this thread.
                        unsafe { locks[k].unlock(g) };
                    }
                }
            });
        }
        // One single-lock contender per lock.
        for k in 0..3 {
            let (locks, cells) = (&locks, &cells);
            s.spawn(move || {
                for _ in 0..iters {
                    let g = locks[k].lock();
                    // SAFETY: we hold lock k.
                    unsafe { *cells.cell(k) += 1 };
                    // SAFETY: acquired above on this thread.
                    unsafe { locks[k].unlock(g) };
                }
            });
        }
    });
    let [a, b, c] = counts.map(UnsafeCell::into_inner);
    assert_eq!((a, b, c), (2 * iters, 3 * iters, 3 * iters));
}

const NESTED: u64 = if cfg!(miri) { 5 } else { 2_000 };

#[test]
fn stress_nested_hemlocks() {
    nested::<Hemlock>(NESTED);
    nested::<HemlockPark>(NESTED);
    nested::<HemlockAh>(NESTED);
    nested::<HemlockAhPark>(NESTED);
    nested::<HemlockOverlap>(NESTED);
    nested::<HemlockOverlapPark>(NESTED);
}

#[test]
fn stress_nested_mcs_clh() {
    nested::<Mcs>(NESTED);
    nested::<McsPark>(NESTED);
    nested::<Clh>(NESTED);
    nested::<ClhPark>(NESTED);
}

/// Many short-lived threads: Grants of exited threads, nodes cached by exited threads and the
/// global node pool all get exercised.
#[test]
fn thread_churn() {
    fn churn<L: RawMutex<Guard = GuardNoSend> + Sync>(rounds: u64) {
        let l = L::INIT;
        let count = UnsafeCell::new(0u64);
        struct C<'a>(&'a UnsafeCell<u64>);
        // SAFETY: only accessed under `l`.
        unsafe impl Sync for C<'_> {}
        impl C<'_> {
            fn cell(&self) -> *mut u64 {
                self.0.get()
            }
        }
        let c = C(&count);
        for _ in 0..rounds {
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| {
                        for _ in 0..10 {
                            let g = l.lock();
                            // SAFETY: we hold the lock.
                            unsafe { *c.cell() += 1 };
                            // SAFETY: acquired above on this thread.
                            unsafe { l.unlock(g) };
                        }
                    });
                }
            });
        }
        assert_eq!(count.into_inner(), rounds * 40);
    }
    let rounds = if cfg!(miri) { 2 } else { 50 };
    churn::<HemlockPark>(rounds);
    churn::<HemlockOverlapPark>(rounds);
    churn::<McsPark>(rounds);
    churn::<ClhPark>(rounds);
    churn::<Clh>(rounds);
}
