//! Drepper's three-state futex mutex with an adaptive spin budget.
//!
//! Source: U. Drepper, "Futexes Are Tricky" (2011), section 6, "mutex3": the word is 0
//! (unlocked), 1 (locked, no waiters) or 2 (locked, maybe waiters); lock is one CAS 0→1 when
//! free, otherwise `swap(2)` and `FUTEX_WAIT` until a swap returns 0; unlock is `swap(0)` and a
//! `FUTEX_WAKE` of one sleeper only when the word was 2. omp0 (a minimal OpenMP runtime evaluated against libgomp, by Sreeram and Bhargav; its "FutexLock") built the
//! same lock with a *fixed* 64-iteration spin before sleeping and measured it burning 5-6x the
//! cycles of glibc's mutex per contended acquisition at an empty critical section: the spinners
//! never saw the lock free, so the budget was pure waste. Here the budget adapts per lock, as
//! glibc's `PTHREAD_MUTEX_ADAPTIVE_NP` does: the lock keeps an estimate of how many spins a
//! successful spinner needed, moves it 1/8 of the way toward twice the latest success, decays it
//! on every spin that ended in sleep, and never spins while sleepers exist (word = 2), since a
//! newcomer then has a whole queue of sleepers ahead of it anyway.
//!
//! Guarantees: mutual exclusion; not FIFO (a woken sleeper competes with newcomers, so waiting is
//! unbounded in theory); waiters sleep in the kernel, so oversubscription does not collapse it.
//! Bytes per lock: 8 (state word and spin estimate, both all-zero when unlocked, so a
//! zero-filled `pthread_mutex_t` is a valid unlocked lock); bytes per thread: 0. Unlocking needs
//! no thread-local state: guards are [`lock_api::GuardSend`]. Timed acquisition
//! ([`lock_api::RawMutexTimed`]) sleeps with a futex timeout.

use crate::futex::{wait, wake_address};
use crate::sync::{AtomicU32, Ordering, spin_loop};
use std::time::Instant;

/// Wakes one sleeper on the lock word at `word`, by its address only (the lock may be freed by
/// now: see `unlock`).
#[cold]
pub(crate) fn wake_one(word: *const u32) {
    wake_address(word, 1);
}

pub(crate) const UNLOCKED: u32 = 0;
pub(crate) const LOCKED: u32 = 1;
pub(crate) const CONTENDED: u32 = 2;

/// Spins every contended acquisition tries, whatever the estimate says, so the estimate can
/// recover after a run of failures.
pub const FUTEX_MIN_SPIN: u32 = if cfg!(loom) { 1 } else { 8 };
/// The most spins one contended acquisition tries before sleeping.
pub const FUTEX_MAX_SPIN: u32 = if cfg!(loom) { 2 } else { 256 };

/// Drepper's three-state futex mutex with a per-lock adaptive spin budget.
#[derive(Debug)]
pub struct Futex {
    /// 0 unlocked, 1 locked, 2 locked and possibly with sleepers.
    state: AtomicU32,
    /// Learned extra spins beyond [`FUTEX_MIN_SPIN`]; 0 in a fresh (all-zero) lock. A hint only:
    /// racy updates lose nothing that matters.
    spin: AtomicU32,
}

impl Default for Futex {
    fn default() -> Self {
        Self::new()
    }
}

impl Futex {
    /// An unlocked lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            spin: AtomicU32::new(0),
        }
    }

    /// An unlocked lock.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            spin: AtomicU32::new(0),
        }
    }

    /// Acquires the lock, spinning adaptively and then sleeping.
    #[inline]
    pub fn lock(&self) {
        // Acquire: the critical section must see the previous holder's writes.
        if self
            .state
            .compare_exchange(UNLOCKED, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_contended(None);
        }
    }

    /// The current spin budget of a contended acquisition (for tests and reports).
    pub fn spin_budget(&self) -> u32 {
        FUTEX_MIN_SPIN
            + self
                .spin
                .load(Ordering::Relaxed)
                .min(FUTEX_MAX_SPIN - FUTEX_MIN_SPIN)
    }

    /// Folds one spin phase into the estimate: `Some(k)` = acquired after `k` spins, `None` =
    /// the budget ran out and the thread went to sleep.
    fn learn(&self, outcome: Option<u32>) {
        // Relaxed: the estimate is a heuristic; a lost update only delays adaptation.
        let e = self.spin.load(Ordering::Relaxed);
        let next = next_estimate(e, outcome);
        if next != e {
            self.spin.store(next, Ordering::Relaxed);
        }
    }

    /// The slow path: adaptive spin, then Drepper's sleep loop. Returns `false` only when
    /// `deadline` passed without the lock being acquired.
    #[cold]
    fn lock_contended(&self, deadline: Option<Instant>) -> bool {
        let budget = self.spin_budget();
        let mut spun = 0;
        while spun < budget {
            match self.state.load(Ordering::Relaxed) {
                UNLOCKED
                    if self
                        .state
                        .compare_exchange(UNLOCKED, LOCKED, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok() =>
                {
                    self.learn(Some(spun));
                    return true;
                }
                // Sleepers are queued: spinning would only compete with the one unlock wakes.
                CONTENDED => break,
                _ => {}
            }
            spin_loop();
            spun += 1;
        }
        if spun == budget {
            self.learn(None);
        }
        sleep_phase(&self.state, deadline)
    }
}

