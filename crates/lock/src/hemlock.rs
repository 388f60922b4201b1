//! Hemlock: Dice & Kogan, "Hemlock: Compact and Scalable Mutual Exclusion" (SPAA 2021),
//! section 2, listing 2 (the CTR form: a waiter polls its predecessor's Grant with
//! compare-and-swap, so the line arrives in M state) combined with the hand-over of listing 6
//! (unlock loads the tail first and only tries the CAS when it looks like the last thread,
//! avoiding the futile CAS under contention); spin-then-park waiting per appendix C.
//!
//! Guarantees: FIFO admission (in the order of the `swap` on the tail); starvation-free;
//! context-free (nothing flows from lock to unlock); not lock-free (it is a lock). Space: the
//! lock body is one word, 8 bytes, all-zero when unlocked; each thread owns one `Grant`, a
//! 128-byte, cache-line-aligned block, whatever the number of locks it holds or waits for.
//!
//! Where the Grant lives: the thread reaches it through a `const`-initialised, destructor-free
//! thread-local pointer, and the Grant itself is a heap block that is never freed, taken on the
//! thread's first Hemlock operation from a pool of Grants given back by exited threads (or
//! allocated when the pool is empty), and given back to that pool when the thread exits
//! (`reclaim.rs`), so a program that keeps creating threads holds one Grant per *live* thread.
//! A Grant embedded in the thread-local block would be freed at thread exit, and `lock_api`
//! requires that forgetting a guard be safe: a thread that exits holding a lock (a forgotten
//! guard) leaves its Grant in the lock's tail, and the next thread to lock it reads that Grant.
//! With a never-freed Grant that thread merely waits forever (a deadlock, not undefined
//! behaviour), also when the Grant has been reused by another thread: the waiter waits for its
//! own lock's address, which the new owner never stores, since nobody can release that lock.
//! Every Grant is linked into a global list, so none is unreachable.
//!
//! Protocol. `lock`: swap our Grant into the tail; if the previous tail (the predecessor) is
//! null we own the lock, else we wait until the predecessor's Grant holds this lock's address
//! and CAS it back to null (the acknowledgement). `unlock`: if the tail is still our Grant, CAS
//! it to null; else store this lock's address into our Grant and wait until the successor has
//! cleared it. The Grant is therefore free again whenever `unlock` returns: the predecessor is
//! blocked in `unlock` until the successor's acknowledgement, which is the successor's last
//! access to the predecessor's Grant.
//!
//! Multi-waiting: a thread holding several contended Hemlocks has one waiter per lock spinning
//! (or sleeping) on its single Grant; each waits for its *own* lock's address to appear, so a
//! hand-over of another lock is ignored (the paper's "fere-local spinning"; at most as many
//! waiters on a Grant as locks its owner holds). Park wake-ups are broadcast on the Grant's
//! futex word, so a hand-over of one lock wakes the sleepers waiting for the others too; they
//! re-check and sleep again.
//!
//! Park form ([`HemlockPark`]): the Grant carries a futex word (bumped on every hand-over) and
//! a sleeper count. A waiter spins [`SPIN_WINDOW`](crate::SPIN_WINDOW), then sleeps on the
//! predecessor's futex word; the releaser bumps the word and calls `futex_wake` only if a
//! sleeper announced itself. The releaser's own wait for the acknowledgement is also bounded
//! spinning, then a sleep announced *inside the Grant word* (tag bit `SLEEP` beside the lock
//! address, possible since a lock is 8-byte aligned): the successor's acknowledging CAS sees the
//! tag, moves the word to `WAKE`, bumps the futex word, wakes the releaser and only then stores
//! null, so the Grant is reused only after every access the successor makes to it.
//!
//! The guard is [`lock_api::GuardNoSend`]: `unlock` uses the calling thread's Grant, so an
//! unlock on another thread would hand over a Grant nobody waits on and hang. A guard therefore
//! cannot be sent to another thread:
//!
//! ```compile_fail,E0277
//! use welltempered_lock::Hemlock;
//! let m = lock_api::Mutex::<Hemlock, u32>::new(0);
//! let g = m.lock();
//! std::thread::scope(|s| {
//!     s.spawn(move || drop(g));
//! });
//! ```

use crate::stats::{StatKind, record_acquire};
use crate::sync::{AtomicPtr, AtomicU32, AtomicUsize, Ordering, yield_now};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex, notify};
use core::marker::PhantomData;
use core::ptr;
use std::cell::Cell;

