//! Test-and-set spin lock (TAS), the first lock of the lock study of omp0, a minimal OpenMP
//! runtime evaluated against libgomp (Sreeram and Bhargav; its "Locks" section: "TAS spins via
//! atomic exchange: every spin is a write, so contention causes an invalidation storm").
//!
//! Guarantees: mutual exclusion; not FIFO (no bound on how often one waiter is overtaken);
//! never parks, so a waiter burns its time slice when the holder is descheduled; lock-based,
//! not lock-free. Bytes per lock: 1 (one `AtomicBool`, all-zero when unlocked); bytes per
//! thread: 0. It is kept as the worst-case baseline, not for use: every waiting iteration is an
//! exclusive-mode RMW on the lock's line. The one concession is a bounded exponential backoff
//! between swaps (Anderson's remedy), which every TAS of the literature carries.
//!
//! Unlocking needs no thread-local state, so the guard may be released on another thread
//! ([`lock_api::GuardSend`]).

use crate::sync::{AtomicBool, Ordering, spin_loop};

/// Largest backoff, in spin hints, between two swaps of a waiting [`Tas`].
const MAX_BACKOFF: u32 = if cfg!(loom) { 1 } else { 64 };

/// One test-and-set: `swap(true)`, returning whether the flag was already set.
///
/// Under loom a failed swap is modelled as a CAS (which, failing, writes nothing): loom orders a
/// failed swap's write of `true` after a concurrent unlock's store of `false`, a state no real
/// machine reaches, and then spins forever. The two are the same operation on the lock's value.
#[inline(always)]
fn test_and_set(flag: &AtomicBool) -> bool {
    // Acquire: the critical section must see what the previous holder wrote before its Release
    // in `unlock`.
    #[cfg(not(loom))]
    return flag.swap(true, Ordering::Acquire);
    #[cfg(loom)]
    return flag
        .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
        .is_err();
}

/// The test-and-set spin lock: spin on `swap(true)`.
#[derive(Debug)]
pub struct Tas {
    locked: AtomicBool,
}

impl Default for Tas {
    fn default() -> Self {
        Self::new()
    }
}

impl Tas {
    /// An unlocked lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            locked: AtomicBool::new(false),
        }
    }

    /// An unlocked lock.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            locked: AtomicBool::new(false),
        }
    }

    /// Acquires the lock, spinning until it is free.
    #[inline]
    pub fn lock(&self) {
        if !test_and_set(&self.locked) {
            return;
        }
        self.lock_contended();
    }

    #[cold]
    fn lock_contended(&self) {
        let mut backoff = 1;
        loop {
            for _ in 0..backoff {
                spin_loop();
            }
            backoff = (backoff * 2).min(MAX_BACKOFF);
            if !test_and_set(&self.locked) {
                return;
            }
        }
    }

    /// Acquires the lock if it is free; returns whether it did.
    #[inline]
    pub fn try_lock(&self) -> bool {
        !test_and_set(&self.locked)
    }

    /// Releases the lock.
    ///
    /// # Safety
    ///
    /// The lock must be held, by this or (since no thread-local state is involved) any other
    /// thread that took over the holder's duty to release it.
    #[inline]
    pub unsafe fn unlock(&self) {
        // Release: publishes the critical section to the next acquirer.
        self.locked.store(false, Ordering::Release);
    }

    /// Whether the lock is held (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.locked.load(Ordering::Relaxed)
    }
}

#[cfg(not(loom))]
// SAFETY: `lock`/`try_lock` return only once this thread's swap turned `false` into `true`, so at
// most one guard exists at a time; `unlock` is only reached through that guard.
unsafe impl lock_api::RawMutex for Tas {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = Self::new();
    type Guard = lock_api::GuardSend;

    #[inline]
    fn lock(&self) -> Self::Guard {
        Tas::lock(self);
        lock_api::GuardSend::new()
    }

    #[inline]
    fn try_lock(&self) -> Option<Self::Guard> {
        Tas::try_lock(self).then(lock_api::GuardSend::new)
    }

    #[inline]
    unsafe fn unlock(&self, _guard: Self::Guard) {
        // SAFETY: the guard proves the lock is held (the trait's contract).
        unsafe { Tas::unlock(self) }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        Tas::is_locked(self)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn zero_is_unlocked_and_small() {
        assert!(size_of::<Tas>() <= 40);
        // SAFETY: `Tas` is an `AtomicBool`, for which all-zero is `false`.
        let t: Tas = unsafe { core::mem::zeroed() };
        assert!(!t.is_locked());
        assert!(t.try_lock());
        assert!(t.is_locked());
        assert!(!t.try_lock());
        // SAFETY: held by this thread since the successful `try_lock`.
        unsafe { t.unlock() };
        assert!(!t.is_locked());
    }

    #[test]
    fn excludes() {
        let m = lock_api::Mutex::<Tas, u64>::new(0);
        let (threads, iters) = if cfg!(miri) { (3, 50) } else { (4, 20_000) };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for _ in 0..iters {
                        *m.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*m.lock(), threads * iters);
    }
}
