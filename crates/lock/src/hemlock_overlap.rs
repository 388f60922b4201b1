//! Hemlock with the Overlap optimisation: Dice & Kogan, "Hemlock: Compact and Scalable Mutual
//! Exclusion" (2021), appendix A, listing 3, with CTR (waiters poll with CAS) and the listing-6
//! tail check. The contended `unlock` no longer waits for the successor's acknowledgement after
//! the hand-over; it waits *before* it, for the previous hand-over's acknowledgement (the Grant
//! must be empty before it is reused), and `lock` of a lock `L` first waits while the caller's
//! Grant still holds `L` from its previous unlock of `L` (else a new successor of ours would
//! mistake that residual address for a fresh hand-over: a safety failure).
//!
//! Guarantees: FIFO, starvation-free, one-word lock body (8 bytes, all-zero when unlocked). Per
//! thread: one 128-byte Grant, separate from [`Hemlock`](crate::Hemlock)'s (a residual address
//! left by an Overlap unlock must not meet a plain-Hemlock hand-over on the same Grant).
//!
//! Grant lifetime: a successor may clear the Grant *after* its owner returned from `unlock`, and
//! so after the owner's thread exited. The paper waits for the Grant to empty before reclaiming
//! a thread; we never free a Grant instead, so a tardy successor always writes valid memory.
//! An exited thread's Overlap Grant goes to a pool of its own (`reclaim.rs`) and is reused by
//! a later thread's Overlap locks only, residual hand-over and all: that is the state of any
//! thread's Grant between its unlocks, which `lock` and `unlock` above already wait out. So the
//! Grants held grow with the live threads, not with the threads ever created. No steady-state
//! lock operation allocates.

#[cfg(loom)]
use crate::hemlock::leak_grant;
use crate::hemlock::{Grant, TAGS, await_ack, await_grant, hand_over};
use crate::stats::{StatKind, record_acquire};
use crate::sync::{AtomicPtr, Ordering};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex};
use core::marker::PhantomData;
use core::ptr;
use std::cell::Cell;

