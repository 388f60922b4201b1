//! Progress guarantees as associated constants, so that generic code can require lock-freedom
//! at compile time (WTC's `WTC_LOCK_FREE` check).
//!
//! The constant describes the non-waiting operations (`try_send`, `try_recv`) of a channel
//! built with [`Wait::Spin`](crate::Wait::Spin); waking a sleeper under the other strategies
//! takes a mutex, and the blocking operations block by definition.
//!
//! ```
//! use welltempered_channel::{progress::require_lock_free, spsc};
//! fn pipeline_stage<S: welltempered_channel::progress::ProgressGuarantee>(_s: &S) {
//!     require_lock_free::<S>();
//! }
//! let (tx, _rx) = spsc::channel::<u32>();
//! pipeline_stage(&tx);
//! ```
//!
//! A general [`Sender`](crate::Sender) is not lock-free (a producer that stops while installing
//! a segment holds up the other producers), so requiring it fails to compile:
//!
//! ```compile_fail,E0080
//! use welltempered_channel::{progress::require_lock_free, Sender};
//! require_lock_free::<Sender<u32>>();
//! ```

/// How an operation makes progress when other threads stop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Progress {
    /// Every operation finishes in a bounded number of its own steps (the allocator aside).
    WaitFree,
    /// Some operation always finishes: a stopped thread holds up nobody.
    LockFree,
    /// A thread stopped at the wrong moment can hold up others.
    Blocking,
}

impl Progress {
    /// Whether the guarantee is at least lock-freedom.
    pub const fn is_lock_free(self) -> bool {
        matches!(self, Self::WaitFree | Self::LockFree)
    }
}

/// Implemented by every channel handle: its progress guarantee.
pub trait ProgressGuarantee {
    /// The guarantee of this handle's non-waiting operations.
    const PROGRESS: Progress;
}

/// Fails to compile (when instantiated) unless `C` is at least lock-free.
#[inline(always)]
pub const fn require_lock_free<C: ProgressGuarantee>() {
    const {
        assert!(
            C::PROGRESS.is_lock_free(),
            "this channel handle is not lock-free"
        )
    }
}
