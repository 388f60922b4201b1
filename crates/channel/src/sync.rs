//! The primitives the channel is written against: atomics, a cell, a mutex and condition
//! variable, `Arc`, a spin hint and a yield, taken from `core`/`std` normally and from `loom`
//! under `RUSTFLAGS="--cfg loom"`, so the same algorithm text is what the model checker explores.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, fence,
};
#[cfg(loom)]
pub(crate) use loom::sync::{Arc, Condvar, Mutex, MutexGuard};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{
    AtomicBool, AtomicPtr, AtomicU32, AtomicU64, AtomicUsize, fence,
};
#[cfg(not(loom))]
pub(crate) use std::sync::{Arc, Condvar, Mutex, MutexGuard};

pub(crate) use core::sync::atomic::Ordering;

/// A cell whose accesses loom can track; a thin wrapper over `core::cell::UnsafeCell` otherwise.
#[cfg(not(loom))]
#[derive(Debug)]
pub(crate) struct UnsafeCell<T>(core::cell::UnsafeCell<T>);

#[cfg(not(loom))]
impl<T> UnsafeCell<T> {
    /// Runs `f` with a raw pointer for writing.
    #[inline(always)]
    pub(crate) fn with_mut<R>(&self, f: impl FnOnce(*mut T) -> R) -> R {
        f(self.0.get())
    }
}

#[cfg(loom)]
pub(crate) use loom::cell::UnsafeCell;

/// One iteration of a busy-wait loop. Under loom this yields to the model's scheduler, which
/// is what makes spin loops explorable at all.
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

/// Exponential backoff for the short waits inside an operation: crossbeam's `Backoff`, or a
/// plain yield to the model's scheduler under loom.
pub(crate) struct Backoff {
    #[cfg(not(loom))]
    inner: crossbeam_utils::Backoff,
}

impl Backoff {
    /// A fresh backoff.
    #[inline]
    pub(crate) fn new() -> Self {
        Self {
            #[cfg(not(loom))]
            inner: crossbeam_utils::Backoff::new(),
        }
    }

    /// Backs off after a lost race (another thread made progress).
    #[inline]
    pub(crate) fn spin(&self) {
        #[cfg(not(loom))]
        self.inner.spin();
        #[cfg(loom)]
        loom::thread::yield_now();
    }

    /// Waits for another thread to finish a step (it may be descheduled: yields after a while).
    #[inline]
    pub(crate) fn snooze(&self) {
        #[cfg(not(loom))]
        self.inner.snooze();
        #[cfg(loom)]
        loom::thread::yield_now();
    }
}
