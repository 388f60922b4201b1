//! Waiting policies of the FIFO queue locks: pure spinning ([`Spin`]) and spin-then-park
//! ([`SpinThenPark`]).
//!
//! Source: Hemlock paper (Dice & Kogan, 2021), appendix C "Waiting strategies": a waiter spins a
//! bounded time on the word it waits on, then announces itself as a sleeper and sleeps on a
//! 32-bit futex word beside that word; whoever makes the awaited condition true issues a wake-up
//! only when a sleeper announced itself, so an uncontended or spin-satisfied hand-over makes no
//! system call.
//!
//! The protocol between a sleeper and a notifier (a Dekker-style handshake):
//!
//! * sleeper: read the futex word `e`; `sleepers += 1`; SeqCst fence; re-check the condition;
//!   if still false, `futex_wait(word, e)`; `sleepers -= 1`.
//! * notifier: make the condition true; change the futex word (unless the word *is* the
//!   condition); SeqCst fence; if `sleepers != 0`, `futex_wake_all(word)`.
//!
//! The two fences order each side's store before its load, so either the sleeper's re-check
//! sees the condition or the notifier sees the sleeper; in the second case the futex word has
//! changed since `e` was read, so the wait either returns at once or is woken.
//!
//! The spin window of [`SpinThenPark`]: a futex park/unpark round trip costs 63–93 µs on the
//! virtual machines this crate is measured on, so a waiter spins for about [`SPIN_WINDOW`]
//! (30 µs, measured with [`std::time::Instant`], read once every 16 iterations) before it parks:
//! short hand-overs never sleep, long ones waste at most a third of a round trip. The first
//! [`SPIN_PAUSES`] iterations are pure `PAUSE`s; after that each iteration also calls
//! `sched_yield`, which, when threads outnumber cores, hands the core to the lock holder or to
//! the predecessor a queue is stalled on instead of burning the time slice.

use crate::sync::{AtomicU32, Ordering, fence, spin_loop, yield_now};

/// How long a [`SpinThenPark`] waiter spins before it parks (see the module documentation).
pub const SPIN_WINDOW: std::time::Duration = std::time::Duration::from_micros(30);

/// Pure `PAUSE` iterations at the start of a [`SpinThenPark`] spin phase, before it starts
/// yielding the CPU between checks.
pub const SPIN_PAUSES: u32 = if cfg!(loom) { 1 } else { 64 };

mod sealed {
    pub trait Sealed {}
}

/// The waiting policy of a FIFO lock: how a thread waits for a condition another thread will
/// make true.
///
/// Sealed: a policy that returned before its condition held would break mutual exclusion, so
/// only the two policies of this module exist.
pub trait Wait: sealed::Sealed + Send + Sync + 'static {
    /// Whether waiters of this policy may sleep, so notifiers must check for sleepers.
    const PARKS: bool;

    /// A short name for reports (`"spin"` or `"park"`).
    const NAME: &'static str;

    /// The spin phase: polls `done` until it returns `true` (then returns `true`) or the spin
    /// window is over (then returns `false`; never for [`Spin`]). `done` may have side effects
    /// (a compare-and-swap that takes ownership).
    fn spin(done: impl FnMut() -> bool) -> bool;

    /// One park: announces the caller on `sleepers`, re-checks `ready`, sleeps on `word` while it
    /// still holds the value it had before the announcement, and withdraws the announcement.
    /// May return spuriously; the caller re-checks its condition. `ready` must be free of side
    /// effects. For [`Spin`] this is one spin iteration.
    fn park(word: &AtomicU32, sleepers: &AtomicU32, ready: impl FnMut() -> bool);

    /// Waits until `done` returns `true`: the spin phase, then parks on `word`. `done` must be
    /// free of side effects (it is also the park's re-check).
    #[inline]
    fn wait_until(word: &AtomicU32, sleepers: &AtomicU32, mut done: impl FnMut() -> bool) {
        if Self::spin(&mut done) {
            return;
        }
        loop {
            Self::park(word, sleepers, &mut done);
            if done() {
                return;
            }
        }
    }
}

