//! Compact MCS: the list-based queue lock of Mellor-Crummey & Scott, "Algorithms for scalable
//! synchronization on shared-memory multiprocessors" (ACM TOCS 1991), in its original form,
//! where the caller keeps its queue node from `acquire` to `release` (the paper's `lock(L, I)`
//! and `unlock(L, I)`), and with the tail stored as a 32-bit node number instead of a pointer.
//! The lock body is that one word: 4 bytes, zero when unlocked.
//!
//! [`crate::Mcs`] keeps the holder's node in the lock body so that `unlock` needs nothing but the
//! lock (the `lock_api` shape); this form returns the node to the caller as an
//! [`McsCompactToken`] instead, which suits a lock held only inside one function: the default
//! [`crate::Mutex`] orders its waiters with it, which is how that mutex fits in 8 bytes.
//!
//! Nodes are the same never-freed, per-thread-cached [`crate::Mcs`] nodes; each is numbered
//! once, at allocation, and a table maps numbers back to nodes (two dependent loads, on the
//! contended path only). Since a number names the same node forever, a stale number read by a
//! releaser can at worst cause a spurious wake-up, as with the pointer form.
//!
//! Guarantees: FIFO admission (in the order of the `swap` on the tail); local spinning (each
//! waiter waits on its own node); not lock-free. Waiting is chosen by the [`Wait`] parameter;
//! the default, [`SpinThenPark`], sleeps.

use crate::mcs::{QNode, alloc_node, free_node, hand_over, node_at, wait_in_queue};
use crate::sync::{AtomicU32, Ordering};
use crate::wait::{SpinThenPark, Wait};
use core::marker::PhantomData;
use core::ptr;

/// The compact MCS lock: see the module documentation.
///
/// ```
/// use welltempered_lock::McsCompact;
///
/// let l: McsCompact = McsCompact::new();
/// let token = l.lock();
/// assert!(l.try_lock().is_none());
/// // SAFETY: `token` came from `l.lock()` and is released once.
/// unsafe { l.unlock(token) };
/// assert!(!l.is_locked());
/// ```
pub struct McsCompact<W: Wait = SpinThenPark> {
    /// The number of the last queued node, 0 when the lock is free.
    tail: AtomicU32,
    _wait: PhantomData<fn() -> W>,
}

/// The holder's queue node, returned by [`McsCompact::lock`] and given back to
/// [`McsCompact::unlock`]. Dropping it instead leaves the lock held forever (and the node out
/// of use): safe, but almost certainly a bug, hence `must_use`.
#[must_use = "the lock stays held until the token is passed to `unlock`"]
pub struct McsCompactToken {
    node: &'static QNode,
}

// SAFETY: the token only names a node; a node is never freed, its `index` is fixed before it is
// handed out, and everything else in it that another thread reads is atomic. Releasing on
// another thread is part of the contract (`unlock` needs the node, not the thread), and the
// node then goes to that thread's cache, which is where any free node may go.
unsafe impl Send for McsCompactToken {}

impl core::fmt::Debug for McsCompactToken {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("McsCompactToken")
            .field("node", &self.node.index)
            .finish()
    }
}

