//! The `lock_api` traits of [`RawRwLock`](super::RawRwLock): each forwards to the inherent
//! operation of the same name in the parent module, where the protocol and its orderings are
//! documented.

use super::RawRwLock;

/// `Instant::now() + timeout`, or `None` when that is beyond what an `Instant` can hold
/// (wait forever).
fn deadline_after(timeout: std::time::Duration) -> Option<std::time::Instant> {
    std::time::Instant::now().checked_add(timeout)
}

// SAFETY: a writer enters only after its `fetch_xor` set PRES, which makes every later reader
// wait, and after `rout` counts every reader that `rin` counted before it; readers enter only
// with PRES clear or WBITS changed from what they saw, i.e. after the writer cleared PRES. At
// most one writer sets PRES (the writers' mutex serialises writers; each waits for the previous
// one's PRES to clear). Acquire/release pairs are documented at each operation. Guards carry no thread
// state, so they may be sent.
unsafe impl lock_api::RawRwLock for RawRwLock {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = Self::new();
    type SharedGuard = lock_api::GuardSend;
    type ExclusiveGuard = lock_api::GuardSend;

    #[inline]
    fn lock_shared(&self) -> Self::SharedGuard {
        RawRwLock::lock_shared(self);
        lock_api::GuardSend::new()
    }

    #[inline]
    fn try_lock_shared(&self) -> Option<Self::SharedGuard> {
        RawRwLock::try_lock_shared(self).then(lock_api::GuardSend::new)
    }

    #[inline]
    unsafe fn unlock_shared(&self, _guard: Self::SharedGuard) {
        // SAFETY: the guard proves a shared lock is held (the trait's contract).
        unsafe { RawRwLock::unlock_shared(self) }
    }

    #[inline]
    fn lock_exclusive(&self) -> Self::ExclusiveGuard {
        RawRwLock::lock_exclusive(self);
        lock_api::GuardSend::new()
    }

    #[inline]
    fn try_lock_exclusive(&self) -> Option<Self::ExclusiveGuard> {
        RawRwLock::try_lock_exclusive(self).then(lock_api::GuardSend::new)
    }

    #[inline]
    unsafe fn unlock_exclusive(&self, _guard: Self::ExclusiveGuard) {
        // SAFETY: the guard proves the exclusive lock is held (the trait's contract).
        unsafe { RawRwLock::unlock_exclusive(self) }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        RawRwLock::is_locked(self)
    }

    #[inline]
    fn is_locked_exclusive(&self) -> bool {
        RawRwLock::is_locked_exclusive(self)
    }
}

// SAFETY: readers are phase-fair on every unlock; the fair forms also hand the writers' turn to
// the first queued writer. Each releases exactly what the plain form does.
unsafe impl lock_api::RawRwLockFair for RawRwLock {
    #[inline]
    unsafe fn unlock_shared_fair(&self, _guard: Self::SharedGuard) {
        // SAFETY: the guard proves a shared lock is held (the trait's contract).
        unsafe { RawRwLock::unlock_shared(self) }
    }

    #[inline]
    unsafe fn unlock_exclusive_fair(&self, _guard: Self::ExclusiveGuard) {
        // SAFETY: the guard proves the exclusive lock is held (the trait's contract).
        unsafe { RawRwLock::unlock_exclusive_fair(self) }
    }
}

// SAFETY: `downgrade` counts the writer in as a reader before it clears PRES, so it holds a
// shared lock throughout.
unsafe impl lock_api::RawRwLockDowngrade for RawRwLock {
    #[inline]
    unsafe fn downgrade(&self, _guard: Self::ExclusiveGuard) -> Self::SharedGuard {
        // SAFETY: the guard proves the exclusive lock is held (the trait's contract).
        unsafe { RawRwLock::downgrade(self) };
        lock_api::GuardSend::new()
    }
}

// SAFETY: timed reads are phase-fair reads that withdraw on a timeout; timed writes and
// upgradable reads succeed only through the try forms.
unsafe impl lock_api::RawRwLockTimed for RawRwLock {
    type Duration = std::time::Duration;
    type Instant = std::time::Instant;

    fn try_lock_shared_for(&self, timeout: Self::Duration) -> Option<Self::SharedGuard> {
        match deadline_after(timeout) {
            Some(d) => <Self as lock_api::RawRwLockTimed>::try_lock_shared_until(self, d),
            None => Some(<Self as lock_api::RawRwLock>::lock_shared(self)),
        }
    }

    fn try_lock_shared_until(&self, deadline: Self::Instant) -> Option<Self::SharedGuard> {
        RawRwLock::try_lock_shared_until(self, deadline).then(lock_api::GuardSend::new)
    }

    fn try_lock_exclusive_for(&self, timeout: Self::Duration) -> Option<Self::ExclusiveGuard> {
        match deadline_after(timeout) {
            Some(d) => <Self as lock_api::RawRwLockTimed>::try_lock_exclusive_until(self, d),
            None => Some(<Self as lock_api::RawRwLock>::lock_exclusive(self)),
        }
    }

