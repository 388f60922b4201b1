//! MCS: Mellor-Crummey & Scott, "Algorithms for scalable synchronization on shared-memory
//! multiprocessors" (ACM TOCS 1991), the list-based queue lock; here in the form the Hemlock
//! paper benchmarks (section 5): the head of the queue (the owner's node) is kept in the lock
//! body beside the tail, so the API stays context-free and the guard carries nothing.
//!
//! Guarantees: FIFO admission (in the order of the `swap` on the tail); local spinning (each
//! waiter spins on its own node); not lock-free. Space: lock body = tail + head, 16 bytes,
//! all-zero when unlocked; one 128-byte queue node per lock held or waited on by a thread.
//!
//! Queue nodes ([`QNode`], shared with [`crate::Clh`]) are leaked heap blocks that are never
//! freed: a node's memory stays valid forever, so a thread that touches a node after its owner
//! moved on (the MCS releaser waking its successor; the CLH releaser waking a sleeper on the
//! node it gave away) can at worst cause a spurious wake-up, never a use-after-free. Free nodes
//! sit in a per-thread cache (`const`, destructor-free thread-locals: a spare slot taken
//! first, then a stack; at most [`NODE_CACHE`] nodes in all) refilled from, and overflowing into, a global pool (a stack behind a
//! spin flag, free of ABA: see `reclaim.rs`). Every node ever allocated is also linked into an append-only global list, so all of them
//! stay reachable (and countable: [`queue_nodes_allocated`]). In the steady state no lock
//! operation allocates: a thread holding `k` locks at once needs `k` nodes, which the cache or
//! pool provides after the first time. At thread exit the cached nodes of that thread go back to
//! the pool (`reclaim.rs`), so the nodes held grow with the live threads, not with the threads
//! ever created.
//!
//! Park form ([`McsPark`]): a waiter spins on its own node, then sleeps on the node's state
//! word; the releaser stores GO and calls `futex_wake` only if the waiter announced itself.

use crate::stats::{StatKind, record_acquire};
use crate::sync::{AtomicPtr, AtomicU32, Ordering};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex, notify, spin_yield_until};
use core::marker::PhantomData;
use core::ptr;
use std::cell::Cell;

/// A queue node's state: its owner must wait.
pub(crate) const WAIT: u32 = 1;
/// A queue node's state: the lock is handed over.
pub(crate) const GO: u32 = 0;

/// Free nodes a thread keeps for itself before it returns them to the global pool.
pub const NODE_CACHE: usize = 8;

/// A queue node of [`Mcs`] and [`crate::Clh`] (cache-line aligned, never freed).
#[repr(C, align(128))]
pub(crate) struct QNode {
    /// [`WAIT`] or [`GO`]; also the futex word of the park forms.
    pub(crate) state: AtomicU32,
    /// Threads that announced themselves as sleeping on `state`.
    pub(crate) sleepers: AtomicU32,
    /// MCS successor link; the free-list link while the node is free.
    pub(crate) next: AtomicPtr<QNode>,
    /// Link in the list of all nodes (written once, before the node is published).
    #[cfg(not(loom))]
    all: *mut QNode,
    /// This node's number in the index table (`index::at`), from 1; written once, before the
    /// node is published, and read only by the thread that holds the node.
    pub(crate) index: u32,
}

impl QNode {
    fn new() -> Self {
        QNode {
            state: AtomicU32::new(GO),
            sleepers: AtomicU32::new(0),
            next: AtomicPtr::new(ptr::null_mut()),
            #[cfg(not(loom))]
            all: ptr::null_mut(),
            index: 0,
        }
    }
}

#[cfg(not(loom))]
impl crate::reclaim::Linked for QNode {
    fn free_link(&self) -> &std::sync::atomic::AtomicPtr<QNode> {
        &self.next
    }
}

#[cfg(not(loom))]
mod pool {
    use super::QNode;
    use core::ptr;
    use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

    /// Free nodes (given back by exited threads and by caches that overflowed).
    pub(super) static FREE: crate::reclaim::FreeStack<QNode> = crate::reclaim::FreeStack::new();
    /// Every node ever allocated, linked through `QNode::all` (push only).
    pub(super) static ALL: AtomicPtr<QNode> = AtomicPtr::new(ptr::null_mut());
    /// How many nodes were ever allocated.
    pub(super) static COUNT: AtomicUsize = AtomicUsize::new(0);

