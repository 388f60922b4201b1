//! Loom models of the simple locks and of the default mutex's outer protocol.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-lock --release --test loom_simple`
//!
//! Each model runs two or three threads that increment a `loom::cell::UnsafeCell` under the
//! lock: loom reports any two accesses not ordered by the lock's acquire/release as a data race,
//! and the final value checks that no increment was lost. Under loom, `futex::wait` is a yield
//! and a legal spurious return, so the sleep paths are explored as loops.

#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use welltempered_lock::{Futex, MUTEX_BYPASS_LIMIT, RawMutex, Tas, Ttas, TtasYield, TwoPhase};

/// The operations every modelled lock offers.
trait Lock: Send + Sync + 'static {
    fn new() -> Self;
    fn lock(&self);
    fn is_locked(&self) -> bool;
    fn try_lock(&self) -> bool;
    /// # Safety
    /// Held by the caller.
    unsafe fn unlock(&self);
}

macro_rules! lock {
    ($t:ty) => {
        impl Lock for $t {
            fn new() -> Self {
                <$t>::new()
            }
            fn lock(&self) {
                <$t>::lock(self)
            }
            fn try_lock(&self) -> bool {
                <$t>::try_lock(self)
            }
            fn is_locked(&self) -> bool {
                <$t>::is_locked(self)
            }
            unsafe fn unlock(&self) {
                // SAFETY: forwarded from the caller.
                unsafe { <$t>::unlock(self) }
            }
        }
    };
}
lock!(Tas);
lock!(Ttas);
lock!(TtasYield);
lock!(Futex);
lock!(TwoPhase);
lock!(RawMutex);

struct Shared<L> {
    lock: L,
    value: UnsafeCell<u32>,
}

fn increment<L: Lock>(s: &Shared<L>) {
    s.lock.lock();
    // SAFETY: the lock is held, so no other thread accesses `value` (loom checks this).
    s.value.with_mut(|v| unsafe { *v += 1 });
    // SAFETY: locked just above by this thread.
    unsafe { s.lock.unlock() };
}

/// `threads` threads (the model's main thread included) increment once each.
fn exclusion<L: Lock>(threads: u32) {
    loom::model(move || {
        let s = Arc::new(Shared {
            lock: L::new(),
            value: UnsafeCell::new(0),
        });
        let handles: Vec<_> = (1..threads)
            .map(|_| {
                let s = Arc::clone(&s);
                thread::spawn(move || increment(&s))
            })
            .collect();
        increment(&s);
        for h in handles {
            h.join().unwrap();
        }
        assert!(!Lock::is_locked(&s.lock), "left locked");
        assert!(s.lock.try_lock());
        // SAFETY: the lock is held (try_lock above) and every other thread has finished.
        assert_eq!(s.value.with(|v| unsafe { *v }), threads);
    });
}

/// One thread holds the lock while another tries once: `try_lock` must fail while held, and
/// whatever it saw must be ordered with the holder's write.
fn try_lock_model<L: Lock>() {
    loom::model(|| {
        let s = Arc::new(Shared {
            lock: L::new(),
            value: UnsafeCell::new(0),
        });
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || {
            if s2.lock.try_lock() {
                // SAFETY: held.
                s2.value.with_mut(|v| unsafe { *v += 1 });
                // SAFETY: held.
                unsafe { s2.lock.unlock() };
            }
        });
        increment(&s);
        t.join().unwrap();
        s.lock.lock();
        // SAFETY: held, and the other thread has finished.
        let v = s.value.with(|v| unsafe { *v });
        assert!(v == 1 || v == 2);
        // SAFETY: held.
        unsafe { s.lock.unlock() };
    });
}

#[test]
fn tas_excludes() {
    exclusion::<Tas>(2);
    try_lock_model::<Tas>();
}

#[test]
fn ttas_excludes() {
    exclusion::<Ttas>(2);
    try_lock_model::<Ttas>();
}

#[test]
fn ttas_yield_excludes() {
    exclusion::<TtasYield>(2);
}

#[test]
fn futex_excludes() {
    exclusion::<Futex>(2);
    try_lock_model::<Futex>();
}

/// The sleep path of Drepper's lock: under loom the contended thread's spin budget is one or
/// two reads, so among the interleavings explored are those where it runs out while the other
/// thread holds the lock, swaps in 2 (locked, with waiters), "sleeps" (a yield under loom) and
/// is released by an unlock that finds 2. Models with two *waiting* threads are left out: loom's
/// depth-first scheduler lets two yielding spinners alternate forever before it tries the
/// holder, so such a model never finishes (the stress tests cover them instead).
#[test]
fn futex_sleep_path_holder_yields() {
    sleep_path_holder_yields(Futex::new);
}

