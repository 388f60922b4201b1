//! parking_lot's `RawMutex` and `RawFairMutex` as lock_api 0.4 raw mutexes over welltempered's
//! default raw mutex.
//!
//! **Algorithm.** welltempered's default mutex (`welltempered_lock::RawMutex`): a Fissile lock
//! (Dice and Kogan, "Fissile Locks", NETYS 2020, <https://arxiv.org/abs/2003.05025>), a barging
//! word over a compact MCS queue, 8 bytes. This file only adapts lock_api 0.5's guard-passing
//! methods to lock_api 0.4's (whose `unlock` takes no guard): welltempered's guard is the
//! zero-sized `GuardSend`, made again where lock_api 0.4 asks for an unlock.
//!
//! **Guarantees.** Those of the default mutex: mutual exclusion, waiters sleep, an unlock is
//! one read-modify-write. `RawFairMutex` unlocks fairly every time (the next waiter in the
//! queue takes the lock, no barging).

use welltempered_lock::lock_api as api05;

/// The guard marker of this crate's locks: not `Send` unless the `send_guard` feature asks
/// (as parking_lot's).
#[cfg(not(feature = "send_guard"))]
pub(crate) type Marker = lock_api::GuardNoSend;
#[cfg(feature = "send_guard")]
pub(crate) type Marker = lock_api::GuardSend;

/// The raw mutex of [`crate::Mutex`]: welltempered's default mutex.
#[derive(Debug)]
#[repr(transparent)]
pub struct RawMutex(pub(crate) welltempered_lock::RawMutex);

impl RawMutex {
    /// Unlocks a mutex this thread's lock_api 0.4 guard holds.
    ///
    /// # Safety
    /// The mutex is locked, by a guard whose lock is given up here.
    #[inline]
    pub(crate) unsafe fn release(&self) {
        // SAFETY: forwarded: the caller holds the lock; the zero-sized guard stands for it.
        unsafe { api05::RawMutex::unlock(&self.0, api05::GuardSend::new()) }
    }

    /// Locks the mutex again after [`Self::release`], for the caller's guard.
    #[inline]
    pub(crate) fn reacquire(&self) {
        let _held: api05::GuardSend = api05::RawMutex::lock(&self.0);
    }
}

// SAFETY: every method forwards to welltempered's raw mutex, which upholds lock_api 0.5's
// contract (one guard at a time); its guard is a zero-sized `GuardSend` with no state, so
// dropping one on lock and making one on unlock changes nothing.
unsafe impl lock_api::RawMutex for RawMutex {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawMutex(<welltempered_lock::RawMutex as api05::RawMutex>::INIT);
    type GuardMarker = Marker;

    #[inline]
    fn lock(&self) {
        let _held: api05::GuardSend = api05::RawMutex::lock(&self.0);
    }

    #[inline]
    fn try_lock(&self) -> bool {
        api05::RawMutex::try_lock(&self.0).is_some()
    }

    #[inline]
    unsafe fn unlock(&self) {
        // SAFETY: lock_api's contract: the mutex is held by the caller's guard.
        unsafe { self.release() }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        api05::RawMutex::is_locked(&self.0)
    }
}

// SAFETY: as for `RawMutex`: the fair unlock releases as the plain one does.
unsafe impl lock_api::RawMutexFair for RawMutex {
    #[inline]
    unsafe fn unlock_fair(&self) {
        // SAFETY: lock_api's contract: the mutex is held by the caller's guard.
        unsafe { api05::RawMutexFair::unlock_fair(&self.0, api05::GuardSend::new()) }
    }
}

// SAFETY: as for `RawMutex`: a timed lock succeeds only when welltempered's does.
unsafe impl lock_api::RawMutexTimed for RawMutex {
    type Duration = std::time::Duration;
    type Instant = std::time::Instant;

    #[inline]
    fn try_lock_for(&self, timeout: Self::Duration) -> bool {
        api05::RawMutexTimed::try_lock_for(&self.0, timeout).is_some()
    }

    #[inline]
    fn try_lock_until(&self, timeout: Self::Instant) -> bool {
        api05::RawMutexTimed::try_lock_until(&self.0, timeout).is_some()
    }
}

/// The raw mutex of [`crate::FairMutex`]: [`RawMutex`] whose every unlock is fair.
#[derive(Debug)]
#[repr(transparent)]
pub struct RawFairMutex(RawMutex);

// SAFETY: forwards to `RawMutex`, with `unlock` made its fair unlock (which releases the same
// way).
unsafe impl lock_api::RawMutex for RawFairMutex {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawFairMutex(<RawMutex as lock_api::RawMutex>::INIT);
    type GuardMarker = Marker;

    #[inline]
    fn lock(&self) {
        lock_api::RawMutex::lock(&self.0);
    }

    #[inline]
    fn try_lock(&self) -> bool {
        lock_api::RawMutex::try_lock(&self.0)
    }

    #[inline]
    unsafe fn unlock(&self) {
        // SAFETY: lock_api's contract: the mutex is held by the caller's guard.
        unsafe { lock_api::RawMutexFair::unlock_fair(&self.0) }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        lock_api::RawMutex::is_locked(&self.0)
    }
}

// SAFETY: forwards to `RawMutex`.
unsafe impl lock_api::RawMutexFair for RawFairMutex {
    #[inline]
    unsafe fn unlock_fair(&self) {
        // SAFETY: lock_api's contract: the mutex is held by the caller's guard.
        unsafe { lock_api::RawMutexFair::unlock_fair(&self.0) }
    }

    #[inline]
    unsafe fn bump(&self) {
        // SAFETY: lock_api's contract: the mutex is held by the caller's guard.
        unsafe { lock_api::RawMutexFair::bump(&self.0) }
    }
}

// SAFETY: forwards to `RawMutex`.
unsafe impl lock_api::RawMutexTimed for RawFairMutex {
    type Duration = std::time::Duration;
    type Instant = std::time::Instant;

    #[inline]
    fn try_lock_for(&self, timeout: Self::Duration) -> bool {
        lock_api::RawMutexTimed::try_lock_for(&self.0, timeout)
    }

    #[inline]
    fn try_lock_until(&self, timeout: Self::Instant) -> bool {
        lock_api::RawMutexTimed::try_lock_until(&self.0, timeout)
    }
}

#[cfg(test)]
mod tests {
    use crate::{FairMutex, Mutex, const_mutex};

    #[test]
    fn sizes_are_welltempered_ones() {
        // The default mutex is one 8-byte word; parking_lot's would be 1 byte.
        assert_eq!(core::mem::size_of::<crate::RawMutex>(), 8);
        assert_eq!(core::mem::size_of::<crate::RawFairMutex>(), 8);
    }

    #[test]
    fn counts_under_contention() {
        static M: Mutex<u64> = const_mutex(0);
        let f = FairMutex::new(0u64);
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..1000 {
                        *M.lock() += 1;
                        *f.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*M.lock(), 4000);
        assert_eq!(f.into_inner(), 4000);
    }

    #[test]
    fn timed_lock_gives_up_while_held() {
        let m = Mutex::new(());
        let g = m.lock();
        std::thread::scope(|s| {
            s.spawn(|| {
                assert!(
                    m.try_lock_for(std::time::Duration::from_millis(5))
                        .is_none()
                );
                assert!(m.try_lock().is_none());
            });
        });
        assert!(m.is_locked());
        drop(g);
        assert!(
            m.try_lock_for(std::time::Duration::from_millis(5))
                .is_some()
        );
    }
}