    /// Allocates and leaks a node, recording it in the list of all nodes.
    pub(super) fn fresh() -> *mut QNode {
        let n = crate::reclaim::leak_box(QNode::new());
        COUNT.fetch_add(1, Ordering::Relaxed);
        super::index::register(n);
        let mut head = ALL.load(Ordering::Relaxed);
        loop {
            // SAFETY: `n` is ours alone until the CAS below publishes it; `all` is written only
            // here, before publication.
            unsafe { (*n).all = head };
            // Release: publishes the `all` field to whoever walks the list.
            match ALL.compare_exchange_weak(head, n, Ordering::Release, Ordering::Relaxed) {
                Ok(_) => return n,
                Err(h) => head = h,
            }
        }
    }
}

/// Numbers for queue nodes, so that a lock can name a node in 32 bits ([`crate::McsCompact`]'s
/// tail). Every node gets the next number when it is allocated (nodes are never freed, so a
/// number names one node forever), and the table maps numbers back to nodes: segment `k` holds
/// the 2^k entries for numbers `2^k..2^(k+1)`, allocated on first use and never freed, so a
/// lookup is two dependent loads and the table never moves. 32 segments cover every `u32`; a
/// process would need 2^32 nodes (512 GiB of them) to run out, which `register` reports with a
/// panic rather than reusing a number.
///
/// The table uses the standard atomics even under loom: entries are written once, before the
/// node's number is published through a lock word that the model does track.
mod index {
    use super::QNode;
    use core::ptr;
    use std::alloc::Layout;
    use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

    const SEGMENTS: usize = 32;
    static NEXT: AtomicU32 = AtomicU32::new(1);
    #[allow(clippy::declare_interior_mutable_const)]
    const NO_SEGMENT: AtomicPtr<AtomicPtr<QNode>> = AtomicPtr::new(ptr::null_mut());
    static TABLE: [AtomicPtr<AtomicPtr<QNode>>; SEGMENTS] = [NO_SEGMENT; SEGMENTS];

    /// The segment and the slot in it of number `i` (`i >= 1`).
    #[inline]
    fn place(i: u32) -> (usize, usize) {
        let k = (31 - i.leading_zeros()) as usize;
        (k, (i - (1u32 << k)) as usize)
    }

    fn layout(k: usize) -> Layout {
        // Cannot fail: at most 2^31 pointers.
        Layout::array::<AtomicPtr<QNode>>(1usize << k).expect("segment layout")
    }

    /// Segment `k`, allocating it if no thread has yet: zeroed (every entry a null
    /// `AtomicPtr`), never freed, from the allocator the nodes come from (`reclaim.rs`
    /// explains the choice).
    #[cold]
    fn segment(k: usize) -> *mut AtomicPtr<QNode> {
        // Acquire: a segment seen is one whose zeroing is visible.
        let s = TABLE[k].load(Ordering::Acquire);
        if !s.is_null() {
            return s;
        }
        let (fresh, system) = crate::reclaim::leak_zeroed(layout(k));
        let fresh = fresh.cast::<AtomicPtr<QNode>>();
        // AcqRel: Release publishes the zeroed segment; Acquire, on failure, the winner's.
        match TABLE[k].compare_exchange(ptr::null_mut(), fresh, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => fresh,
            Err(winner) => {
                // SAFETY: allocated above with this layout and flag, never published.
                unsafe { crate::reclaim::free_zeroed(fresh.cast(), layout(k), system) };
                winner
            }
        }
    }

    /// Gives the fresh, unpublished node `n` the next number and enters it in the table.
    pub(super) fn register(n: *mut QNode) {
        let i = NEXT.fetch_add(1, Ordering::Relaxed);
        assert!(i != 0, "more than 2^32 - 1 queue nodes");
        let (k, slot) = place(i);
        let seg = segment(k);
        // SAFETY: `slot < 2^k`, the segment's length; the segment is never freed.
        let entry = unsafe { &*seg.add(slot) };
        // Release: the node's initialised fields are visible to whoever looks it up.
        entry.store(n, Ordering::Release);
        // SAFETY: `n` is the caller's alone until published; `index` is written only here.
        unsafe { (*n).index = i };
    }

