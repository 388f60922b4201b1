//! parking_lot's `RawRwLock` as a lock_api 0.4 raw reader-writer lock over welltempered's
//! phase-fair one.
//!
//! **Algorithm.** welltempered's `RawRwLock`: Brandenburg and Anderson's PF-T lock
//! ("Spin-Based Reader-Writer Synchronization for Multiprocessor Real-Time Systems",
//! Real-Time Systems 46(1), 2010, <https://doi.org/10.1007/s11241-010-9097-2>), its writers
//! (and upgradable readers) ordered by the default mutex, with upgrades, downgrades and timed
//! forms. This file adapts lock_api 0.5's guard-passing methods to lock_api 0.4's: every guard
//! of welltempered's lock is the zero-sized `GuardSend`, made again where lock_api 0.4 asks
//! for a release.
//!
//! **Guarantees.** Phase-fair: reader and writer phases alternate while both wait, so neither
//! kind starves. Not provided: parking_lot's recursive reads (`RawRwLockRecursive`), which a
//! phase-fair lock cannot grant while a writer waits without deadlocking the thread that
//! already reads (see the crate's documentation). Fair unlocks are the ordinary ones.

use crate::raw_mutex::Marker;
use std::time::{Duration, Instant};
use welltempered_lock::lock_api as api05;

type Inner = welltempered_lock::RawRwLock;

/// A fresh guard of welltempered's lock, standing for one that lock_api 0.4 does not pass.
const fn held() -> api05::GuardSend {
    api05::GuardSend::new()
}

/// The raw lock of [`crate::RwLock`]: welltempered's phase-fair reader-writer lock.
#[derive(Debug)]
#[repr(transparent)]
pub struct RawRwLock(Inner);

// SAFETY: every method forwards to welltempered's `RawRwLock`, which upholds lock_api 0.5's
// contract (readers or one writer); its guards are zero-sized `GuardSend`s with no state, so
// dropping one on acquisition and making one on release changes nothing. Each release here is
// reached only through lock_api 0.4's contract that the matching lock is held.
unsafe impl lock_api::RawRwLock for RawRwLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawRwLock(<Inner as api05::RawRwLock>::INIT);
    type GuardMarker = Marker;

    #[inline]
    fn lock_shared(&self) {
        let _held = api05::RawRwLock::lock_shared(&self.0);
    }

    #[inline]
    fn try_lock_shared(&self) -> bool {
        api05::RawRwLock::try_lock_shared(&self.0).is_some()
    }

    #[inline]
    unsafe fn unlock_shared(&self) {
        // SAFETY: lock_api's contract: a read lock is held.
        unsafe { api05::RawRwLock::unlock_shared(&self.0, held()) }
    }

    #[inline]
    fn lock_exclusive(&self) {
        let _held = api05::RawRwLock::lock_exclusive(&self.0);
    }

    #[inline]
    fn try_lock_exclusive(&self) -> bool {
        api05::RawRwLock::try_lock_exclusive(&self.0).is_some()
    }

    #[inline]
    unsafe fn unlock_exclusive(&self) {
        // SAFETY: lock_api's contract: the write lock is held.
        unsafe { api05::RawRwLock::unlock_exclusive(&self.0, held()) }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        api05::RawRwLock::is_locked(&self.0)
    }

    #[inline]
    fn is_locked_exclusive(&self) -> bool {
        api05::RawRwLock::is_locked_exclusive(&self.0)
    }
}

// SAFETY: as for `RawRwLock`: the fair releases forward to welltempered's, which release what
// the plain ones do.
unsafe impl lock_api::RawRwLockFair for RawRwLock {
    #[inline]
    unsafe fn unlock_shared_fair(&self) {
        // SAFETY: lock_api's contract: a read lock is held.
        unsafe { api05::RawRwLockFair::unlock_shared_fair(&self.0, held()) }
    }

    #[inline]
    unsafe fn unlock_exclusive_fair(&self) {
        // SAFETY: lock_api's contract: the write lock is held.
        unsafe { api05::RawRwLockFair::unlock_exclusive_fair(&self.0, held()) }
    }
}

// SAFETY: as for `RawRwLock`: welltempered's downgrade turns the write lock into a read lock
// without a moment unlocked.
unsafe impl lock_api::RawRwLockDowngrade for RawRwLock {
    #[inline]
    unsafe fn downgrade(&self) {
        // SAFETY: lock_api's contract: the write lock is held.
        let _read = unsafe { api05::RawRwLockDowngrade::downgrade(&self.0, held()) };
    }
}

// SAFETY: as for `RawRwLock`: a timed acquisition succeeds only when welltempered's does.
unsafe impl lock_api::RawRwLockTimed for RawRwLock {
    type Duration = Duration;
    type Instant = Instant;

    #[inline]
    fn try_lock_shared_for(&self, timeout: Duration) -> bool {
        api05::RawRwLockTimed::try_lock_shared_for(&self.0, timeout).is_some()
    }

    #[inline]
    fn try_lock_shared_until(&self, timeout: Instant) -> bool {
        api05::RawRwLockTimed::try_lock_shared_until(&self.0, timeout).is_some()
    }

    #[inline]
    fn try_lock_exclusive_for(&self, timeout: Duration) -> bool {
        api05::RawRwLockTimed::try_lock_exclusive_for(&self.0, timeout).is_some()
    }

    #[inline]
    fn try_lock_exclusive_until(&self, timeout: Instant) -> bool {
        api05::RawRwLockTimed::try_lock_exclusive_until(&self.0, timeout).is_some()
    }
}