#[cfg(not(loom))]
std::thread_local! {
    static OVERLAP_GRANT: Cell<*const Grant> = const { Cell::new(ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static OVERLAP_GRANT: Cell<*const Grant> = Cell::new(ptr::null());
}

/// Free Overlap Grants, given back by exited threads.
#[cfg(not(loom))]
static FREE_OVERLAP_GRANTS: crate::hemlock::GrantPool = crate::hemlock::GrantPool::new();

/// Gives the calling thread's Overlap Grant back, at its exit (see the module documentation).
#[cfg(not(loom))]
pub(crate) fn give_back_thread_grant() {
    let g = OVERLAP_GRANT.with(|c| c.replace(ptr::null()));
    if !g.is_null() {
        FREE_OVERLAP_GRANTS.give(g);
    }
}

/// The calling thread's Overlap Grant (never freed, so valid forever).
#[inline]
fn overlap_grant() -> &'static Grant {
    let g = OVERLAP_GRANT.with(|c| {
        let g = c.get();
        if !g.is_null() {
            return g;
        }
        #[cfg(not(loom))]
        let g = FREE_OVERLAP_GRANTS.take();
        #[cfg(loom)]
        let g = leak_grant();
        // As in `self_grant`: a re-entered first use may have set one up already.
        let already = c.get();
        if !already.is_null() {
            #[cfg(not(loom))]
            FREE_OVERLAP_GRANTS.give(g);
            return already;
        }
        // Set before registering (see `self_grant`).
        c.set(g);
        crate::reclaim::register_thread();
        g
    });
    // SAFETY: Grants from `leak_grant` are never freed.
    unsafe { &*g }
}

/// Hemlock with the Overlap optimisation (appendix A).
///
/// ```
/// use welltempered_lock::{HemlockOverlap, HemlockOverlapPark};
///
/// let m = lock_api::Mutex::<HemlockOverlap, _>::new(1);
/// let p = lock_api::Mutex::<HemlockOverlapPark, _>::new(2);
/// assert_eq!(*m.lock() + *p.lock(), 3);
/// ```
pub struct HemlockOverlap<W: Wait = Spin> {
    tail: AtomicPtr<Grant>,
    _wait: PhantomData<fn() -> W>,
}

/// [`HemlockOverlap`] with spin-then-park waiting.
pub type HemlockOverlapPark = HemlockOverlap<SpinThenPark>;

impl<W: Wait> Default for HemlockOverlap<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for HemlockOverlap<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HemlockOverlap")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> HemlockOverlap<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        HemlockOverlap {
            tail: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        HemlockOverlap {
            tail: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    #[inline]
    fn addr(&self) -> usize {
        self as *const Self as usize
    }

    /// Acquires the lock, waiting in FIFO order behind earlier arrivals.
    #[inline]
    pub fn lock(&self) {
        let me = overlap_grant();
        let l = self.addr();
        // Listing 3 line 6: a residual hand-over of this very lock must be collected first.
        if me.grant.load(Ordering::Acquire) & !TAGS == l {
            await_ack::<W>(me);
        }
        let me_ptr = me as *const Grant as *mut Grant;
        // AcqRel: Acquire pairs with the Release CAS of an uncontended unlock; Release publishes
        // our Grant to the successor that will find it in the tail.
        let pred = self.tail.swap(me_ptr, Ordering::AcqRel);
        if pred.is_null() {
            record_acquire(StatKind::HemlockOverlap, false);
            return;
        }
        // SAFETY: Overlap Grants are leaked, never freed.
        let pred = unsafe { &*pred };
        await_grant::<W>(pred, l);
        record_acquire(StatKind::HemlockOverlap, true);
    }

    /// Acquires the lock if it is free; never waits.
    ///
    /// No residual check is needed: a residual address of this lock in our Grant means its
    /// successor has not acknowledged yet, so that successor still heads the queue and the tail
    /// is not null.
    #[inline]
    pub fn try_lock(&self) -> bool {
        let me = overlap_grant() as *const Grant as *mut Grant;
        // AcqRel: Acquire pairs with the Release CAS of an uncontended unlock; Release
        // publishes our Grant (its initialisation) to the successor that will find it in the tail.
        let ok = self
            .tail
            .compare_exchange(ptr::null_mut(), me, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok();
        if ok {
            record_acquire(StatKind::HemlockOverlap, false);
        }
        ok
    }

    /// Releases the lock; a contended release returns without waiting for the successor's
    /// acknowledgement.
    ///
    /// # Safety
    ///
    /// The calling thread must hold this lock (acquired on this same thread and not yet
    /// released).
    #[inline]
    pub unsafe fn unlock(&self) {
        let me = overlap_grant();
        let me_ptr = me as *const Grant as *mut Grant;
        if self.tail.load(Ordering::Relaxed) == me_ptr
            && self
                .tail
                .compare_exchange(
                    me_ptr,
                    ptr::null_mut(),
                    Ordering::Release,
                    Ordering::Relaxed,
                )
                .is_ok()
        {
            return;
        }
        // Listing 3 line 16: the mailbox must be empty (previous hand-over collected).
        await_ack::<W>(me);
        hand_over::<W>(me, self.addr());
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

impl_raw_mutex!(HemlockOverlap);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::test_util::Counter;
    use std::cell::UnsafeCell;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&HemlockOverlap::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&HemlockOverlap::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn threads_exit_with_residual_grants() {
        // Short-lived threads: a hand-over's acknowledgement may come after the releaser exited.
        let l = HemlockOverlap::<Spin>::new();
        let c = Counter(UnsafeCell::new(0));
        let rounds = if cfg!(miri) { 2 } else { 20 };
        for _ in 0..rounds {
            std::thread::scope(|s| {
                for _ in 0..3 {
                    s.spawn(|| {
                        for _ in 0..3 {
                            l.lock();
                            // SAFETY: we hold the lock.
                            unsafe { *c.cell() += 1 };
                            // SAFETY: locked above on this thread.
                            unsafe { l.unlock() };
                        }
                    });
                }
            });
        }
        assert_eq!(c.0.into_inner(), rounds * 9);
    }
}