/// Tag in a Grant word: the releaser sleeps waiting for the acknowledgement of this hand-over.
pub(crate) const SLEEP: usize = 1;
/// Tag in a Grant word: the successor has taken the lock and is waking the releaser.
pub(crate) const WAKE: usize = 2;
/// Both tag bits.
pub(crate) const TAGS: usize = SLEEP | WAKE;

/// A thread's mailbox: where its successors (one per lock it holds) wait for the hand-over.
#[repr(C, align(128))]
pub(crate) struct Grant {
    /// Null, or the address of the lock being handed over (plus tag bits).
    pub(crate) grant: AtomicUsize,
    /// Futex word of the park form: bumped whenever `grant` changes in a way a sleeper awaits.
    pub(crate) word: AtomicU32,
    /// Successors that announced themselves as sleeping on `word`.
    pub(crate) sleepers: AtomicU32,
    /// Threads waiting on this Grant right now (the multi-waiting profile).
    #[cfg(all(feature = "stats", not(loom)))]
    pub(crate) waiters: AtomicU32,
    /// Link in the list of every Grant ever allocated.
    pub(crate) link: AtomicPtr<Grant>,
    /// Link in a pool of Grants given back by exited threads.
    pub(crate) free: AtomicPtr<Grant>,
}

impl Grant {
    #[cfg(not(loom))]
    pub(crate) const fn new() -> Self {
        Grant {
            grant: AtomicUsize::new(0),
            word: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            #[cfg(all(feature = "stats", not(loom)))]
            waiters: AtomicU32::new(0),
            link: AtomicPtr::new(ptr::null_mut()),
            free: AtomicPtr::new(ptr::null_mut()),
        }
    }

    #[cfg(loom)]
    pub(crate) fn new() -> Self {
        Grant {
            grant: AtomicUsize::new(0),
            word: AtomicU32::new(0),
            sleepers: AtomicU32::new(0),
            link: AtomicPtr::new(ptr::null_mut()),
            free: AtomicPtr::new(ptr::null_mut()),
        }
    }
}

#[cfg(not(loom))]
std::thread_local! {
    static GRANT: Cell<*const Grant> = const { Cell::new(ptr::null()) };
}

#[cfg(loom)]
loom::thread_local! {
    static GRANT: Cell<*const Grant> = Cell::new(ptr::null());
}

/// Every Grant ever allocated, linked through `Grant::link` (push only): they stay reachable.
#[cfg(not(loom))]
static ALL_GRANTS: std::sync::atomic::AtomicPtr<Grant> =
    std::sync::atomic::AtomicPtr::new(ptr::null_mut());

/// Grants ever allocated (plain and Overlap), a diagnostic: see [`grants_allocated`].
#[cfg(not(loom))]
static GRANTS_ALLOCATED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// How many Hemlock Grants (of [`Hemlock`], [`crate::HemlockAh`] and
/// [`crate::HemlockOverlap`]) this process has ever allocated. Exited threads give theirs back
/// for reuse, so this grows with the most threads that used a Hemlock at once, not with the
/// threads ever created.
pub fn grants_allocated() -> usize {
    #[cfg(not(loom))]
    return GRANTS_ALLOCATED.load(std::sync::atomic::Ordering::Relaxed);
    #[cfg(loom)]
    return 0;
}

#[cfg(not(loom))]
impl crate::reclaim::Linked for Grant {
    fn free_link(&self) -> &std::sync::atomic::AtomicPtr<Grant> {
        &self.free
    }
}

/// A pool of free Grants. Plain and Overlap Grants keep separate pools (see
/// [`crate::HemlockOverlap`]).
#[cfg(not(loom))]
pub(crate) struct GrantPool(crate::reclaim::FreeStack<Grant>);

#[cfg(not(loom))]
impl GrantPool {
    pub(crate) const fn new() -> Self {
        GrantPool(crate::reclaim::FreeStack::new())
    }

    /// A Grant from the pool, or a newly allocated one; the caller's alone from now. The
    /// stack's flag orders the giver's last accesses before our use.
    pub(crate) fn take(&self) -> *const Grant {
        let g = self.0.pop();
        if g.is_null() { leak_grant() } else { g }
    }

    /// Gives a Grant that its thread will not use again to the pool.
    pub(crate) fn give(&self, g: *const Grant) {
        self.0.push(g.cast_mut());
    }
}

/// Free plain Grants (of [`Hemlock`] and [`crate::HemlockAh`]).
#[cfg(not(loom))]
static FREE_GRANTS: GrantPool = GrantPool::new();

