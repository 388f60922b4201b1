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

// Under loom only the condition variable's waiting protocol is built, for its model
// (`tests/loom_condvar.rs`): welltempered's raw locks have no loom form of their lock_api impls.
#[cfg(loom)]
#[doc(hidden)]
pub mod wait_queue;
#[cfg(not(loom))]
mod wait_queue;

#[cfg(not(loom))]
mod condvar;
#[cfg(not(loom))]
mod once;
#[cfg(not(loom))]
mod raw_mutex;
#[cfg(not(loom))]
mod raw_rwlock;
#[cfg(not(loom))]
mod remutex;
#[cfg(not(loom))]
mod types;

#[cfg(not(loom))]
pub use self::condvar::{Condvar, WaitTimeoutResult};
#[cfg(not(loom))]
pub use self::once::{Once, OnceState};
#[cfg(not(loom))]
pub use self::raw_mutex::{RawFairMutex, RawMutex};
#[cfg(not(loom))]
pub use self::raw_rwlock::RawRwLock;
#[cfg(not(loom))]
pub use self::remutex::RawThreadId;
#[cfg(not(loom))]
pub use self::types::*;
pub use ::lock_api;