/// Drepper's mutex3 sleep loop, shared by [`Futex`] and [`crate::TwoPhase`]: announce a waiter
/// by writing 2; a swap that returns 0 took the lock (leaving 2, which costs at most one
/// spurious wake at unlock). One refinement: after a wake-up, swap only if the word changed; a
/// spurious wake-up that finds it still 2 waits again without an RMW on the lock's line.
/// Returns `false` only when `deadline` passed without the lock being acquired.
pub(crate) fn sleep_phase(state: &AtomicU32, deadline: Option<Instant>) -> bool {
    // Acquire: a swap that returns 0 acquires the lock.
    let mut c = state.swap(CONTENDED, Ordering::Acquire);
    while c != UNLOCKED {
        let timeout = match deadline {
            None => None,
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return false,
            },
        };
        wait(state, CONTENDED, timeout);
        c = if state.load(Ordering::Relaxed) == CONTENDED {
            CONTENDED
        } else {
            // Acquire: as above.
            state.swap(CONTENDED, Ordering::Acquire)
        };
    }
    true
}

/// The adaptation rule of [`Futex`]'s spin estimate `e` (spins beyond the minimum): a success
/// after `k` spins moves `e` 1/8 of the way toward `2k`; a spin that ran out decays `e` by 1/8
/// (and at least 1), so a lock whose spinners never win spins only [`FUTEX_MIN_SPIN`] times.
pub(crate) fn next_estimate(e: u32, outcome: Option<u32>) -> u32 {
    let cap = FUTEX_MAX_SPIN - FUTEX_MIN_SPIN;
    match outcome {
        Some(k) => {
            let target = (2 * k).min(cap) as i64;
            let e = e.min(cap) as i64;
            (e + (target - e) / 8).clamp(0, cap as i64) as u32
        }
        None => e.min(cap).saturating_sub(e / 8 + 1),
    }
}

/// For a lock whose `state` word holds Drepper's three values (0 unlocked, 1 locked, 2 locked
/// and maybe sleepers) and whose `lock_contended(Option<Instant>) -> bool` waits for it: the
/// inherent `try_lock`, `try_lock_until`, `try_lock_for`, `unlock` and `is_locked`, and the
/// `lock_api::RawMutex` (with [`lock_api::GuardSend`]: no thread-local state is involved) and
/// `lock_api::RawMutexTimed` implementations over them and the type's `new` and `lock`.
macro_rules! impl_word_lock {
    ($ty:ident) => {
        impl $ty {
            /// Acquires the lock if it is free; returns whether it did.
            #[inline]
            pub fn try_lock(&self) -> bool {
                // Acquire: the critical section must see the previous holder's writes.
                self.state
                    .compare_exchange(
                        $crate::futex_mutex::UNLOCKED,
                        $crate::futex_mutex::LOCKED,
                        $crate::sync::Ordering::Acquire,
                        $crate::sync::Ordering::Relaxed,
                    )
                    .is_ok()
            }

            /// Acquires the lock unless `deadline` passes first; returns whether it did. Never
            /// returns `false` before the deadline.
            pub fn try_lock_until(&self, deadline: std::time::Instant) -> bool {
                self.try_lock() || self.lock_contended(Some(deadline))
            }

            /// Acquires the lock unless `timeout` passes first; returns whether it did.
            pub fn try_lock_for(&self, timeout: std::time::Duration) -> bool {
                if self.try_lock() {
                    return true;
                }
                match std::time::Instant::now().checked_add(timeout) {
                    Some(deadline) => self.lock_contended(Some(deadline)),
                    // Too far away to represent: as good as forever.
                    None => self.lock_contended(None),
                }
            }

            /// Releases the lock, waking one sleeper if there may be any.
            ///
            /// # Safety
            ///
            /// The lock must be held, by this or (no thread-local state is involved) any other
            /// thread that took over the holder's duty to release it.
            #[inline]
            pub unsafe fn unlock(&self) {
                // Taken before the release: afterwards another thread may take, release and
                // free the lock, so the wake-up uses only the word's address.
                let word = core::ptr::from_ref(&self.state).cast::<u32>();
                // Release: publishes the critical section to the next acquirer.
                if self.state.swap(
                    $crate::futex_mutex::UNLOCKED,
                    $crate::sync::Ordering::Release,
                ) == $crate::futex_mutex::CONTENDED
                {
                    $crate::futex_mutex::wake_one(word);
                }
            }

            /// Whether the lock is held (a momentary snapshot).
            #[inline]
            pub fn is_locked(&self) -> bool {
                self.state.load($crate::sync::Ordering::Relaxed) != $crate::futex_mutex::UNLOCKED
            }
        }

        #[cfg(not(loom))]
        // SAFETY: every acquiring path returns only after this thread's CAS or swap changed the
        // word from 0 (unlocked) to non-zero, so at most one guard exists at a time.
        unsafe impl lock_api::RawMutex for $ty {
            #[allow(clippy::declare_interior_mutable_const)]
            const INIT: Self = Self::new();
            type Guard = lock_api::GuardSend;

            #[inline]
            fn lock(&self) -> Self::Guard {
                $ty::lock(self);
                lock_api::GuardSend::new()
            }

            #[inline]
            fn try_lock(&self) -> Option<Self::Guard> {
                $ty::try_lock(self).then(lock_api::GuardSend::new)
            }

            #[inline]
            unsafe fn unlock(&self, _guard: Self::Guard) {
                // SAFETY: the guard proves the lock is held (the trait's contract).
                unsafe { $ty::unlock(self) }
            }

            #[inline]
            fn is_locked(&self) -> bool {
                $ty::is_locked(self)
            }
        }

        #[cfg(not(loom))]
        // SAFETY: the timed paths acquire exactly as `lock` does, or return `None` without the
        // lock.
        unsafe impl lock_api::RawMutexTimed for $ty {
            type Duration = std::time::Duration;
            type Instant = std::time::Instant;

            fn try_lock_for(&self, timeout: std::time::Duration) -> Option<Self::Guard> {
                $ty::try_lock_for(self, timeout).then(lock_api::GuardSend::new)
            }

            fn try_lock_until(&self, deadline: std::time::Instant) -> Option<Self::Guard> {
                $ty::try_lock_until(self, deadline).then(lock_api::GuardSend::new)
            }
        }
    };
}
pub(crate) use impl_word_lock;

