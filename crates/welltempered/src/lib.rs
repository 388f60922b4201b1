//! welltempered: synchronisation primitives that fit the program they run in.
//!
//! - [`lock`]: Hemlock and its peers (MCS, CLH, ticket, TAS, TTAS, futex) behind `lock_api`,
//!   each FIFO lock also in a spin-then-park form, and the default [`Mutex`].
//! - [`channel`]: the channel whose implementation follows its topology.
//! - [`par`]: the OpenMP-style team runtime.
//!
//! ```
//! let counter = welltempered::lock::futex::WaitResult::Woken;
//! assert_eq!(counter, welltempered::lock::futex::WaitResult::Woken);
//! ```

pub use welltempered_channel as channel;
pub use welltempered_lock as lock;
pub use welltempered_par as par;

