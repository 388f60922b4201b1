//! welltempered: synchronisation primitives that fit the program they run in.
//!
//! - [`lock`]: Hemlock and its peers (MCS, CLH, ticket, TAS, TTAS, futex) behind `lock_api`,
//!   each FIFO lock also in a spin-then-park form, the default [`Mutex`] with its [`Condvar`],
//!   a [`ReentrantMutex`], and the phase-fair [`RwLock`] with upgradable reads.
//! - [`channel`]: the channel whose implementation follows its topology.
//! - [`par`]: the OpenMP-style team runtime.
//!
//! ```
//! use welltempered::Mutex;
//!
//! let counter = Mutex::new(0u64);
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..1000 {
//!                 *counter.lock() += 1;
//!             }
//!         });
//!     }
//! });
//! assert_eq!(counter.into_inner(), 4000);
//! ```
//!
//! Any lock of [`lock`] can also be chosen by name at run time:
//!
//! ```
//! use welltempered::lock::{LockKind, dyn_mutex};
//!
//! let kind: LockKind = "hemlock-park".parse().unwrap();
//! let m = dyn_mutex(kind, vec![1]);
//! m.lock().push(2);
//! assert_eq!(*m.lock(), [1, 2]);
//! assert!("no-such-lock".parse::<LockKind>().is_err());
//! ```

pub use welltempered_channel as channel;
pub use welltempered_lock as lock;
pub use welltempered_lock::{
    Condvar, MappedMutexGuard, MappedRwLockReadGuard, MappedRwLockWriteGuard, Mutex, MutexGuard,
    ReentrantMutex, ReentrantMutexGuard, RwLock, RwLockReadGuard, RwLockUpgradableReadGuard,
    RwLockWriteGuard, WaitTimeoutResult,
};
pub use welltempered_par as par;
