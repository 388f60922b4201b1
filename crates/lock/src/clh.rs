//! CLH: Craig; Magnusson, Landin & Hagersten, "Queue locks on cache coherent multiprocessors"
//! (IPPS 1994), the implicit-queue lock: each waiter spins on its predecessor's node and, once
//! admitted, adopts that node as its own (nodes migrate between threads). The head (the owner's
//! node) is kept in the lock body, as in the Hemlock paper's benchmarks (section 5).
//!
//! Variant: classic CLH keeps a dummy node in an unlocked lock, which would need a constructor
//! and a destructor. Here, as in Hemlock and MCS, a null tail means "unlocked with an empty
//! queue": the first arrival finds no predecessor and owns the lock at once, and an uncontended
//! unlock CASes the tail from its node back to null (a CAS where classic CLH has a store) and
//! keeps its node. So the all-zero lock is valid and unlocked, and an unlocked lock owns no node.
//!
//! Guarantees: FIFO admission (in the order of the `swap` on the tail); local spinning; not
//! lock-free. Space: lock body = tail + head, 16 bytes, all-zero when unlocked; one 128-byte node
//! per lock held or waited on.
//!
//! Node lifetime: since nodes migrate, a node must not live in a thread's storage (freed at
//! thread exit while another thread still holds it). Nodes are the leaked, never-freed
//! queue nodes of [`Mcs`](crate::Mcs), with its per-thread cache and ABA-free global pool,
//! so no steady-state lock operation allocates. A thread that keeps giving its
//! node away (contended unlocks) and adopting its predecessor's (contended locks) ends with as
//! many nodes as it started with plus what it adopted: the surplus flows through the global pool.
//!
//! Park form ([`ClhPark`]): a waiter spins on its predecessor's node, then sleeps on that node's
//! state word after announcing itself in the node's sleeper count; the releaser stores GO and
//! wakes only if a sleeper announced itself. That wake may reach a node already adopted and
//! reused by the successor: nodes are never freed, so it is a harmless spurious wake-up.

use crate::mcs::{GO, QNode, WAIT, alloc_node, free_node};
use crate::stats::{StatKind, record_acquire};
use crate::sync::{AtomicPtr, Ordering};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex, notify};
use core::marker::PhantomData;
use core::ptr;

/// The CLH lock (null-tail variant, head in the lock body), generic over its waiting policy.
///
/// ```
/// use welltempered_lock::{Clh, ClhPark};
///
/// let m = lock_api::Mutex::<Clh, _>::new(1);
/// let p = lock_api::Mutex::<ClhPark, _>::new(2);
/// assert_eq!(*m.lock() + *p.lock(), 3);
/// ```
pub struct Clh<W: Wait = Spin> {
    tail: AtomicPtr<QNode>,
    head: AtomicPtr<QNode>,
    _wait: PhantomData<fn() -> W>,
}

/// [`Clh`] with spin-then-park waiting.
pub type ClhPark = Clh<SpinThenPark>;

impl<W: Wait> Default for Clh<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for Clh<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Clh")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> Clh<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Clh {
            tail: AtomicPtr::new(ptr::null_mut()),
            head: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        Clh {
            tail: AtomicPtr::new(ptr::null_mut()),
            head: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// Acquires the lock, waiting in FIFO order behind earlier arrivals.
    #[inline]
    pub fn lock(&self) {
        let n = alloc_node();
        n.state.store(WAIT, Ordering::Relaxed);
        let np = n as *const QNode as *mut QNode;
        // AcqRel: Release publishes `state = WAIT` to the successor that will spin on it;
        // Acquire pairs with the Release CAS of an uncontended unlock.
        let pred = self.tail.swap(np, Ordering::AcqRel);
        let contended = !pred.is_null();
        if contended {
            Self::wait_behind(pred);
        }
        // Relaxed: read only by the owner (us, or a later owner after a synchronising hand-over).
        self.head.store(np, Ordering::Relaxed);
        record_acquire(StatKind::Clh, contended);
    }

    /// The contended half of [`lock`](Self::lock): waits for `pred`'s hand-over, then adopts
    /// its node. Out of line (not `#[cold]`: under contention it is the path), so that the
    /// uncontended path saves no registers for it.
    #[inline(never)]
    fn wait_behind(pred: *mut QNode) {
        // SAFETY: nodes are never freed; `pred` is reserved for us until we adopt it.
        let pred: &'static QNode = unsafe { &*pred };
        // Acquire (in the closure): the releaser's critical section happens-before ours.
        W::wait_until(&pred.state, &pred.sleepers, || {
            pred.state.load(Ordering::Acquire) == GO
        });
        // Adopt the predecessor's node: nobody else will wait on it any more.
        free_node(pred);
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        if !self.tail.load(Ordering::Relaxed).is_null() {
            return false;
        }
        let n = alloc_node();
        n.state.store(WAIT, Ordering::Relaxed);
        let np = n as *const QNode as *mut QNode;
        // AcqRel: as the swap in `lock`.
        if self
            .tail
            .compare_exchange(ptr::null_mut(), np, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            self.head.store(np, Ordering::Relaxed);
            record_acquire(StatKind::Clh, false);
            true
        } else {
            free_node(n);
            false
        }
    }

    /// Releases the lock, handing it to the next waiter if there is one.
    ///
    /// # Safety
    ///
    /// The calling thread must hold this lock (acquired by `lock` or a successful `try_lock`
    /// on this same thread, and not yet released).
    #[inline]
    pub unsafe fn unlock(&self) {
        let np = self.head.load(Ordering::Relaxed);
        // Leave an unlocked lock all-zero (ordered before the Release that hands it on).
        self.head.store(ptr::null_mut(), Ordering::Relaxed);
        // SAFETY: the holder's node, set by `lock`/`try_lock`; nodes are never freed.
        let n: &'static QNode = unsafe { &*np };
        // Load first (as Hemlock's listing 6): only a holder that looks last tries the CAS.
        if self.tail.load(Ordering::Relaxed) == np
            && self
                .tail
                .compare_exchange(np, ptr::null_mut(), Ordering::Release, Ordering::Relaxed)
                .is_ok()
        {
            // No successor ever saw our node: keep it.
            free_node(n);
            return;
        }
        // Release: our critical section happens-before the successor's. From here the node
        // belongs to the successor.
        n.state.store(GO, Ordering::Release);
        notify::<W>(&n.state, &n.sleepers);
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

impl_raw_mutex!(Clh);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&Clh::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&Clh::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn try_lock_and_zero_body() {
        assert_eq!(core::mem::size_of::<Clh>(), 16);
        let l = Clh::<Spin>::new();
        assert!(l.try_lock());
        assert!(!l.try_lock());
        // SAFETY: locked above.
        unsafe { l.unlock() };
        // SAFETY: two AtomicPtrs; reading their bytes reads two pointers.
        let bits: [usize; 2] = unsafe { core::mem::transmute_copy(&l) };
        assert_eq!(bits, [0, 0], "an unlocked CLH lock is all-zero");
    }
}