    fn try_lock_exclusive_until(&self, deadline: Self::Instant) -> Option<Self::ExclusiveGuard> {
        RawRwLock::try_lock_exclusive_until(self, deadline).then(lock_api::GuardSend::new)
    }
}

// SAFETY: an upgradable read holds the writers' turn (excluding writers and other upgradable
// reads) and a reader count (excluding nothing else); upgrading is a writer's entry with that
// turn, and the forms below move between the three states without a moment unheld.
unsafe impl lock_api::RawRwLockUpgrade for RawRwLock {
    type UpgradableGuard = lock_api::GuardSend;

    #[inline]
    fn lock_upgradable(&self) -> Self::UpgradableGuard {
        RawRwLock::lock_upgradable(self);
        lock_api::GuardSend::new()
    }

    #[inline]
    fn try_lock_upgradable(&self) -> Option<Self::UpgradableGuard> {
        RawRwLock::try_lock_upgradable(self).then(lock_api::GuardSend::new)
    }

    #[inline]
    unsafe fn unlock_upgradable(&self, _guard: Self::UpgradableGuard) {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        unsafe { RawRwLock::unlock_upgradable(self) }
    }

    #[inline]
    unsafe fn upgrade(&self, _guard: Self::UpgradableGuard) -> Self::ExclusiveGuard {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        unsafe { RawRwLock::upgrade(self) };
        lock_api::GuardSend::new()
    }

    #[inline]
    unsafe fn try_upgrade(
        &self,
        guard: Self::UpgradableGuard,
    ) -> Result<Self::ExclusiveGuard, Self::UpgradableGuard> {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        if unsafe { RawRwLock::try_upgrade(self) } {
            Ok(lock_api::GuardSend::new())
        } else {
            Err(guard)
        }
    }
}

// SAFETY: as `RawRwLockFair`: the fair form releases what the plain one does.
unsafe impl lock_api::RawRwLockUpgradeFair for RawRwLock {
    #[inline]
    unsafe fn unlock_upgradable_fair(&self, _guard: Self::UpgradableGuard) {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        unsafe { RawRwLock::unlock_upgradable_fair(self) }
    }
}

// SAFETY: see the inherent `downgrade_upgradable` and `downgrade_to_upgradable`: each keeps a
// reader count (and, for the latter, the writers' turn) across the change.
unsafe impl lock_api::RawRwLockUpgradeDowngrade for RawRwLock {
    #[inline]
    unsafe fn downgrade_upgradable(&self, _guard: Self::UpgradableGuard) -> Self::SharedGuard {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        unsafe { RawRwLock::downgrade_upgradable(self) };
        lock_api::GuardSend::new()
    }

    #[inline]
    unsafe fn downgrade_to_upgradable(
        &self,
        _guard: Self::ExclusiveGuard,
    ) -> Self::UpgradableGuard {
        // SAFETY: the guard proves the exclusive lock is held (the trait's contract).
        unsafe { RawRwLock::downgrade_to_upgradable(self) };
        lock_api::GuardSend::new()
    }
}

// SAFETY: timed upgradable reads and timed upgrades succeed only through `try_lock_upgradable`
// and `try_upgrade`; a failed one holds what it held before.
unsafe impl lock_api::RawRwLockUpgradeTimed for RawRwLock {
    fn try_lock_upgradable_for(&self, timeout: Self::Duration) -> Option<Self::UpgradableGuard> {
        match deadline_after(timeout) {
            Some(d) => {
                <Self as lock_api::RawRwLockUpgradeTimed>::try_lock_upgradable_until(self, d)
            }
            None => Some(<Self as lock_api::RawRwLockUpgrade>::lock_upgradable(self)),
        }
    }

    fn try_lock_upgradable_until(&self, deadline: Self::Instant) -> Option<Self::UpgradableGuard> {
        RawRwLock::try_lock_upgradable_until(self, deadline).then(lock_api::GuardSend::new)
    }

    unsafe fn try_upgrade_for(
        &self,
        guard: Self::UpgradableGuard,
        timeout: Self::Duration,
    ) -> Result<Self::ExclusiveGuard, Self::UpgradableGuard> {
        match deadline_after(timeout) {
            // SAFETY: forwarded from the caller.
            Some(d) => unsafe {
                <Self as lock_api::RawRwLockUpgradeTimed>::try_upgrade_until(self, guard, d)
            },
            // SAFETY: forwarded from the caller.
            None => Ok(unsafe { <Self as lock_api::RawRwLockUpgrade>::upgrade(self, guard) }),
        }
    }

    unsafe fn try_upgrade_until(
        &self,
        guard: Self::UpgradableGuard,
        deadline: Self::Instant,
    ) -> Result<Self::ExclusiveGuard, Self::UpgradableGuard> {
        // SAFETY: the guard proves an upgradable read is held (the trait's contract).
        if unsafe { RawRwLock::try_upgrade_until(self, deadline) } {
            Ok(lock_api::GuardSend::new())
        } else {
            Err(guard)
        }
    }
}