impl<W: Wait> Default for McsCompact<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for McsCompact<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("McsCompact")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> McsCompact<W> {
    /// An unlocked lock (zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        McsCompact {
            tail: AtomicU32::new(0),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        McsCompact {
            tail: AtomicU32::new(0),
            _wait: PhantomData,
        }
    }

    /// Acquires the lock, waiting in FIFO order behind earlier arrivals; returns the node to
    /// pass to [`unlock`](Self::unlock).
    #[inline]
    pub fn lock(&self) -> McsCompactToken {
        let n = alloc_node();
        n.next.store(ptr::null_mut(), Ordering::Relaxed);
        // AcqRel: Release publishes the node's fields to the successor that links to it;
        // Acquire pairs with the Release CAS of an uncontended unlock.
        let pred = self.tail.swap(n.index, Ordering::AcqRel);
        if pred != 0 {
            wait_in_queue::<W>(n, node_at(pred));
        }
        McsCompactToken { node: n }
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> Option<McsCompactToken> {
        if self.tail.load(Ordering::Relaxed) != 0 {
            return None;
        }
        let n = alloc_node();
        n.next.store(ptr::null_mut(), Ordering::Relaxed);
        // AcqRel: as in `lock` (Release publishes the node to a later successor).
        if self
            .tail
            .compare_exchange(0, n.index, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            Some(McsCompactToken { node: n })
        } else {
            free_node(n);
            None
        }
    }

    /// Releases the lock, handing it to the next waiter if there is one.
    ///
    /// # Safety
    ///
    /// `token` must have come from [`lock`](Self::lock) or [`try_lock`](Self::try_lock) on this
    /// same lock (on any thread), and this is its one release.
    #[inline]
    pub unsafe fn unlock(&self, token: McsCompactToken) {
        // SAFETY: forwarded from the caller.
        unsafe { self.unlock_noting_successor(token, || {}) }
    }

    /// [`unlock`](Self::unlock), calling `before_hand_over` first if a thread is queued behind
    /// the holder (exactly then: a successor that swapped the tail before this release is seen,
    /// by the read-modify-write that would otherwise empty the queue; one that comes later
    /// finds the lock free). [`crate::Mutex`] uses it to keep the head's mark for its successor.
    ///
    /// # Safety
    ///
    /// As for [`unlock`](Self::unlock).
    #[inline]
    pub unsafe fn unlock_noting_successor(
        &self,
        token: McsCompactToken,
        before_hand_over: impl FnOnce(),
    ) {
        let n = token.node;
        // Acquire: the successor's node fields are visible once we see the link.
        let succ = n.next.load(Ordering::Acquire);
        // Release: our critical section happens-before the next uncontended acquisition.
        if succ.is_null()
            && self
                .tail
                .compare_exchange(n.index, 0, Ordering::Release, Ordering::Relaxed)
                .is_ok()
        {
            free_node(n);
            return;
        }
        before_hand_over();
        hand_over::<W>(n, succ);
    }

    /// Whether some thread holds the lock (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.tail.load(Ordering::Relaxed) != 0
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::wait::Spin;
    use std::cell::UnsafeCell;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn unlock_notes_a_successor_exactly_when_one_is_queued() {
        let lock: McsCompact = McsCompact::new();
        // Alone: nobody to hand over to.
        let t = lock.lock();
        let mut noted = false;
        // SAFETY: `t` is from this lock, released once.
        unsafe { lock.unlock_noting_successor(t, || noted = true) };
        assert!(!noted);
        // A thread queued behind the holder: noted before it is handed the lock.
        let t = lock.lock();
        let held = lock.tail.load(Ordering::Relaxed);
        std::thread::scope(|s| {
            let waiter = s.spawn(|| {
                let t = lock.lock();
                // SAFETY: as above.
                unsafe { lock.unlock(t) };
            });
            // Its swap of the tail is what makes it a successor.
            while lock.tail.load(Ordering::Relaxed) == held {
                std::thread::yield_now();
            }
            let mut noted = false;
            // SAFETY: as above.
            unsafe { lock.unlock_noting_successor(t, || noted = true) };
            assert!(noted);
            waiter.join().unwrap();
        });
        assert!(!lock.is_locked());
    }

    /// A counter guarded by a compact lock, incremented non-atomically.
    struct Guarded<W: Wait> {
        lock: McsCompact<W>,
        count: UnsafeCell<u64>,
    }
    // SAFETY: `count` is accessed only while `lock` is held.
    unsafe impl<W: Wait> Sync for Guarded<W> {}

    fn hammer<W: Wait>(threads: u64) {
        let g = Guarded::<W> {
            lock: McsCompact::new(),
            count: UnsafeCell::new(0),
        };
        let g = &g;
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(move || {
                    for _ in 0..ITERS {
                        let t = g.lock.lock();
                        // SAFETY: the lock is held.
                        unsafe { *g.count.get() += 1 };
                        // SAFETY: from this lock's `lock`, released once.
                        unsafe { g.lock.unlock(t) };
                    }
                });
            }
        });
        // SAFETY: every thread has finished.
        assert_eq!(unsafe { *g.count.get() }, threads * ITERS);
        assert!(!g.lock.is_locked());
    }

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        hammer::<Spin>(2);
    }

    #[test]
    fn exclusion_park() {
        hammer::<SpinThenPark>(4);
    }

    #[test]
    fn body_is_one_zero_word() {
        assert_eq!(core::mem::size_of::<McsCompact>(), 4);
        let l: McsCompact = McsCompact::new();
        let t = l.try_lock().expect("free");
        assert!(l.try_lock().is_none());
        // SAFETY: from this lock's `try_lock`, released once.
        unsafe { l.unlock(t) };
        // SAFETY: one AtomicU32; reading its bytes reads a u32.
        let bits: u32 = unsafe { core::mem::transmute_copy(&l) };
        assert_eq!(bits, 0);
    }

    #[test]
    fn token_may_be_released_on_another_thread_by_its_lock() {
        // The holder's node, not the thread, is what the release needs: unlock from a thread
        // that did not lock, then lock again from the first.
        let l: McsCompact<Spin> = McsCompact::new();
        let t = l.lock();
        let t = std::thread::scope(|s| {
            s.spawn(|| {
                assert!(l.is_locked());
                t
            })
            .join()
            .unwrap()
        });
        // SAFETY: from this lock's `lock`, released once.
        unsafe { l.unlock(t) };
        let t = l.lock();
        // SAFETY: from this lock's `lock`, released once.
        unsafe { l.unlock(t) };
    }

    #[test]
    fn nested_locks_use_distinct_nodes() {
        let a: McsCompact = McsCompact::new();
        let b: McsCompact = McsCompact::new();
        let ta = a.lock();
        let tb = b.lock();
        assert_ne!(ta.node.index, tb.node.index);
        // SAFETY: each from its own lock, released once, out of order on purpose.
        unsafe {
            a.unlock(ta);
            b.unlock(tb);
        }
        assert!(!a.is_locked() && !b.is_locked());
    }
}