    /// The node numbered `i`, which some thread published (so its entry is set).
    #[inline]
    pub(crate) fn at(i: u32) -> &'static QNode {
        let (k, slot) = place(i);
        // Acquire: pairs with the Release of `segment` and of `register`.
        let seg = TABLE[k].load(Ordering::Acquire);
        debug_assert!(!seg.is_null(), "queue node number {i} was never given out");
        // SAFETY: the number was given out, so its segment exists, and `slot < 2^k`.
        let n = unsafe { &*seg.add(slot) }.load(Ordering::Acquire);
        debug_assert!(!n.is_null(), "queue node number {i} was never given out");
        // SAFETY: nodes are leaked, never freed: valid for 'static.
        unsafe { &*n }
    }

    #[cfg(all(test, not(loom)))]
    mod tests {
        use super::place;

        #[test]
        fn numbers_map_to_segments_without_gaps() {
            assert_eq!(place(1), (0, 0));
            assert_eq!(place(2), (1, 0));
            assert_eq!(place(3), (1, 1));
            assert_eq!(place(4), (2, 0));
            assert_eq!(place(7), (2, 3));
            assert_eq!(place(u32::MAX), (31, (1 << 31) - 1));
        }
    }
}

pub(crate) use index::at as node_at;

// The thread's free nodes: `SPARE`, one node in a slot of its own, and `CACHE`, a stack of at
// most `NODE_CACHE - 1` more (`CACHED` counts them). Most threads hold one queue lock at a
// time, so most acquisitions take the spare and most releases put it back: one load and one
// store each, where the stack costs a link, a count and their checks.
#[cfg(not(loom))]
std::thread_local! {
    static SPARE: Cell<*mut QNode> = const { Cell::new(ptr::null_mut()) };
    static CACHE: Cell<*mut QNode> = const { Cell::new(ptr::null_mut()) };
    static CACHED: Cell<usize> = const { Cell::new(0) };
}

#[cfg(loom)]
loom::thread_local! {
    static SPARE: Cell<*mut QNode> = Cell::new(ptr::null_mut());
    static CACHE: Cell<*mut QNode> = Cell::new(ptr::null_mut());
    static CACHED: Cell<usize> = Cell::new(0);
}

/// How many queue nodes ([`Mcs`], [`crate::Clh`]) this process has ever allocated.
pub fn queue_nodes_allocated() -> usize {
    #[cfg(not(loom))]
    return pool::COUNT.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(loom)]
    return 0;
}

/// Takes a free node for the calling thread: its spare, else one from its cache, else the
/// global pool, else a fresh leaked allocation. The node is exclusively the caller's until it
/// publishes it.
///
/// Inlined (taking the spare is a load and a store), with the rest out of line: the lock
/// functions that call it are generic, so they are compiled in the user's crate, where a call
/// to a function of this crate that is not `#[inline]` stays a call; with its other paths
/// inlined it also saved and restored registers on every acquisition.
#[inline]
pub(crate) fn alloc_node() -> &'static QNode {
    let n = SPARE.with(|s| s.replace(ptr::null_mut()));
    let n = if !n.is_null() { n } else { alloc_node_cached() };
    // SAFETY: nodes are leaked, never freed: valid for 'static.
    unsafe { &*n }
}

/// [`alloc_node`] without a spare: a node from the cache, else from [`alloc_node_slow`].
#[inline(never)]
fn alloc_node_cached() -> *mut QNode {
    let cached = CACHE.with(|c| {
        let n = c.get();
        if !n.is_null() {
            // SAFETY: nodes in our cache are ours alone and never freed.
            c.set(unsafe { &*n }.next.load(Ordering::Relaxed));
            CACHED.with(|k| k.set(k.get() - 1));
        }
        n
    });
    if !cached.is_null() {
        cached
    } else {
        alloc_node_slow()
    }
}

/// [`alloc_node`] with an empty cache: a node from the pool, and the thread registered to
/// give its cache back at exit.
#[cold]
#[inline(never)]
fn alloc_node_slow() -> *mut QNode {
    let n = take_from_pool();
    // The thread's cache will fill from here: make sure it goes back at the thread's exit.
    // (After taking the node: registering may allocate, which may lock, which may need a
    // node.)
    #[cfg(not(loom))]
    crate::reclaim::register_thread();
    n
}