impl_word_lock!(Futex);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn estimate_grows_on_success_and_decays_on_failure() {
        let mut e = 0;
        for _ in 0..100 {
            e = next_estimate(e, Some(100));
        }
        assert!(e > 150 && e <= 200, "{e}");
        let grown = e;
        e = next_estimate(e, None);
        assert!(e < grown);
        for _ in 0..200 {
            e = next_estimate(e, None);
        }
        assert_eq!(e, 0);
        // Capped at the maximum.
        for _ in 0..200 {
            e = next_estimate(e, Some(u32::MAX / 4));
        }
        assert!(e <= FUTEX_MAX_SPIN - FUTEX_MIN_SPIN);
    }

    #[test]
    fn zero_is_unlocked_and_small() {
        assert!(size_of::<Futex>() <= 40);
        // SAFETY: `Futex` is two `AtomicU32`s; all-zero is the unlocked state with no estimate.
        let f: Futex = unsafe { core::mem::zeroed() };
        assert!(!f.is_locked());
        assert_eq!(f.spin_budget(), FUTEX_MIN_SPIN);
        assert!(f.try_lock());
        assert!(!f.try_lock());
        // SAFETY: held since the successful `try_lock`.
        unsafe { f.unlock() };
        assert!(!f.is_locked());
    }

    #[test]
    fn timed_lock_times_out_when_held() {
        let m = lock_api::Mutex::<Futex, u32>::new(0);
        let g = m.lock();
        std::thread::scope(|s| {
            s.spawn(|| {
                let start = Instant::now();
                let d = Duration::from_millis(if cfg!(miri) { 1 } else { 20 });
                assert!(m.try_lock_for(d).is_none());
                assert!(start.elapsed() >= d, "returned before the deadline");
                assert!(m.try_lock_until(Instant::now()).is_none());
            });
        });
        drop(g);
        assert!(m.try_lock_for(Duration::from_millis(1)).is_some());
        assert!(m.try_lock_for(Duration::MAX).is_some());
    }

    #[test]
    fn sleepers_are_woken() {
        let m = lock_api::Mutex::<Futex, u64>::new(0);
        let (threads, iters) = if cfg!(miri) { (3, 30) } else { (8, 20_000) };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for i in 0..iters {
                        let mut g = m.lock();
                        *g += 1;
                        if i % 64 == 0 {
                            // Hold the lock across a yield now and then, so others sleep.
                            std::thread::yield_now();
                        }
                    }
                });
            }
        });
        assert_eq!(*m.lock(), threads * iters);
        assert!(!m.is_locked());
    }
}
