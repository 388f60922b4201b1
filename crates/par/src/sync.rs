//! The primitives the barriers and the chunk dispenser are written against: atomics and a spin
//! hint from `core`/`std` normally and from `loom` under `RUSTFLAGS="--cfg loom"`, so the same
//! algorithm text is what the model checker explores (the pattern of `welltempered-lock`).

#[cfg(not(loom))]
pub(crate) use core::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize};
#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize};

pub(crate) use core::sync::atomic::Ordering;

/// One iteration of a busy-wait loop. Under loom this yields to the model's scheduler.
#[inline(always)]
pub(crate) fn spin_loop() {
    #[cfg(not(loom))]
    core::hint::spin_loop();
    #[cfg(loom)]
    loom::hint::spin_loop();
}

/// Gives the rest of this time slice to another runnable thread.
#[inline]
pub(crate) fn yield_now() {
    #[cfg(not(loom))]
    std::thread::yield_now();
    #[cfg(loom)]
    loom::thread::yield_now();
}
