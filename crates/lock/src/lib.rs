//! Locks led by Hemlock (Dice & Kogan), with the peers of the Hemlock paper and of omp0's lock
//! study, all behind [`lock_api`].
//!
//! ```
//! use welltempered_lock::Mutex;
//!
//! let m = Mutex::new(0u64);
//! std::thread::scope(|s| {
//!     for _ in 0..4 {
//!         s.spawn(|| {
//!             for _ in 0..1000 {
//!                 *m.lock() += 1;
//!             }
//!         });
//!     }
//! });
//! assert_eq!(*m.lock(), 4000);
//! ```
//!
//! # The locks
//!
//! | type | algorithm | FIFO | waiting | body |
//! |---|---|---|---|---|
//! | [`Hemlock`], [`HemlockPark`] | Hemlock, CTR + listing-6 hand-over (Dice & Kogan §2) | yes | spin / spin-then-park | 8 bytes |
//! | [`HemlockOverlap`], [`HemlockOverlapPark`] | Hemlock with the Overlap optimisation (appendix A) | yes | spin / spin-then-park | 8 bytes |
//! | [`HemlockAh`], [`HemlockAhPark`] | Hemlock with Aggressive Hand-over (appendix B; see its use-after-free hazard) | yes | spin / spin-then-park | 8 bytes |
//! | [`Mcs`], [`McsPark`] | MCS, head kept in the lock body | yes | spin / spin-then-park | 16 bytes |
//! | [`McsCompact`] | MCS in its original form: the caller keeps its node ([`McsCompactToken`]); the tail a 32-bit node number | yes | spin-then-park (or any [`Wait`]) | 4 bytes |
//! | [`Clh`], [`ClhPark`] | CLH, null tail for "unlocked" (no dummy node) | yes | spin / spin-then-park | 16 bytes |
//! | [`Ticket`], [`TicketPark`] | ticket lock | yes | spin / spin-then-park | 8 bytes |
//! | [`Tas`], [`Ttas`], [`TtasYield`] | test-and-set, test-and-test-and-set (with yield) | no | spin | 1 byte |
//! | [`Futex`] | Drepper's 3-state futex mutex, adaptive spin budget | no | spin-then-sleep | 8 bytes |
//! | [`TwoPhase`] | two-phase waiting: test-and-set with backoff for a time window, then Drepper's sleep (libgomp's lock) | no | spin for a window, then sleep | 8 bytes |
//! | [`RawMutex`] (behind [`Mutex`]) | Fissile: barging over an [`McsCompact`] queue, bounded bypass | no | spin, yield, sleep | 8 bytes |
//!
//! # Beside the locks
//!
//! | type | what | source |
//! |---|---|---|
//! | [`Condvar`] (for [`Mutex`]), [`CondvarFor<R>`] (any raw lock) | condition variable: `wait`, `wait_while`, `wait_for`, `wait_until`, `notify_one`, `notify_all`; may wake spuriously; [`Condvar`]'s `notify_all` requeues the waiters onto the mutex (Linux) | std's futex condition variable; lock_api's `Condvar`; parking_lot's requeue |
//! | [`ReentrantMutex`] | a mutex its holder may lock again, over [`RawMutex`] | lock_api's `ReentrantMutex` |
//! | [`RwLock`] (over [`RawRwLock`]) | phase-fair reader-writer lock with upgradable reads, downgrades and timed forms; 16 bytes | Brandenburg & Anderson's PF-T lock, writers ordered by the default mutex |
//!
//! [`MutexGuard`], [`MappedMutexGuard`], [`ReentrantMutexGuard`], the [`RwLock`] guards
//! ([`RwLockReadGuard`], [`RwLockWriteGuard`], [`RwLockUpgradableReadGuard`] and their mapped
//! forms) and [`WaitTimeoutResult`] are
//! named here, and [`lock_api`] itself is re-exported, so a program needs no lock_api
//! dependency of its own. The default [`Mutex`] also has `try_lock_for`/`try_lock_until`
//! ([`lock_api::RawMutexTimed`]) and `unlock_fair` ([`lock_api::RawMutexFair`]: the waiting
//! head gets the next turn).
//!
//! ```
//! use std::time::Duration;
//! use welltempered_lock::Mutex;
//!
//! let m = Mutex::new(1);
//! let g = m.try_lock_for(Duration::from_millis(10)).expect("free");
//! assert!(m.try_lock_for(Duration::from_millis(1)).is_none(), "held");
//! lock_api::MutexGuard::unlock_fair(g);
//! ```
//!
//! Every lock body is all-zero when unlocked and fits in a glibc `pthread_mutex_t` (the
//! LD_PRELOAD library embeds them). [`LockKind`] names them all; [`DynRawMutex`] picks one at
//! run time. The `stats` feature counts acquisitions and multi-waiting on Hemlock Grants.
//!
//! # Why lock_api 0.5
//!
//! Every lock implements [`lock_api::RawMutex`] (and, but for the test-and-set family,
//! [`lock_api::RawMutexTimed`]), so
//! `lock_api::Mutex<Hemlock, T>` is the safe API users know from parking_lot. We build on
//! lock_api 0.5, the current release, rather than 0.4: its `RawMutex` has an associated
//! `Guard` type, the per-acquisition state that `lock` returns and `unlock` consumes, which also
//! decides whether a guard is `Send`. The queue locks use the zero-sized `GuardNoSend` (their
//! `unlock` works on the calling thread's Grant or queue node, so a guard must not move to
//! another thread; a `compile_fail` example on [`Hemlock`] proves it cannot), and the others
//! `GuardSend`. Keeping every guard zero-sized keeps the locks context-free: the C API of the
//! preload library, which has no guard to pass, unlocks with a fresh marker. lock_api 0.5
//! also requires Rust 1.95, the toolchain of this workspace.

pub(crate) mod sync;

pub mod futex;

mod clh;
mod condvar;
mod futex_mutex;
mod hemlock;
mod hemlock_ah;
mod hemlock_overlap;
mod kind;
mod mcs;
mod mcs_compact;
mod mutex;
mod reclaim;
#[cfg(not(loom))]
mod remutex;
mod rwlock;
mod stats;
mod tas;
mod ticket;
mod ttas;
mod two_phase;
mod wait;

#[cfg(all(test, not(loom)))]
mod test_util;

pub use clh::*;
pub use condvar::*;
pub use futex_mutex::*;
pub use hemlock::*;
pub use hemlock_ah::*;
pub use hemlock_overlap::*;
pub use kind::*;
/// lock_api, which every lock of this crate implements, for its traits and generic types.
pub use lock_api;
/// The result of a timed condition-variable wait.
pub use lock_api::WaitTimeoutResult;
pub use mcs::*;
pub use mcs_compact::*;
pub use mutex::*;
#[cfg(not(loom))]
pub use remutex::*;
pub use rwlock::*;
pub use stats::*;
pub use tas::*;
pub use ticket::*;
pub use ttas::*;
pub use two_phase::*;
pub use wait::*;