/// Pure busy-waiting with [`core::hint::spin_loop`]: the lowest hand-over latency while every
/// waiter has a core, and a collapse (a descheduled waiter stalls the whole queue) once threads
/// outnumber cores.
#[derive(Debug, Clone, Copy, Default)]
pub struct Spin;

impl sealed::Sealed for Spin {}

impl Wait for Spin {
    const PARKS: bool = false;
    const NAME: &'static str = "spin";

    #[inline]
    fn spin(mut done: impl FnMut() -> bool) -> bool {
        while !done() {
            spin_loop();
        }
        true
    }

    #[inline]
    fn park(_word: &AtomicU32, _sleepers: &AtomicU32, _ready: impl FnMut() -> bool) {
        spin_loop();
    }
}

/// Spin then park (appendix C): spin about [`SPIN_WINDOW`] (yielding the CPU after the first
/// [`SPIN_PAUSES`] iterations), then sleep on a futex word until notified.
#[derive(Debug, Clone, Copy, Default)]
pub struct SpinThenPark;

impl sealed::Sealed for SpinThenPark {}

impl Wait for SpinThenPark {
    const PARKS: bool = true;
    const NAME: &'static str = "park";

    #[inline]
    fn spin(mut done: impl FnMut() -> bool) -> bool {
        for _ in 0..SPIN_PAUSES {
            if done() {
                return true;
            }
            spin_loop();
        }
        if cfg!(loom) {
            return done();
        }
        let start = std::time::Instant::now();
        let mut i = 0u32;
        loop {
            if done() {
                return true;
            }
            yield_now();
            i = i.wrapping_add(1);
            if i.is_multiple_of(16) && start.elapsed() >= SPIN_WINDOW {
                return done();
            }
        }
    }