/// Gives the calling thread's plain Grant back, at its exit (`reclaim.rs`): every `unlock`
/// has returned, so no successor will touch it; a lock the thread still holds keeps it in its
/// tail, which the reuse cannot disturb (see the module documentation).
#[cfg(not(loom))]
pub(crate) fn give_back_thread_grant() {
    let g = GRANT.with(|c| c.replace(ptr::null()));
    if !g.is_null() {
        FREE_GRANTS.give(g);
    }
}

/// Allocates a Grant that is never freed and records it in the list of all Grants.
#[cold]
pub(crate) fn leak_grant() -> *const Grant {
    let g = crate::reclaim::leak_box(Grant::new());
    #[cfg(not(loom))]
    GRANTS_ALLOCATED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    #[cfg(not(loom))]
    {
        use std::sync::atomic::Ordering as O;
        let mut head = ALL_GRANTS.load(O::Relaxed);
        loop {
            // SAFETY: `g` is ours alone until the CAS below publishes it.
            unsafe { &*g }.link.store(head, Ordering::Relaxed);
            // Release: publishes the link to whoever walks the list.
            match ALL_GRANTS.compare_exchange_weak(head, g, O::Release, O::Relaxed) {
                Ok(_) => break,
                Err(h) => head = h,
            }
        }
    }
    g.cast_const()
}

/// The calling thread's Grant for [`Hemlock`] and [`crate::HemlockAh`]: taken on the thread's
/// first use, never freed, so valid forever (see the module documentation).
#[inline]
pub(crate) fn self_grant() -> *const Grant {
    GRANT.with(|c| {
        let g = c.get();
        if !g.is_null() {
            return g;
        }
        #[cfg(not(loom))]
        let g = FREE_GRANTS.take();
        #[cfg(loom)]
        let g = leak_grant();
        // Allocating may have run an allocator that locks a Hemlock, which came back here and
        // set up a Grant already: keep that one (it may be in a lock's queue).
        let already = c.get();
        if !already.is_null() {
            #[cfg(not(loom))]
            FREE_GRANTS.give(g);
            return already;
        }
        // Set before registering: registering may allocate, and an allocator that locks a
        // mutex (under the preload library) comes back here.
        c.set(g);
        crate::reclaim::register_thread();
        g
    })
}

/// Successor side: takes lock `l` from `pred` if `pred` has handed it over (CTR: the poll is a
/// CAS, so the line is ours in M state when it succeeds). Returns whether we now own the lock.
/// On success this was our last access to `pred` unless the releaser sleeps, in which case we
/// wake it first and end with the store of null.
#[inline]
pub(crate) fn try_take<W: Wait>(pred: &Grant, l: usize) -> bool {
    // Acquire: the releaser's critical section happens-before ours. Release: every access we
    // made to `pred` happens-before the releaser's return from `unlock` (it acquires the null we
    // store), so before its thread may exit and free the Grant.
    match pred
        .grant
        .compare_exchange(l, 0, Ordering::AcqRel, Ordering::Relaxed)
    {
        Ok(_) => true,
        Err(v) if W::PARKS && v == l | SLEEP => {
            // The releaser sleeps waiting for us. Only we may change this word now.
            if pred
                .grant
                .compare_exchange(v, l | WAKE, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                return false;
            }
            // Release: the releaser, woken, reads the grant word after the futex word.
            pred.word.fetch_add(1, Ordering::Release);
            crate::futex::wake_all(&pred.word);
            // Last access: from here on the releaser may return and its thread may exit.
            pred.grant.store(0, Ordering::Release);
            true
        }
        Err(_) => false,
    }
}

/// Successor side: waits until `pred` hands lock `l` over, and takes it.
#[inline]
pub(crate) fn await_grant<W: Wait>(pred: &Grant, l: usize) {
    #[cfg(all(feature = "stats", not(loom)))]
    {
        let n = pred.waiters.fetch_add(1, Ordering::Relaxed) + 1;
        crate::stats::record_grant_waiters(n);
        let ready = || pred.grant.load(Ordering::Relaxed) & !TAGS == l;
        W::wait_until(&pred.word, &pred.sleepers, ready);
        // Before the acknowledgement: after it, `pred` may be gone.
        pred.waiters.fetch_sub(1, Ordering::Relaxed);
        // The Grant now holds `l` (perhaps tagged) and only we take it.
        while !try_take::<W>(pred, l) {
            crate::sync::spin_loop();
        }
    }
    #[cfg(not(all(feature = "stats", not(loom))))]
    {
        if W::spin(|| try_take::<W>(pred, l)) {
            return;
        }
        loop {
            W::park(&pred.word, &pred.sleepers, || {
                pred.grant.load(Ordering::Relaxed) & !TAGS == l
            });
            if try_take::<W>(pred, l) {
                return;
            }
        }
    }
}