// SAFETY: as for `RawRwLock`: an upgradable read excludes writers and other upgradable readers
// in welltempered's lock, and its upgrade waits for the readers inside.
unsafe impl lock_api::RawRwLockUpgrade for RawRwLock {
    #[inline]
    fn lock_upgradable(&self) {
        let _held = api05::RawRwLockUpgrade::lock_upgradable(&self.0);
    }

    #[inline]
    fn try_lock_upgradable(&self) -> bool {
        api05::RawRwLockUpgrade::try_lock_upgradable(&self.0).is_some()
    }

    #[inline]
    unsafe fn unlock_upgradable(&self) {
        // SAFETY: lock_api's contract: an upgradable read is held.
        unsafe { api05::RawRwLockUpgrade::unlock_upgradable(&self.0, held()) }
    }

    #[inline]
    unsafe fn upgrade(&self) {
        // SAFETY: lock_api's contract: an upgradable read is held.
        let _write = unsafe { api05::RawRwLockUpgrade::upgrade(&self.0, held()) };
    }

    #[inline]
    unsafe fn try_upgrade(&self) -> bool {
        // SAFETY: lock_api's contract: an upgradable read is held.
        unsafe { api05::RawRwLockUpgrade::try_upgrade(&self.0, held()) }.is_ok()
    }
}

// SAFETY: as for `RawRwLockFair`.
unsafe impl lock_api::RawRwLockUpgradeFair for RawRwLock {
    #[inline]
    unsafe fn unlock_upgradable_fair(&self) {
        // SAFETY: lock_api's contract: an upgradable read is held.
        unsafe { api05::RawRwLockUpgradeFair::unlock_upgradable_fair(&self.0, held()) }
    }
}

// SAFETY: as for `RawRwLockDowngrade`: each change keeps the lock held throughout.
unsafe impl lock_api::RawRwLockUpgradeDowngrade for RawRwLock {
    #[inline]
    unsafe fn downgrade_upgradable(&self) {
        // SAFETY: lock_api's contract: an upgradable read is held.
        let _read =
            unsafe { api05::RawRwLockUpgradeDowngrade::downgrade_upgradable(&self.0, held()) };
    }

    #[inline]
    unsafe fn downgrade_to_upgradable(&self) {
        // SAFETY: lock_api's contract: the write lock is held.
        let _upgradable =
            unsafe { api05::RawRwLockUpgradeDowngrade::downgrade_to_upgradable(&self.0, held()) };
    }
}

// SAFETY: as for `RawRwLockTimed`; a failed timed upgrade leaves the upgradable read held, as
// welltempered's does.
unsafe impl lock_api::RawRwLockUpgradeTimed for RawRwLock {
    #[inline]
    fn try_lock_upgradable_for(&self, timeout: Duration) -> bool {
        api05::RawRwLockUpgradeTimed::try_lock_upgradable_for(&self.0, timeout).is_some()
    }

    #[inline]
    fn try_lock_upgradable_until(&self, timeout: Instant) -> bool {
        api05::RawRwLockUpgradeTimed::try_lock_upgradable_until(&self.0, timeout).is_some()
    }

    #[inline]
    unsafe fn try_upgrade_for(&self, timeout: Duration) -> bool {
        // SAFETY: lock_api's contract: an upgradable read is held.
        unsafe { api05::RawRwLockUpgradeTimed::try_upgrade_for(&self.0, held(), timeout) }.is_ok()
    }

    #[inline]
    unsafe fn try_upgrade_until(&self, timeout: Instant) -> bool {
        // SAFETY: lock_api's contract: an upgradable read is held.
        unsafe { api05::RawRwLockUpgradeTimed::try_upgrade_until(&self.0, held(), timeout) }.is_ok()
    }
}

#[cfg(test)]
mod tests {
    use crate::{RwLock, RwLockUpgradableReadGuard, RwLockWriteGuard, const_rwlock};
    use std::time::Duration;

    #[test]
    fn readers_share_and_writers_exclude() {
        let l = RwLock::new(0);
        let r1 = l.read();
        let r2 = l.try_read().expect("readers share");
        assert!(l.try_write().is_none());
        assert!(l.try_write_for(Duration::from_millis(2)).is_none());
        drop((r1, r2));
        let w = l.write();
        assert!(l.try_read().is_none());
        assert!(l.is_locked_exclusive());
        drop(w);
        assert!(!l.is_locked());
    }

    #[test]
    fn upgrade_and_downgrade_round_trip() {
        static L: RwLock<u32> = const_rwlock(1);
        let u = L.upgradable_read();
        assert!(L.try_upgradable_read().is_none());
        let r = L.try_read().expect("an upgradable read admits readers");
        drop(r);
        let mut w = RwLockUpgradableReadGuard::upgrade(u);
        *w += 1;
        let u = RwLockWriteGuard::downgrade_to_upgradable(w);
        assert_eq!(*u, 2);
        let r = RwLockUpgradableReadGuard::downgrade(u);
        assert!(L.try_upgradable_read().is_some());
        drop(r);
    }

    #[test]
    fn writers_count_under_contention() {
        let l = RwLock::new(0u64);
        std::thread::scope(|s| {
            for t in 0..4 {
                let l = &l;
                s.spawn(move || {
                    for i in 0..1000 {
                        if (i + t) % 3 == 0 {
                            let _r = l.read();
                        } else {
                            *l.write() += 1;
                        }
                    }
                });
            }
        });
        let expected: u64 = (0..4u64)
            .map(|t| (0..1000u64).filter(|i| (i + t) % 3 != 0).count() as u64)
            .sum();
        assert_eq!(l.into_inner(), expected);
    }
}
