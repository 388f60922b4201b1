//! Hemlock with Aggressive Hand-over (AH): Dice & Kogan, "Hemlock: Compact and Scalable Mutual
//! Exclusion" (2021), appendix B, listing 4, with the CTR optimisation (waiters poll with CAS).
//! `unlock` first stores the lock's address into the caller's Grant, optimistically assuming a
//! waiter, and only then CASes the tail from its Grant to null; if that CAS succeeds there was
//! no waiter and the Grant is reset to null, otherwise it waits for the successor's
//! acknowledgement. The contended hand-over is the very first store of `unlock`.
//!
//! Guarantees: as [`Hemlock`](crate::Hemlock): FIFO, starvation-free, one-word lock body
//! (8 bytes, all-zero when unlocked), the same per-thread Grant (shared with `Hemlock`: a
//! thread holding both kinds of lock multi-waits on one Grant, which the address-based protocol
//! keeps apart).
//!
//! # Use-after-free hazard
//!
//! After the speculative hand-over store, the successor may enter its critical section, release
//! the lock, and *free the memory holding it*, while the releaser has yet to execute its CAS on
//! the lock's tail: a write to freed memory. This is the pattern of a reference count protected
//! by the lock itself (the last user frees the object, lock included, right after unlocking; the
//! paper's scenario, also glibc bug 13690). Whenever a Grant holds a lock address, that lock is
//! guaranteed alive only while its holder is in `unlock` — AH breaks that guarantee for the
//! tail, the other forms touch only Grants after the hand-over.
//!
//! It cannot arise when the lock outlives every `unlock` call on it: a `static` lock, a lock in
//! type-stable or garbage-collected/RCU-protected memory, or any lock used through
//! `lock_api::Mutex` from safe Rust (the guard borrows the mutex, so the mutex cannot be dropped
//! until the guard's `unlock` has returned; freeing it from the successor would need `unsafe`
//! code that violates that borrow). Do not put `HemlockAh` behind a C `pthread_mutex_t`, where
//! `unlock` followed by `free` by another thread is legal.

use crate::hemlock::{Grant, acquire, await_ack, hand_over, self_grant, try_acquire};
use crate::stats::StatKind;
use crate::sync::{AtomicPtr, Ordering};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex};
use core::marker::PhantomData;
use core::ptr;

/// Hemlock with Aggressive Hand-over (appendix B): see the module documentation for its
/// use-after-free hazard.
///
/// ```
/// use welltempered_lock::{HemlockAh, HemlockAhPark};
///
/// static M: lock_api::Mutex<HemlockAh, u32> = lock_api::Mutex::new(1);
/// let p = lock_api::Mutex::<HemlockAhPark, _>::new(2);
/// assert_eq!(*M.lock() + *p.lock(), 3);
/// ```
pub struct HemlockAh<W: Wait = Spin> {
    tail: AtomicPtr<Grant>,
    _wait: PhantomData<fn() -> W>,
}

/// [`HemlockAh`] with spin-then-park waiting.
pub type HemlockAhPark = HemlockAh<SpinThenPark>;

impl<W: Wait> Default for HemlockAh<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for HemlockAh<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HemlockAh")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> HemlockAh<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        HemlockAh {
            tail: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        HemlockAh {
            tail: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    #[inline]
    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    /// Acquires the lock, waiting in FIFO order behind earlier arrivals (Hemlock's entry code).
    #[inline]
    pub fn lock(&self) {
        acquire::<W>(&self.tail, self.addr(), StatKind::HemlockAh);
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        try_acquire(&self.tail, StatKind::HemlockAh)
    }

    /// Releases the lock: hands it over first, then checks for waiters.
    ///
    /// # Safety
    ///
    /// The calling thread must hold this lock (acquired on this same thread and not yet
    /// released), and the lock must stay allocated until this call returns even if another
    /// thread acquires and releases it meanwhile (see the module's use-after-free hazard).
    #[inline]
    pub unsafe fn unlock(&self) {
        let me_ptr = self_grant().cast_mut();
        // SAFETY: our own Grant, never freed.
        let me = unsafe { &*me_ptr };
        let l = self.addr();
        // Listing 4 line 12: the speculative hand-over.
        hand_over::<W>(me, l);
        // Release: our critical section happens-before the next uncontended acquisition.
        // (The hazard: the lock may already have passed to, and been freed by, a successor.)
        if self
            .tail
            .compare_exchange(
                me_ptr,
                ptr::null_mut(),
                Ordering::Release,
                Ordering::Relaxed,
            )
            .is_ok()
        {
            // No successor existed, so nobody waits for `l` on our Grant: withdraw it.
            me.grant.store(0, Ordering::Relaxed);
            return;
        }
        // A successor exists (or already came and went): wait for its acknowledgement.
        await_ack::<W>(me);
    }

    /// Whether some thread holds the lock (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        !self.tail.load(Ordering::Relaxed).is_null()
    }

    /// An opaque value that changes whenever a thread joins the queue (the tail pointer), for
    /// tests and diagnostics that must know a waiter has enqueued.
    #[inline]
    pub fn queue_probe(&self) -> usize {
        self.tail.load(Ordering::Relaxed) as usize
    }
}

impl_raw_mutex!(HemlockAh);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&HemlockAh::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&HemlockAh::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn uncontended_unlock_withdraws_grant() {
        let l = HemlockAh::<Spin>::new();
        assert!(l.try_lock());
        assert!(!l.try_lock());
        // SAFETY: locked above on this thread.
        unsafe { l.unlock() };
        // SAFETY: our own Grant.
        let g = unsafe { &*self_grant() };
        assert_eq!(g.grant.load(Ordering::Relaxed), 0);
        assert!(!l.is_locked());
    }
}