/// Releaser side: waits until our Grant is null again (the successor acknowledged).
#[inline]
pub(crate) fn await_ack<W: Wait>(me: &Grant) {
    // CTR in unlock (listing 2): poll with a read-modify-write; the owner writes this line next.
    // Under loom a plain load (same value, same ordering): each RMW would be a new store in the
    // model, turning every poll into a fresh branch point.
    let acked = || {
        if cfg!(loom) {
            me.grant.load(Ordering::Acquire) == 0
        } else {
            me.grant.fetch_add(0, Ordering::Acquire) == 0
        }
    };
    if W::spin(acked) {
        return;
    }
    loop {
        // Read the futex word before the grant word: if the successor's bump is not yet
        // visible here, the futex wait below returns or is woken.
        let e = me.word.load(Ordering::Acquire);
        let v = me.grant.load(Ordering::Acquire);
        if v == 0 {
            return;
        }
        match v & TAGS {
            0 => {
                // Announce the sleep; a failure means the successor just took it: re-read.
                let _ =
                    me.grant
                        .compare_exchange(v, v | SLEEP, Ordering::Relaxed, Ordering::Relaxed);
            }
            SLEEP => {
                crate::futex::wait(&me.word, e, None);
            }
            _ => {
                // WAKE: the successor is between its wake-up call and its final store.
                yield_now();
            }
        }
    }
}

/// The entry code of [`Hemlock`] and [`crate::HemlockAh`] (they differ only in `unlock`): swap
/// our Grant into `tail`; if there was a predecessor, wait until it hands over lock `l`.
#[inline]
pub(crate) fn acquire<W: Wait>(tail: &AtomicPtr<Grant>, l: usize, kind: StatKind) {
    let me = self_grant().cast_mut();
    // AcqRel: Acquire pairs with the Release CAS of an uncontended unlock; Release publishes
    // our Grant to the successor that will find it in the tail.
    let pred = tail.swap(me, Ordering::AcqRel);
    if pred.is_null() {
        record_acquire(kind, false);
        return;
    }
    // SAFETY: a non-null tail is a Grant from `self_grant`, which are never freed.
    let pred = unsafe { &*pred };
    await_grant::<W>(pred, l);
    record_acquire(kind, true);
}

/// `try_lock` of [`Hemlock`] and [`crate::HemlockAh`]: takes the lock only if `tail` is empty.
#[inline]
pub(crate) fn try_acquire(tail: &AtomicPtr<Grant>, kind: StatKind) -> bool {
    let me = self_grant().cast_mut();
    // AcqRel: Acquire pairs with the Release CAS of an uncontended unlock; Release
    // publishes our Grant (its initialisation) to the successor that will find it in the tail.
    let ok = tail
        .compare_exchange(ptr::null_mut(), me, Ordering::AcqRel, Ordering::Relaxed)
        .is_ok();
    if ok {
        record_acquire(kind, false);
    }
    ok
}

/// Releaser side: stores `l` into our Grant (the hand-over) and wakes sleeping successors.
#[inline]
pub(crate) fn hand_over<W: Wait>(me: &Grant, l: usize) {
    // Release: our critical section happens-before the successor's.
    me.grant.store(l, Ordering::Release);
    if W::PARKS {
        me.word.fetch_add(1, Ordering::Release);
        notify::<W>(&me.word, &me.sleepers);
    }
}

/// The Hemlock lock (CTR + listing-6 hand-over), generic over its waiting policy.
///
/// ```
/// use welltempered_lock::{Hemlock, HemlockPark};
///
/// let m = lock_api::Mutex::<Hemlock, _>::new(1);
/// *m.lock() += 1;
/// let p = lock_api::Mutex::<HemlockPark, _>::new(2);
/// assert_eq!(*m.lock() + *p.lock(), 4);
/// ```
pub struct Hemlock<W: Wait = Spin> {
    tail: AtomicPtr<Grant>,
    _wait: PhantomData<fn() -> W>,
}

/// [`Hemlock`] with spin-then-park waiting (appendix C).
pub type HemlockPark = Hemlock<SpinThenPark>;