/// The main thread holds the lock while the other thread tries it, yields twice (so the other
/// thread may exhaust its spin phase and sleep), then releases it.
fn sleep_path_holder_yields<L: Lock>(make: fn() -> L) {
    loom::model(move || {
        let s = Arc::new(Shared {
            lock: make(),
            value: UnsafeCell::new(0),
        });
        s.lock.lock();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || increment(&s2));
        // Give the other thread every chance to exhaust its spin budget and sleep.
        thread::yield_now();
        thread::yield_now();
        // SAFETY: held.
        s.value.with_mut(|v| unsafe { *v += 1 });
        // SAFETY: locked above by this thread.
        unsafe { s.lock.unlock() };
        t.join().unwrap();
        assert!(!s.lock.is_locked());
        // SAFETY: the other thread has finished and the lock is free.
        assert_eq!(s.value.with(|v| unsafe { *v }), 2);
    });
}

#[test]
fn two_phase_excludes() {
    exclusion::<TwoPhase>(2);
    try_lock_model::<TwoPhase>();
}

/// The sleep path of the two-phase lock, as [`futex_sleep_path_holder_yields`] models Drepper's:
/// under loom the spin phase is two attempts, so the waiter may run out of it while the main
/// thread holds the lock, swap in 2 and "sleep", and the unlock that finds 2 wakes it. The zero
/// window (sleep at once) is modelled too.
#[test]
fn two_phase_sleep_path_holder_yields() {
    sleep_path_holder_yields(TwoPhase::new);
    sleep_path_holder_yields(|| TwoPhase::with_window(std::time::Duration::ZERO));
}

#[test]
fn mutex_excludes() {
    exclusion::<RawMutex>(2);
    try_lock_model::<RawMutex>();
}

/// The default mutex's hand-over: the main thread holds the lock while a second thread goes the
/// slow way (queue, head, possibly sleeping on the outer word); the main thread then unlocks and
/// takes the lock again with `lock`, barging while the word lets it, and yielding between
/// rounds. The head always gets the lock in the end (loom reports a deadlock if a head sleeps
/// with nobody left to wake it, and a livelock as a model that never ends). While the head is
/// awake at most `MUTEX_BYPASS_LIMIT` (1 under loom) barging acquisitions count against it; a
/// sleeping head lets barging go on uncounted until it runs again, so the number of barges
/// here is not bounded by the limit: the bound itself is `barge`'s, unit-tested in `mutex.rs`.
/// (`try_lock` takes any free lock, as POSIX's trylock must, so the bound is `lock`'s.)
#[test]
fn mutex_head_gets_the_lock_while_another_thread_barges() {
    loom::model(|| {
        let s = Arc::new(Shared {
            lock: RawMutex::new(),
            value: UnsafeCell::new(0),
        });
        s.lock.lock();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || increment(&s2));
        // The other thread cannot get the lock now, so it queues and becomes the head.
        while !s.lock.has_head() {
            thread::yield_now();
        }
        loop {
            assert!(s.lock.bypass_count() <= MUTEX_BYPASS_LIMIT);
            // SAFETY: held (locked above or by the `lock` below).
            unsafe { s.lock.unlock() };
            thread::yield_now();
            s.lock.lock();
            // SAFETY: held.
            if s.value.with(|v| unsafe { *v }) == 1 {
                // The head has had its turn.
                // SAFETY: held.
                unsafe { s.lock.unlock() };
                break;
            }
        }
        t.join().unwrap();
        increment(&s);
        // SAFETY: the other thread has finished and no lock is held.
        assert_eq!(s.value.with(|v| unsafe { *v }), 2);
    });
}

/// Three threads on the default mutex: two of them can meet in the queue, one as head and one
/// in the inner lock, while the third barges. Bounded to two preemptions whatever the
/// environment says: with three, loom's depth-first scheduler lets two yielding waiters
/// alternate forever before it tries the holder (see `futex_sleep_path_holder_yields`).
#[test]
fn mutex_three_threads_exclude() {
    let mut builder = loom::model::Builder::new();
    builder.preemption_bound = Some(2);
    builder.check(|| {
        let s = Arc::new(Shared {
            lock: RawMutex::new(),
            value: UnsafeCell::new(0),
        });
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let s = Arc::clone(&s);
                thread::spawn(move || increment(&s))
            })
            .collect();
        increment(&s);
        for h in handles {
            h.join().unwrap();
        }
        assert!(!s.lock.is_locked());
        // SAFETY: every other thread has finished and the lock is free.
        assert_eq!(s.value.with(|v| unsafe { *v }), 3);
    });
}
