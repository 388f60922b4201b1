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

pub(crate) mod sync;

pub mod futex;

mod clh;
mod futex_mutex;
mod hemlock;
mod hemlock_ah;
mod hemlock_overlap;
mod kind;
mod mcs;
mod mutex;
mod stats;
mod tas;
mod ticket;
mod ttas;
mod wait;

pub use clh::*;
pub use futex_mutex::*;
pub use hemlock::*;
pub use hemlock_ah::*;
pub use hemlock_overlap::*;
pub use kind::*;
pub use mcs::*;
pub use mutex::*;
pub use stats::*;
pub use tas::*;
pub use ticket::*;
pub use ttas::*;
pub use wait::*;
