//! parking_lot 0.12's public API on welltempered's locks, for `[patch.crates-io]`.
//!
//! A program that depends on parking_lot (directly or through its dependencies) runs on
//! welltempered's locks without a change to its source:
//!
//! ```toml
//! [patch.crates-io]
//! parking_lot = { path = "/path/to/welltempered/compat/parking_lot" }
//! ```
//!
//! The types are those of parking_lot 0.12 (<https://github.com/Amanieu/parking_lot>): lock_api
//! 0.4's generic `Mutex`, `RwLock` and `ReentrantMutex` over raw locks of this crate, which
//! forward to welltempered's:
//!
//! | parking_lot | here |
//! |---|---|
//! | [`Mutex`], [`FairMutex`] | the default `welltempered::Mutex` (a Fissile lock over a compact MCS queue); `FairMutex` unlocks with its fair unlock |
//! | [`RwLock`] | `welltempered::RwLock`, phase-fair (PF-T, Brandenburg and Anderson) |
//! | [`ReentrantMutex`] | lock_api's reentrant mutex over the default mutex |
//! | [`Condvar`] | a FIFO queue of waiters (see [`Condvar`]) |
//! | [`Once`] | a state word and a futex (see [`Once`]) |
//!
//! **What differs from parking_lot**, besides the algorithms:
//! - No recursive reads: `RwLock::read_recursive` and its `try_` and timed forms do not exist
//!   here (a program that calls them does not compile). A phase-fair lock admits no reader
//!   while a writer waits, so a thread that holds a read and reads again would wait for a writer
//!   that waits for it.
//! - The `deadlock_detection` feature is refused at compile time, with a message.
//! - `RwLock`'s fair unlocks and bumps are its ordinary ones: a phase-fair lock already hands
//!   over between phases.
//!
//! ```
//! use parking_lot::{Condvar, Mutex};
//! use std::sync::Arc;
//!
//! let pair = Arc::new((Mutex::new(false), Condvar::new()));
//! let other = Arc::clone(&pair);
//! let t = std::thread::spawn(move || {
//!     *other.0.lock() = true;
//!     other.1.notify_one();
//! });
//! let mut ready = pair.0.lock();
//! pair.1.wait_while(&mut ready, |ready| !*ready);
//! assert!(*ready);
//! drop(ready);
//! t.join().unwrap();
//! ```

#[cfg(feature = "deadlock_detection")]
compile_error!(
    "parking_lot's `deadlock_detection` feature is not available on welltempered's locks \
     (compat/parking_lot): build without the patch to use it"
);

mod condvar;
mod once;
mod raw_mutex;
mod raw_rwlock;
mod remutex;

pub use self::condvar::{Condvar, WaitTimeoutResult};
pub use self::once::{Once, OnceState};
pub use self::raw_mutex::{RawFairMutex, RawMutex};
pub use self::raw_rwlock::RawRwLock;
pub use self::remutex::RawThreadId;
pub use ::lock_api;

#[cfg(feature = "arc_lock")]
pub use self::lock_api::{
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
