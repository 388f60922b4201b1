//! parking_lot's type names: lock_api 0.4's generic types over this crate's raw locks, and
//! the `const fn` constructors for statics.

use crate::{RawFairMutex, RawMutex, RawRwLock, RawThreadId};

#[cfg(feature = "arc_lock")]
pub use crate::lock_api::{
    ArcMutexGuard, ArcReentrantMutexGuard, ArcRwLockReadGuard, ArcRwLockUpgradableReadGuard,
    ArcRwLockWriteGuard,
};

/// A mutual exclusion lock: lock_api's `Mutex` over [`RawMutex`] (welltempered's default mutex).
pub type Mutex<T> = lock_api::Mutex<RawMutex, T>;

/// A [`Mutex`] made by a `const fn`, for statics.
pub const fn const_mutex<T>(val: T) -> Mutex<T> {
    Mutex::const_new(<RawMutex as lock_api::RawMutex>::INIT, val)
}

/// The guard of a [`Mutex`].
pub type MutexGuard<'a, T> = lock_api::MutexGuard<'a, RawMutex, T>;

/// A [`MutexGuard`] mapped to a part of the protected data.
pub type MappedMutexGuard<'a, T> = lock_api::MappedMutexGuard<'a, RawMutex, T>;

/// A mutex whose every unlock is fair: lock_api's `Mutex` over [`RawFairMutex`].
pub type FairMutex<T> = lock_api::Mutex<RawFairMutex, T>;

/// A [`FairMutex`] made by a `const fn`, for statics.
pub const fn const_fair_mutex<T>(val: T) -> FairMutex<T> {
    FairMutex::const_new(<RawFairMutex as lock_api::RawMutex>::INIT, val)
}

/// The guard of a [`FairMutex`].
pub type FairMutexGuard<'a, T> = lock_api::MutexGuard<'a, RawFairMutex, T>;

/// A [`FairMutexGuard`] mapped to a part of the protected data.
pub type MappedFairMutexGuard<'a, T> = lock_api::MappedMutexGuard<'a, RawFairMutex, T>;

/// A reader-writer lock: lock_api's `RwLock` over [`RawRwLock`] (welltempered's phase-fair
/// lock).
pub type RwLock<T> = lock_api::RwLock<RawRwLock, T>;

/// A [`RwLock`] made by a `const fn`, for statics.
pub const fn const_rwlock<T>(val: T) -> RwLock<T> {
    RwLock::const_new(<RawRwLock as lock_api::RawRwLock>::INIT, val)
}

/// The guard of a read lock of a [`RwLock`].
pub type RwLockReadGuard<'a, T> = lock_api::RwLockReadGuard<'a, RawRwLock, T>;

/// The guard of a write lock of a [`RwLock`].
pub type RwLockWriteGuard<'a, T> = lock_api::RwLockWriteGuard<'a, RawRwLock, T>;

/// A [`RwLockReadGuard`] mapped to a part of the protected data.
pub type MappedRwLockReadGuard<'a, T> = lock_api::MappedRwLockReadGuard<'a, RawRwLock, T>;

/// A [`RwLockWriteGuard`] mapped to a part of the protected data.
pub type MappedRwLockWriteGuard<'a, T> = lock_api::MappedRwLockWriteGuard<'a, RawRwLock, T>;

/// The guard of an upgradable read lock of a [`RwLock`].
pub type RwLockUpgradableReadGuard<'a, T> = lock_api::RwLockUpgradableReadGuard<'a, RawRwLock, T>;

/// A mutex that the thread holding it may lock again: lock_api's `ReentrantMutex` over
/// [`RawMutex`] and [`RawThreadId`].
pub type ReentrantMutex<T> = lock_api::ReentrantMutex<RawMutex, RawThreadId, T>;

/// A [`ReentrantMutex`] made by a `const fn`, for statics.
pub const fn const_reentrant_mutex<T>(val: T) -> ReentrantMutex<T> {
    ReentrantMutex::const_new(
        <RawMutex as lock_api::RawMutex>::INIT,
        <RawThreadId as lock_api::GetThreadId>::INIT,
        val,
    )
}

/// The guard of a [`ReentrantMutex`].
pub type ReentrantMutexGuard<'a, T> = lock_api::ReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;

/// A [`ReentrantMutexGuard`] mapped to a part of the protected data.
pub type MappedReentrantMutexGuard<'a, T> =
    lock_api::MappedReentrantMutexGuard<'a, RawMutex, RawThreadId, T>;