    #[inline]
    fn park(word: &AtomicU32, sleepers: &AtomicU32, mut ready: impl FnMut() -> bool) {
        // Acquire: if this reads a notifier's bump, its condition store is visible to `ready`.
        let e = word.load(Ordering::Acquire);
        sleepers.fetch_add(1, Ordering::Relaxed);
        // Orders the announcement before the re-check (pairs with the fence in `notify`).
        fence(Ordering::SeqCst);
        if !ready() {
            crate::futex::wait(word, e, None);
        }
        sleepers.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The notifier's half of the handshake: call after making the condition true and changing
/// `word`; wakes every sleeper on `word` if one announced itself. A no-op for [`Spin`].
#[inline]
pub(crate) fn notify<W: Wait>(word: &AtomicU32, sleepers: &AtomicU32) {
    if W::PARKS {
        // Orders the condition store before the sleeper check (pairs with the fence in `park`).
        fence(Ordering::SeqCst);
        if sleepers.load(Ordering::Relaxed) != 0 {
            crate::futex::wake_all(word);
        }
    }
}

/// Waits until `done` holds with no one to notify us: spins, then yields the CPU between
/// checks. For the short windows of a queue lock where a thread has announced itself but not
/// yet linked in (MCS `next`), or is between its wake-up call and its final store.
#[inline]
pub(crate) fn spin_yield_until(mut done: impl FnMut() -> bool) {
    let mut i = 0u32;
    while !done() {
        if i < SPIN_PAUSES {
            spin_loop();
            i += 1;
        } else {
            yield_now();
        }
    }
}

/// Calls `try_lock` until it succeeds or `deadline` passes, spinning (64 hints), then yielding
/// (64 times), then sleeping in steps of at most 50 µs; returns whether it succeeded. The timed
/// acquisition of the locks whose queue position cannot be abandoned.
#[cfg(not(loom))]
pub(crate) fn poll_until(deadline: std::time::Instant, mut try_lock: impl FnMut() -> bool) -> bool {
    let mut i = 0u32;
    loop {
        if try_lock() {
            return true;
        }
        let now = std::time::Instant::now();
        if now >= deadline {
            return false;
        }
        i = i.saturating_add(1);
        if i < 64 {
            core::hint::spin_loop();
        } else if i < 128 {
            std::thread::yield_now();
        } else {
            let step = std::time::Duration::from_micros(50);
            std::thread::sleep((deadline - now).min(step));
        }
    }
}

/// Implements `lock_api::RawMutex` and `lock_api::RawMutexTimed` for a lock type generic over
/// its [`Wait`] policy, from its inherent `new`, `lock`, `try_lock`, `unlock` and `is_locked`.
///
/// The timed form polls `try_lock` (spinning, then yielding, then sleeping in steps of at most
/// 50 µs) until the deadline: a timed waiter never joins the queue, because a queue position
/// of these locks cannot be abandoned, so timed acquisitions are not FIFO.
macro_rules! impl_raw_mutex {
    ($ty:ident) => {
        #[cfg(not(loom))]
        // SAFETY: the inherent methods provide mutual exclusion with acquire ordering on every
        // successful lock and release ordering on unlock (see the algorithm's documentation);
        // the guard is `GuardNoSend` because unlock relies on the calling thread's own
        // per-thread state, so it must run on the thread that locked.
        unsafe impl<W: $crate::Wait> lock_api::RawMutex for $ty<W> {
            #[allow(clippy::declare_interior_mutable_const)]
            const INIT: Self = Self::new();
            type Guard = lock_api::GuardNoSend;

            #[inline]
            fn lock(&self) -> Self::Guard {
                $ty::lock(self);
                lock_api::GuardNoSend::new()
            }

            #[inline]
            fn try_lock(&self) -> Option<Self::Guard> {
                $ty::try_lock(self).then(lock_api::GuardNoSend::new)
            }

            #[inline]
            unsafe fn unlock(&self, _guard: Self::Guard) {
                // SAFETY: the caller hands back the guard of an acquisition made on this
                // thread (GuardNoSend cannot leave it), which is what `unlock` requires.
                unsafe { $ty::unlock(self) }
            }

            #[inline]
            fn is_locked(&self) -> bool {
                $ty::is_locked(self)
            }
        }

        #[cfg(not(loom))]
        // SAFETY: every success comes from the `try_lock` above, so the `RawMutex` guarantees
        // carry over.
        unsafe impl<W: $crate::Wait> lock_api::RawMutexTimed for $ty<W> {
            type Duration = std::time::Duration;
            type Instant = std::time::Instant;

            fn try_lock_for(&self, timeout: Self::Duration) -> Option<Self::Guard> {
                match std::time::Instant::now().checked_add(timeout) {
                    Some(deadline) => self.try_lock_until(deadline),
                    None => Some(<Self as lock_api::RawMutex>::lock(self)),
                }
            }

            fn try_lock_until(&self, deadline: Self::Instant) -> Option<Self::Guard> {
                $crate::wait::poll_until(deadline, || $ty::try_lock(self))
                    .then(lock_api::GuardNoSend::new)
            }
        }
    };
}
pub(crate) use impl_raw_mutex;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn spin_returns_when_done() {
        let mut n = 0;
        assert!(Spin::spin(|| {
            n += 1;
            n == 10
        }));
        assert_eq!(n, 10);
    }

    #[test]
    fn spin_then_park_gives_up_after_window() {
        // The condition never holds: the spin phase must end (with false) rather than spin on.
        assert!(!SpinThenPark::spin(|| false));
    }

    #[test]
    fn park_handshake_wakes_sleeper() {
        let word = Arc::new(AtomicU32::new(0));
        let sleepers = Arc::new(AtomicU32::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let (w2, s2, f2) = (word.clone(), sleepers.clone(), flag.clone());
        let t = std::thread::spawn(move || {
            SpinThenPark::wait_until(&w2, &s2, || f2.load(Ordering::Acquire));
        });
        std::thread::sleep(std::time::Duration::from_millis(if cfg!(miri) {
            1
        } else {
            5
        }));
        flag.store(true, Ordering::Release);
        word.fetch_add(1, Ordering::Release);
        notify::<SpinThenPark>(&word, &sleepers);
        t.join().unwrap();
        assert_eq!(sleepers.load(Ordering::Relaxed), 0);
    }
}
