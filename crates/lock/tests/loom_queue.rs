//! Loom models of the queue locks: every interleaving (up to the preemption bound) of two or
//! three threads taking a lock once or twice must keep mutual exclusion (loom's `UnsafeCell`
//! reports any overlapping access) and end with the exact count.
//!
//! Run with:
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-lock --test loom_queue --release`
//!
//! Under loom a futex wait is a yield (a legal spurious wake-up), so the park forms' code paths
//! (announcing, tagging the Grant, waking) are explored for data races and lost progress, but
//! a lost kernel wake-up cannot be observed here; that argument is in `wait.rs`.
#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use welltempered_lock::*;

/// The inherent API every queue lock offers under loom.
trait Lock: Send + Sync + 'static {
    fn make() -> Self;
    fn acquire(&self);
    fn try_acquire(&self) -> bool;
    /// # Safety
    /// Held by the calling thread.
    unsafe fn release(&self);
}

macro_rules! lock {
    ($($t:ty),*) => {$(
        impl Lock for $t {
            fn make() -> Self {
                <$t>::new()
            }
            fn acquire(&self) {
                self.lock()
            }
            fn try_acquire(&self) -> bool {
                self.try_lock()
            }
            unsafe fn release(&self) {
                // SAFETY: forwarded from the caller.
                unsafe { self.unlock() }
            }
        }
    )*};
}

lock!(
    Hemlock,
    HemlockPark,
    HemlockOverlap,
    HemlockOverlapPark,
    HemlockAh,
    HemlockAhPark,
    Mcs,
    McsPark,
    Clh,
    ClhPark,
    Ticket,
    TicketPark
);

/// [`McsCompact`] behind the token-free interface: the token waits in a cell that only the
/// holder touches (loom checks that too).
struct Compact<W: Wait> {
    lock: McsCompact<W>,
    token: UnsafeCell<Option<McsCompactToken>>,
}

// SAFETY: `token` is accessed only by the thread that holds `lock`.
unsafe impl<W: Wait> Sync for Compact<W> {}

impl<W: Wait + 'static> Lock for Compact<W> {
    fn make() -> Self {
        Compact {
            lock: McsCompact::new(),
            token: UnsafeCell::new(None),
        }
    }
    fn acquire(&self) {
        let t = self.lock.lock();
        // SAFETY: we hold the lock.
        self.token.with_mut(|p| unsafe { *p = Some(t) });
    }
    fn try_acquire(&self) -> bool {
        let Some(t) = self.lock.try_lock() else {
            return false;
        };
        // SAFETY: we hold the lock.
        self.token.with_mut(|p| unsafe { *p = Some(t) });
        true
    }
    unsafe fn release(&self) {
        // SAFETY: the caller holds the lock.
        let t = self.token.with_mut(|p| unsafe { (*p).take() });
        // SAFETY: the token of this lock's acquisition, released once.
        unsafe { self.lock.unlock(t.expect("held")) };
    }
}

/// A model builder: preemption bound 2 unless `LOOM_MAX_PREEMPTIONS` says otherwise, capped at 1
/// for three-thread models (with two spinning waiters that yield to each other, a bound of 2
/// does not finish in minutes), and room for the long but finite paths of spinning waiters.
fn builder(threads: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    let bound = b.preemption_bound.unwrap_or(2);
    b.preemption_bound = Some(if threads >= 3 { bound.min(1) } else { bound });
    b.max_branches = 10_000;
    b
}

struct Shared<L> {
    lock: L,
    count: UnsafeCell<u32>,
}

fn critical<L: Lock>(sh: &Shared<L>) {
    sh.lock.acquire();
    sh.count.with_mut(|c| {
        // SAFETY: we hold the lock; loom checks that no access overlaps.
        unsafe { *c += 1 }
    });
    // SAFETY: acquired above on this thread.
    unsafe { sh.lock.release() };
}

/// `threads` threads (the model's main thread included) each take the lock `each` times.
fn model<L: Lock>(threads: usize, each: usize) {
    let b = builder(threads);
    b.check(move || {
        let sh = Arc::new(Shared {
            lock: L::make(),
            count: UnsafeCell::new(0),
        });
        let hs: Vec<_> = (1..threads)
            .map(|_| {
                let sh = sh.clone();
                thread::spawn(move || {
                    for _ in 0..each {
                        critical(&sh);
                    }
                })
            })
            .collect();
        for _ in 0..each {
            critical(&sh);
        }
        for h in hs {
            h.join().unwrap();
        }
        let n = sh.count.with(|c| {
            // SAFETY: every other thread has been joined.
            unsafe { *c }
        });
        assert_eq!(n as usize, threads * each);
    });
}

/// try_lock racing lock: whoever wins, the counts add up and the lock ends free.
fn model_try<L: Lock>() {
    let b = builder(2);
    b.check(|| {
        let sh = Arc::new(Shared {
            lock: L::make(),
            count: UnsafeCell::new(0),
        });
        let sh2 = sh.clone();
        let h = thread::spawn(move || critical(&sh2));
        let got = sh.lock.try_acquire();
        if got {
            sh.count.with_mut(|c| {
                // SAFETY: we hold the lock.
                unsafe { *c += 1 }
            });
            // SAFETY: acquired above on this thread.
            unsafe { sh.lock.release() };
        }
        h.join().unwrap();
        let n = sh.count.with(|c| {
            // SAFETY: the other thread has been joined.
            unsafe { *c }
        });
        assert_eq!(n, 1 + u32::from(got));
        assert!(sh.lock.try_acquire(), "the lock ends free");
        // SAFETY: acquired just above.
        unsafe { sh.lock.release() };
    });
}

macro_rules! models {
    ($($name:ident: $spin:ty, $park:ty;)*) => {$(
        mod $name {
            use super::*;

            #[test]
            fn spin_two_threads_twice() {
                model::<$spin>(2, 2);
            }

            #[test]
            fn spin_three_threads_once() {
                model::<$spin>(3, 1);
            }

            #[test]
            fn park_two_threads_twice() {
                model::<$park>(2, 2);
            }

            #[test]
            fn park_three_threads_once() {
                model::<$park>(3, 1);
            }

            #[test]
            fn try_lock_races_lock() {
                model_try::<$spin>();
            }
        }
    )*};
}

models! {
    hemlock: Hemlock, HemlockPark;
    hemlock_overlap: HemlockOverlap, HemlockOverlapPark;
    hemlock_ah: HemlockAh, HemlockAhPark;
    mcs: Mcs, McsPark;
    mcs_compact: Compact<Spin>, Compact<SpinThenPark>;
    clh: Clh, ClhPark;
    ticket: Ticket, TicketPark;
}

/// Multi-waiting: the main thread holds two Hemlocks; one waiter per lock waits on its single
/// Grant; each must be admitted by the release of its own lock.
fn model_multi<L: Lock>() {
    let b = builder(3);
    b.check(|| {
        let a = Arc::new(Shared {
            lock: L::make(),
            count: UnsafeCell::new(0),
        });
        let c = Arc::new(Shared {
            lock: L::make(),
            count: UnsafeCell::new(0),
        });
        a.lock.acquire();
        c.lock.acquire();
        let (a2, c2) = (a.clone(), c.clone());
        let ha = thread::spawn(move || critical(&a2));
        let hc = thread::spawn(move || critical(&c2));
        // SAFETY: both acquired above on this thread.
        unsafe {
            c.lock.release();
            a.lock.release();
        }
        ha.join().unwrap();
        hc.join().unwrap();
        for s in [&a, &c] {
            // SAFETY: every other thread has been joined.
            assert_eq!(s.count.with(|c| unsafe { *c }), 1);
        }
    });
}

#[test]
fn hemlock_multi_waiting() {
    model_multi::<Hemlock>();
}

#[test]
fn hemlock_park_multi_waiting() {
    model_multi::<HemlockPark>();
}

#[test]
fn hemlock_overlap_multi_waiting() {
    model_multi::<HemlockOverlap>();
}