/// The slow path of [`alloc_node`]: a node from the global pool, else a fresh leaked
/// allocation.
#[cold]
fn take_from_pool() -> *mut QNode {
    #[cfg(not(loom))]
    {
        let n = pool::FREE.pop();
        if n.is_null() { pool::fresh() } else { n }
    }
    #[cfg(loom)]
    {
        let n = Box::into_raw(Box::new(QNode::new()));
        index::register(n);
        n
    }
}

/// Gives the calling thread's cached nodes to the global pool, at its exit (`reclaim.rs`).
#[cfg(not(loom))]
pub(crate) fn give_back_thread_nodes() {
    let spare = SPARE.with(|s| s.replace(ptr::null_mut()));
    if !spare.is_null() {
        push_global(spare);
    }
    let mut n = CACHE.with(|c| c.replace(ptr::null_mut()));
    CACHED.with(|k| k.set(0));
    while !n.is_null() {
        // SAFETY: cached nodes are ours alone and never freed.
        let next = unsafe { &*n }.next.load(Ordering::Relaxed);
        push_global(n);
        n = next;
    }
}

/// Returns a node no other thread will access any more (except for harmless stale reads of a
/// releaser, see the module documentation) to the calling thread's spare slot, its cache or
/// the global pool.
#[inline]
pub(crate) fn free_node(n: &'static QNode) {
    let n = n as *const QNode as *mut QNode;
    let kept = SPARE.with(|s| {
        let empty = s.get().is_null();
        if empty {
            s.set(n);
        }
        empty
    });
    if !kept {
        free_node_cached(n);
    }
}

/// [`free_node`] with the spare slot taken: to the cache, else the global pool.
#[inline(never)]
fn free_node_cached(n: *mut QNode) {
    let kept = CACHE.with(|c| {
        CACHED.with(|k| {
            if k.get() < NODE_CACHE - 1 {
                // SAFETY: the node is ours now and never freed.
                unsafe { &*n }.next.store(c.get(), Ordering::Relaxed);
                c.set(n);
                k.set(k.get() + 1);
                true
            } else {
                false
            }
        })
    });
    if !kept {
        push_global(n);
    }
}

/// Pushes a free node onto the global pool (under loom, which has no global pool, drops it:
/// the node leaks, which a model run tolerates).
#[cold]
#[inline(never)]
fn push_global(n: *mut QNode) {
    #[cfg(not(loom))]
    pool::FREE.push(n);
    #[cfg(loom)]
    let _ = n;
}

/// The contended half of an MCS `lock` (of [`Mcs`] and [`crate::McsCompact`]): links `n` behind
/// `pred` and waits for the hand-over. Out of line (not `#[cold]`: under contention it is the
/// path), so that the uncontended path saves no registers for it.
#[inline(never)]
pub(crate) fn wait_in_queue<W: Wait>(n: &'static QNode, pred: &'static QNode) {
    // Only a waiter's state matters, and nobody writes it before the link below: set here,
    // not on the uncontended path.
    n.state.store(WAIT, Ordering::Relaxed);
    // Release: our node's initialised fields (the state above) are visible to the releaser.
    pred.next
        .store(n as *const QNode as *mut QNode, Ordering::Release);
    // Acquire (in the closure): the releaser's critical section happens-before ours.
    W::wait_until(&n.state, &n.sleepers, || {
        n.state.load(Ordering::Acquire) == GO
    });
}

/// The contended half of an MCS `unlock`: hands the lock to the successor of `n` (`succ`, or
/// the one that swapped in but has not linked yet) and frees `n`. Out of line, as
/// [`wait_in_queue`].
#[inline(never)]
pub(crate) fn hand_over<W: Wait>(n: &'static QNode, mut succ: *mut QNode) {
    if succ.is_null() {
        // A successor swapped in but has not linked yet: a short window.
        spin_yield_until(|| {
            // Acquire: the successor's node fields are visible once we see the link.
            succ = n.next.load(Ordering::Acquire);
            !succ.is_null()
        });
    }
    // SAFETY: nodes are never freed.
    let succ = unsafe { &*succ };
    // Release: our critical section happens-before the successor's.
    succ.state.store(GO, Ordering::Release);
    notify::<W>(&succ.state, &succ.sleepers);
    free_node(n);
}