impl<W: Wait> Default for Hemlock<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for Hemlock<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Hemlock")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> Hemlock<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Hemlock {
            tail: AtomicPtr::new(ptr::null_mut()),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        Hemlock {
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
        acquire::<W>(&self.tail, self.addr(), StatKind::Hemlock);
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        try_acquire(&self.tail, StatKind::Hemlock)
    }

    /// Releases the lock, handing it to the next waiter if there is one.
    ///
    /// # Safety
    ///
    /// The calling thread must hold this lock (acquired by `lock` or a successful `try_lock`
    /// on this same thread, and not yet released).
    #[inline]
    pub unsafe fn unlock(&self) {
        let me_ptr = self_grant().cast_mut();
        // Listing 6: a plain load first; only a thread that looks like the last tries the CAS.
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
        // SAFETY: our own Grant, never freed.
        let me = unsafe { &*me_ptr };
        hand_over::<W>(me, self.addr());
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

impl_raw_mutex!(Hemlock);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&Hemlock::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&Hemlock::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn try_lock_and_is_locked() {
        let l = Hemlock::<Spin>::new();
        assert!(!l.is_locked());
        assert!(l.try_lock());
        assert!(l.is_locked());
        assert!(!l.try_lock());
        std::thread::scope(|s| {
            s.spawn(|| assert!(!l.try_lock()));
        });
        // SAFETY: locked above on this thread.
        unsafe { l.unlock() };
        assert!(!l.is_locked());
        assert!(l.try_lock());
        // SAFETY: locked above on this thread.
        unsafe { l.unlock() };
    }

    #[test]
    fn lock_body_is_one_zero_word() {
        assert_eq!(core::mem::size_of::<Hemlock>(), 8);
        let l = Hemlock::<Spin>::new();
        // SAFETY: Hemlock is a single AtomicPtr; reading its bytes is reading a pointer.
        let bits: usize = unsafe { core::mem::transmute_copy(&l) };
        assert_eq!(bits, 0);
    }

    #[test]
    fn forgotten_guard_of_exited_thread_is_safe() {
        // A thread exits holding the lock (a forgotten guard): its Grant stays in the tail.
        static L: HemlockPark = Hemlock::new();
        std::thread::spawn(|| L.lock()).join().unwrap();
        assert!(L.is_locked());
        assert!(!L.try_lock());
        let dead = L.queue_probe();
        // A waiter now queues behind the exited thread and reads its Grant, which must still
        // be valid memory (Miri checks this). The exited thread's Grant went back to the pool
        // at its exit, so a new thread may be given that very Grant: it would then queue
        // behind itself (waiting for ever, as it must on a lock held for ever, but not the
        // waiter this test needs). Threads that got it are kept waiting, unused, until the end.
        let (mine_tx, mine_rx) = std::sync::mpsc::channel();
        let mut spares = Vec::new();
        let w = loop {
            let (go_tx, go_rx) = std::sync::mpsc::channel::<bool>();
            let mine_tx = mine_tx.clone();
            let h = std::thread::spawn(move || {
                mine_tx.send(self_grant() as usize).unwrap();
                if go_rx.recv().unwrap() {
                    L.lock();
                    // SAFETY: locked above on this thread.
                    unsafe { L.unlock() };
                }
            });
            if mine_rx.recv().unwrap() != dead {
                go_tx.send(true).unwrap();
                break h;
            }
            spares.push((h, go_tx));
        };
        while L.queue_probe() == dead {
            std::thread::yield_now();
        }
        assert!(!L.try_lock());
        // Release on the exited thread's behalf through its Grant, so the waiter can finish.
        // SAFETY: the tail held a Grant from `self_grant`, which are never freed.
        let g = unsafe { &*(dead as *const Grant) };
        hand_over::<SpinThenPark>(g, L.addr());
        await_ack::<SpinThenPark>(g);
        w.join().unwrap();
        assert!(!L.is_locked());
        for (h, go_tx) in spares {
            go_tx.send(false).unwrap();
            h.join().unwrap();
        }
    }

    #[test]
    fn grant_is_free_after_unlock() {
        let l = Hemlock::<SpinThenPark>::new();
        l.lock();
        // SAFETY: locked above on this thread.
        unsafe { l.unlock() };
        // SAFETY: our own Grant.
        let g = unsafe { &*self_grant() };
        assert_eq!(g.grant.load(Ordering::Relaxed), 0);
    }
}