/// The MCS lock with the head in the lock body, generic over its waiting policy.
///
/// ```
/// use welltempered_lock::{Mcs, McsPark};
///
/// let m = lock_api::Mutex::<Mcs, _>::new(1);
/// let p = lock_api::Mutex::<McsPark, _>::new(2);
/// assert_eq!(*m.lock() + *p.lock(), 3);
/// ```
pub struct Mcs<W: Wait = Spin> {
    tail: AtomicPtr<QNode>,
    head: AtomicPtr<QNode>,
    _wait: PhantomData<fn() -> W>,
}

/// [`Mcs`] with spin-then-park waiting.
pub type McsPark = Mcs<SpinThenPark>;

impl<W: Wait> Default for Mcs<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for Mcs<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Mcs")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> Mcs<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Mcs {
            tail: AtomicPtr::new(ptr::null_mut()),
            head: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        Mcs {
            tail: AtomicPtr::new(ptr::null_mut()),
            head: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// Acquires the lock, waiting in FIFO order behind earlier arrivals.
    #[inline]
    pub fn lock(&self) {
        let n = alloc_node();
        n.next.store(ptr::null_mut(), Ordering::Relaxed);
        let np = n as *const QNode as *mut QNode;
        // AcqRel: Release publishes the node's fields to the predecessor that links to it;
        // Acquire pairs with the Release CAS of an uncontended unlock.
        let pred = self.tail.swap(np, Ordering::AcqRel);
        let contended = !pred.is_null();
        if contended {
            // SAFETY: nodes are never freed; `pred` stays in the queue until it sees our link.
            wait_in_queue::<W>(n, unsafe { &*pred });
        }
        // Relaxed: read only by the owner (us, or a later owner after a synchronising hand-over).
        self.head.store(np, Ordering::Relaxed);
        record_acquire(StatKind::Mcs, contended);
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        if !self.tail.load(Ordering::Relaxed).is_null() {
            return false;
        }
        let n = alloc_node();
        n.next.store(ptr::null_mut(), Ordering::Relaxed);
        let np = n as *const QNode as *mut QNode;
        if self
            .tail
            .compare_exchange(ptr::null_mut(), np, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            self.head.store(np, Ordering::Relaxed);
            record_acquire(StatKind::Mcs, false);
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
        // Acquire: the successor's node fields are visible once we see the link.
        let succ = n.next.load(Ordering::Acquire);
        // Release: our critical section happens-before the next uncontended acquisition.
        if succ.is_null()
            && self
                .tail
                .compare_exchange(np, ptr::null_mut(), Ordering::Release, Ordering::Relaxed)
                .is_ok()
        {
            free_node(n);
            return;
        }
        hand_over::<W>(n, succ);
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

impl_raw_mutex!(Mcs);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&Mcs::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&Mcs::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn nested_locks_use_distinct_nodes() {
        let a = Mcs::<Spin>::new();
        let b = Mcs::<Spin>::new();
        let c = Mcs::<Spin>::new();
        a.lock();
        b.lock();
        assert!(c.try_lock());
        assert_ne!(a.queue_probe(), b.queue_probe());
        assert_ne!(b.queue_probe(), c.queue_probe());
        // SAFETY: each was locked above on this thread.
        unsafe {
            b.unlock();
            c.unlock();
            a.unlock();
        }
        assert!(!a.is_locked() && !b.is_locked() && !c.is_locked());
    }

    #[test]
    fn steady_state_does_not_allocate() {
        let l = Mcs::<Spin>::new();
        l.lock();
        // SAFETY: locked above.
        unsafe { l.unlock() };
        let before = CACHED.with(|k| k.get());
        for _ in 0..100 {
            l.lock();
            // SAFETY: locked above.
            unsafe { l.unlock() };
        }
        assert_eq!(CACHED.with(|k| k.get()), before);
    }

    #[test]
    fn try_lock_and_zero_body() {
        assert_eq!(core::mem::size_of::<Mcs>(), 16);
        let l = Mcs::<Spin>::new();
        assert!(l.try_lock());
        assert!(!l.try_lock());
        // SAFETY: locked above.
        unsafe { l.unlock() };
        // SAFETY: two AtomicPtrs; reading their bytes reads two pointers.
        let bits: [usize; 2] = unsafe { core::mem::transmute_copy(&l) };
        assert_eq!(bits, [0, 0]);
    }
}
