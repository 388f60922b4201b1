//! The segmented queue under every channel, with a claiming discipline per side that follows
//! how many handles that side has.
//!
//! **Algorithm.** An unbounded FIFO of linked array segments, with single-consumer and
//! single-producer forms of each side (the index and installation protocol is crossbeam-channel's
//! list flavor, <https://github.com/crossbeam-rs/crossbeam/blob/master/crossbeam-channel/src/flavors/list.rs>). Positions are global indices;
//! the slot for index `i` is offset `i % SEG` of its segment, and offset `SEG - 1` is never a
//! slot: an index resting there means "the next segment is being installed". Each slot carries a
//! *stamp*: the producer writes the value, then stores `i + 1` with release; the consumer owns
//! index `i` once it reads that stamp with acquire. Stamps of a recycled segment are older
//! indices, so a recycled segment needs no reset.
//!
//! Each side claims indices in one of two ways, chosen per operation from that side's handle
//! count (the caller decides; see `chan/topology.rs`):
//!
//! * **Single**: the side's index and segment pointer are only ever touched by one thread, so a
//!   claim is plain loads and stores (no read-modify-write). Producer: write, stamp, store tail.
//!   Consumer: check stamp, read, store head.
//! * **Shared**: a claim is a compare-and-swap on the side's index. A producer that claims the
//!   last slot of a segment installs the next one (others wait for it); a consumer that claims
//!   the last slot moves the head to the next segment.
//!
//! The two sides' protocols meet only at the stamps and the `next` links, so either side's
//! discipline works with either of the other's.
//!
//! **Reclamation.** A single consumer recycles a segment as soon as it has read its last slot
//! (and so has seen `next` set). Shared consumers count: each slot read adds one to its
//! segment's `done` (acquire-release), and whoever brings it to `SEG - 1` recycles the segment
//! (per-segment reader counts, as crossbeam's list flavor). This is sound because a shared
//! consumer never dereferences a segment it has not claimed a slot in: it tests emptiness
//! against the tail index (not the slot), claims with a compare-and-swap on the head index,
//! whose success proves the head segment it loaded is the one of its index, and only then
//! touches the slot, which keeps the segment alive until its `done` is counted. When a side
//! switches from single to shared (a `clone`, on the consumer's own thread, between
//! operations), the head segment's `done` is set to the slots already read. Producers need no
//! protection for the same reason: a producer dereferences a segment only after claiming an
//! unwritten slot in it, and no consumer gets past an unwritten slot. Hazard pointers and
//! epochs were not needed: both sides claim before they touch, so the claim is the protection.
//!
//! **Memory.** Recycled segments go to a free list (release on push, acquire on take; a taker
//! swaps the whole list out, which rules out ABA) capped at [`FREE_CAP`] segment for an
//! unbounded queue: beyond the cap a segment is freed, so the memory of a burst goes back to
//! the allocator once it is drained (and, with glibc, to the kernel: see `trim.rs`). A bounded
//! queue keeps as many as its capacity can span (at most [`BOUNDED_FREE_CAP`]), so that a
//! steady stream through it never calls the allocator, as a ring buffer never does.
//!
//! **Guarantees.** FIFO (linearisable). The single/single path is wait-free apart from the
//! allocator; a shared side is blocking in the strict sense (a claimant that stops while
//! installing a segment holds up its side), as in crossbeam. Memory: `SEG - 1` slots of
//! `8 + size_of::<T>()` bytes per segment, plus two cache-padded indices per side; no per-thread
//! state.

use crate::sync::{AtomicBool, AtomicPtr, AtomicUsize, Backoff, Ordering, UnsafeCell};
use core::mem::MaybeUninit;
use core::ptr;
use crossbeam_utils::CachePadded;

/// Offsets per segment (one of them the "installing" sentinel). 256 beat 32 by about 2x in the
/// prototype: each segment change costs one or two cache-line hand-overs.
#[cfg(not(any(miri, loom)))]
pub(crate) const SEG: usize = 256;
/// Offsets per segment, small under Miri and loom so that segment changes are exercised.
#[cfg(any(miri, loom))]
pub(crate) const SEG: usize = 4;

/// The offset of the last real slot of a segment.
const LAST: usize = SEG - 2;

/// Recycled segments kept for reuse; more are freed. One spare is enough for a steady stream
/// (the consumer recycles one segment for each the producer starts), and it keeps a drained
/// channel within twice the memory of an idle one (the current segment plus the spare).
pub(crate) const FREE_CAP: usize = 1;

/// The most recycled segments a bounded queue keeps (see the module documentation).
pub(crate) const BOUNDED_FREE_CAP: usize = 16;

/// The number of elements before index `i`, counting over the sentinel offsets.
#[inline]
pub(crate) const fn ordinal(i: usize) -> usize {
    (i / SEG) * (SEG - 1) + i % SEG
}

/// One slot: its stamp and its value.
struct Slot<T> {
    /// `i + 1` once the value for index `i` is written.
    stamp: AtomicUsize,
    value: UnsafeCell<MaybeUninit<T>>,
}

/// A segment of `SEG - 1` slots.
pub(crate) struct Segment<T> {
    /// The following segment, set by the producer before the last slot's stamp.
    next: AtomicPtr<Segment<T>>,
    /// The link in the free list.
    link: AtomicPtr<Segment<T>>,
    /// Slots read by shared consumers (and, from a switch to shared, the ones read before).
    done: AtomicUsize,
    slots: [Slot<T>; SEG - 1],
}

impl<T> Segment<T> {
    /// Allocates a segment with every stamp 0 (no index `i` has stamp `i + 1 == 0`).
    fn alloc() -> *mut Self {
        #[cfg(not(loom))]
        {
            let layout = std::alloc::Layout::new::<Self>();
            // SAFETY: the layout has a nonzero size (it holds two pointers).
            let p = unsafe { std::alloc::alloc_zeroed(layout) } as *mut Self;
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            // All-zero bytes are a valid `Segment`: null pointers, zero stamps, uninit values.
            p
        }
        #[cfg(loom)]
        {
            Box::into_raw(Box::new(Segment {
                next: AtomicPtr::new(ptr::null_mut()),
                link: AtomicPtr::new(ptr::null_mut()),
                done: AtomicUsize::new(0),
                slots: core::array::from_fn(|_| Slot {
                    stamp: AtomicUsize::new(0),
                    value: UnsafeCell::new(MaybeUninit::uninit()),
                }),
            }))
        }
    }

    /// Frees a segment (its values must already be gone).
    ///
    /// # Safety
    /// `seg` came from [`Segment::alloc`], is not freed yet, and nobody will touch it again.
    unsafe fn free(seg: *mut Self) {
        #[cfg(not(loom))]
        // SAFETY: allocated by `alloc_zeroed` with this layout (the caller's contract); the
        // fields need no drop (atomics and `MaybeUninit`).
        unsafe {
            std::alloc::dealloc(seg as *mut u8, std::alloc::Layout::new::<Self>())
        };
        #[cfg(not(loom))]
        crate::trim::freed(core::mem::size_of::<Self>());
        #[cfg(loom)]
        // SAFETY: allocated by `Box::into_raw` (the caller's contract).
        drop(unsafe { Box::from_raw(seg) });
    }
}

/// One side's position: an index and the segment it lies in.
struct End<T> {
    index: AtomicUsize,
    seg: AtomicPtr<Segment<T>>,
    /// Producer side only: a head index some producer has read, so a lower bound of the head
    /// (the head only grows). A bounded producer tests its room against it and reads the
    /// consumers' line only when it seems full, as a ring buffer caches the other side's
    /// index; otherwise unused.
    head_seen: AtomicUsize,
}

/// Where a consumer has claimed an element: read it, then [`Queue::finish_single`] (single
/// consumer) or [`Queue::finish_shared`] (shared consumer).
pub(crate) struct Claim<T> {
    seg: *mut Segment<T>,
    index: usize,
}

impl<T> Claim<T> {
    /// The claimed value.
    pub(crate) fn value_ptr(&self) -> *mut T {
        // SAFETY: `seg` is live while the claim is held (the claimant keeps it from being
        // recycled: it is the single consumer, or its unread slot keeps `done` short).
        let slot = unsafe { &(*self.seg).slots[self.index % SEG] };
        slot.value.with_mut(|p| p as *mut T)
    }
}

/// Why [`Queue::push_single`] handed its value back.
pub(crate) enum Refused<T> {
    /// The queue holds its capacity.
    Full(T),
    /// A new segment is needed and none is free: stock one, then push again.
    NeedSegment(T),
}

/// The single consumer's own copy of its position, on a cache line nobody else reads or
/// writes. The consumer reads its position here and only stores to the shared head, which
/// bounded producers read to test for room, so their reads never cost the consumer a miss on
/// its own index (the cached indices of a ring buffer such as rtrb's).
struct Own<T> {
    index: AtomicUsize,
    seg: AtomicPtr<Segment<T>>,
    /// Whether `index` and `seg` are the head's. Cleared when the consumers turn shared; the
    /// next single consumer reloads them from the head.
    current: AtomicBool,
}

/// The queue: both ends and the free list.
pub(crate) struct Queue<T> {
    head: CachePadded<End<T>>,
    /// Touched only by the single consumer (see [`Own`]).
    own_head: CachePadded<Own<T>>,
    tail: CachePadded<End<T>>,
    /// Recycled segments, at most `free_cap` (counted in `free_len`, which never undercounts).
    free: CachePadded<AtomicPtr<Segment<T>>>,
    free_len: AtomicUsize,
    free_cap: usize,
    /// Segments allocated and not yet freed (a diagnostic: the memory the queue holds).
    live: AtomicUsize,
    /// Set when the last receiver has gone and starts discarding what is left: the head it
    /// moves then makes no room for bounded producers (see [`Queue::full_at_refresh`]).
    receivers_gone: AtomicBool,
    /// Set when dropping an element unwound while the last receiver discarded the rest: the
    /// queue's own drop then leaks the remaining elements instead of dropping them (as
    /// crossbeam-channel does), rather than running more drops during the unwind.
    leak_values: core::sync::atomic::AtomicBool,
}

// SAFETY: the queue hands values of `T` from one thread to another (hence `T: Send`), and all
// shared state is atomics or slots whose ownership passes through the stamp protocol.
unsafe impl<T: Send> Send for Queue<T> {}
// SAFETY: as above; `&Queue` only allows the operations whose contracts keep access exclusive.
unsafe impl<T: Send> Sync for Queue<T> {}

impl<T> Queue<T> {
    /// An empty queue with one segment; `cap` is the capacity a bounded channel will test
    /// for (which sets how many recycled segments are kept).
    pub(crate) fn new(cap: Option<usize>) -> Self {
        let free_cap = match cap {
            None => FREE_CAP,
            Some(c) => (c.div_ceil(SEG - 1) + 1).clamp(FREE_CAP, BOUNDED_FREE_CAP),
        };
        let seg = Segment::alloc();
        Self {
            head: CachePadded::new(End {
                index: AtomicUsize::new(0),
                seg: AtomicPtr::new(seg),
                head_seen: AtomicUsize::new(0),
            }),
            own_head: CachePadded::new(Own {
                index: AtomicUsize::new(0),
                seg: AtomicPtr::new(seg),
                current: AtomicBool::new(false),
            }),
            tail: CachePadded::new(End {
                index: AtomicUsize::new(0),
                seg: AtomicPtr::new(seg),
                head_seen: AtomicUsize::new(0),
            }),
            free: CachePadded::new(AtomicPtr::new(ptr::null_mut())),
            free_len: AtomicUsize::new(0),
            free_cap,
            live: AtomicUsize::new(1),
            receivers_gone: AtomicBool::new(false),
            leak_values: core::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Makes the queue's drop leak the elements left instead of dropping them (see
    /// `leak_values`).
    pub(crate) fn leak_remaining_values(&self) {
        // Relaxed: read only by the queue's drop, which every handle's departure precedes.
        self.leak_values
            .store(true, core::sync::atomic::Ordering::Relaxed);
    }

    /// Segments currently allocated by this queue.
    pub(crate) fn live_segments(&self) -> usize {
        self.live.load(Ordering::Relaxed)
    }

    /// The number of elements in the queue (a snapshot: exact when nobody is operating).
    pub(crate) fn len(&self) -> usize {
        // Head first: the head never passes the tail, so a later tail only over-counts.
        let h = self.head.index.load(Ordering::Acquire);
        let t = self.tail.index.load(Ordering::Acquire);
        ordinal(t).saturating_sub(ordinal(h))
    }

    /// The head's index now, for rendezvous senders waiting until their element is taken.
    pub(crate) fn head_index(&self) -> usize {
        // Acquire: pairs with the consumer's release store after it moved the value out.
        self.head.index.load(Ordering::Acquire)
    }

    /// A segment from the free list, or a new one; its `next` is null.
    fn take_segment(&self) -> *mut Segment<T> {
        let seg = self.take_free_segment();
        if seg.is_null() {
            self.live.fetch_add(1, Ordering::Relaxed);
            return Segment::alloc();
        }
        seg
    }

    /// Allocates a segment onto the free list, for a single producer to take without calling
    /// the allocator in the middle of a push (the allocator is user code: it may push on this
    /// very handle, or clone it for another thread).
    pub(crate) fn stock_segment(&self) {
        self.live.fetch_add(1, Ordering::Relaxed);
        let seg = Segment::alloc();
        self.free_len.fetch_add(1, Ordering::Relaxed);
        // SAFETY: a fresh segment, ours alone; a one-element chain (its link is null).
        unsafe { self.push_chain(&self.free, seg) };
    }

    /// A segment from the free list (null if it is empty); its `next` is null.
    fn take_free_segment(&self) -> *mut Segment<T> {
        let mut seg = ptr::null_mut();
        if !self.free.load(Ordering::Relaxed).is_null() {
            // Acquire: pairs with the release of the pushes, so the segments' links and the
            // consumer's last reads of them happen before our reuse.
            seg = self.free.swap(ptr::null_mut(), Ordering::Acquire);
        }
        if seg.is_null() {
            return seg;
        }
        self.free_len.fetch_sub(1, Ordering::Relaxed);
        // SAFETY: `seg` came off the free list, so this thread owns it now.
        let rest = unsafe { (*seg).link.load(Ordering::Relaxed) };
        if !rest.is_null() {
            // SAFETY: the rest of the list was swapped out with `seg`, so this thread owns it.
            unsafe { self.push_chain(&self.free, rest) };
        }
        // SAFETY: owned, as above. Relaxed: the segment is published by a release store of
        // the link that makes it reachable.
        unsafe {
            (*seg).next.store(ptr::null_mut(), Ordering::Relaxed);
            (*seg).done.store(0, Ordering::Relaxed);
        }
        seg
    }

    /// Pushes the chain starting at `first` (linked through `link`) onto `list`.
    ///
    /// # Safety
    /// The calling thread owns every segment of the chain.
    unsafe fn push_chain(&self, list: &AtomicPtr<Segment<T>>, first: *mut Segment<T>) {
        let mut last = first;
        loop {
            // SAFETY: owned chain (the caller's contract).
            let next = unsafe { (*last).link.load(Ordering::Relaxed) };
            if next.is_null() {
                break;
            }
            last = next;
        }
        let mut top = list.load(Ordering::Relaxed);
        loop {
            // SAFETY: owned chain.
            unsafe { (*last).link.store(top, Ordering::Relaxed) };
            // Release: publishes the chain's links and our last accesses to its segments to
            // the next taker. A push is immune to ABA: whatever `top` is, it is the list below.
            match list.compare_exchange_weak(top, first, Ordering::SeqCst, Ordering::Relaxed) {
                Ok(_) => return,
                Err(now) => top = now,
            }
        }
    }

    /// Gives a segment nobody references back: to the free list, or to the allocator when the
    /// list is full.
    ///
    /// # Safety
    /// No thread references `seg` any more, and its values have been moved out or dropped.
    unsafe fn recycle(&self, seg: *mut Segment<T>) {
        if self.free_len.fetch_add(1, Ordering::Relaxed) >= self.free_cap {
            self.free_len.fetch_sub(1, Ordering::Relaxed);
            self.live.fetch_sub(1, Ordering::Relaxed);
            // SAFETY: unreferenced (the caller's contract).
            unsafe { Segment::free(seg) };
            return;
        }
        // SAFETY: unreferenced, so ours; a one-element chain.
        unsafe {
            (*seg).link.store(ptr::null_mut(), Ordering::Relaxed);
            self.push_chain(&self.free, seg);
        }
    }

    /// Writes `value` at index `t` of `seg` and publishes it.
    ///
    /// # Safety
    /// This thread has claimed index `t`, whose slot lies in `seg`.
    #[inline(always)]
    unsafe fn write(seg: *mut Segment<T>, t: usize, value: T) {
        // SAFETY: the claim makes this slot ours until its stamp is stored; `seg` cannot be
        // recycled before the slot is read, which needs the stamp.
        let slot = unsafe { &(*seg).slots[t % SEG] };
        // SAFETY: exclusive access to the slot's value (claimed, not yet published).
        slot.value.with_mut(|p| unsafe { (*p).write(value) });
        // Release: the value (and, for the last slot, the `next` link) before the stamp.
        slot.stamp.store(t + 1, Ordering::Release);
    }

    /// Whether a producer at `t` would exceed `cap` elements. Tests the cached lower bound of
    /// the head first and reads the head itself (the consumers' cache line) only when that
    /// bound leaves no room.
    #[inline(always)]
    fn full_at(&self, t: usize, cap: usize) -> bool {
        // Relaxed: any value ever stored here was read from the head, which only grows, so it
        // is at most the head now; room against it is room against the head. Capacity is a
        // count, not a memory-safety bound (slots belong to segments, handed over by stamps),
        // so nothing needs to be acquired through it.
        let seen = self.tail.head_seen.load(Ordering::Relaxed);
        if ordinal(t).saturating_sub(ordinal(seen)) < cap {
            return false;
        }
        self.full_at_refresh(t, cap)
    }

    /// Called by the last receiver before it discards the elements left: from then on the
    /// head it moves is not room. Otherwise a bounded sender that checked for receivers just
    /// before they went could see the discard's room and push into a channel nobody can
    /// receive from, and return `Ok`.
    pub(crate) fn close_for_producers(&self) {
        // Relaxed: the discard's release stores of the head come after in program order, so
        // a producer that acquires a moved head sees this.
        self.receivers_gone.store(true, Ordering::Relaxed);
    }

    /// Whether [`Queue::close_for_producers`] was called: every receiver is gone. A producer
    /// refused for want of room checks it, so that it reports the disconnection.
    pub(crate) fn closed_for_producers(&self) -> bool {
        // Relaxed: a hint on a failure path; the handle count is the authority.
        self.receivers_gone.load(Ordering::Relaxed)
    }

    /// The slow half of [`Queue::full_at`]: reads the head and caches it.
    #[inline(never)]
    fn full_at_refresh(&self, t: usize, cap: usize) -> bool {
        let h = self.head.index.load(Ordering::Acquire);
        // Relaxed: ordered by the acquire above (see `receivers_gone`). Full for good: the
        // caller then finds the receivers gone in its waiting loop.
        if self.receivers_gone.load(Ordering::Relaxed) {
            return true;
        }
        // Relaxed: see `full_at`. Shared producers may store older heads over newer ones; the
        // value stays a lower bound, which only costs a refresh.
        self.tail.head_seen.store(h, Ordering::Relaxed);
        ordinal(t).saturating_sub(ordinal(h)) >= cap
    }

    /// Single-producer push: plain loads, one release store of the stamp, one store of the
    /// tail. Returns the index used, or hands `value` back when the queue holds `cap`, or when
    /// it needs a new segment and the free list is empty: the caller then calls
    /// [`Queue::stock_segment`] (outside the push, since allocating runs user code) and tries
    /// again, re-reading the handle count.
    ///
    /// # Safety
    /// The calling thread is the only one pushing, and every earlier push happened before this
    /// call (the handle count's acquire/release provides that on a change of discipline).
    #[inline]
    pub(crate) unsafe fn push_single(
        &self,
        value: T,
        cap: Option<usize>,
    ) -> Result<usize, Refused<T>> {
        // Relaxed: only this thread writes the tail now, and earlier writers happened before.
        // (The producer keeps no private copy of its position, unlike the consumer: nobody
        // reads the tail on the single/single path, and the copy's extra load and store were
        // measured to slow the unbounded stream down.)
        let t = self.tail.index.load(Ordering::Relaxed);
        let seg = self.tail.seg.load(Ordering::Relaxed);
        if let Some(cap) = cap
            && self.full_at(t, cap)
        {
            return Err(Refused::Full(value));
        }
        if t % SEG == LAST {
            let next = self.take_free_segment();
            if next.is_null() {
                return Err(Refused::NeedSegment(value));
            }
            // SAFETY: `seg` is the tail segment, live until its last slot is read. Release:
            // `next`'s null link and contents before it becomes reachable.
            unsafe { (*seg).next.store(next, Ordering::Release) };
            // SAFETY: single producer: index `t` is ours.
            unsafe { Self::write(seg, t, value) };
            // Relaxed: the tail segment is read by other producers only after a change of
            // discipline, which synchronises through the handle count, and by `len`, which is
            // a snapshot.
            self.tail.seg.store(next, Ordering::Relaxed);
            self.tail.index.store(t + 2, Ordering::Release);
        } else {
            // SAFETY: single producer: index `t` is ours.
            unsafe { Self::write(seg, t, value) };
            // Release: the stamp before the tail, for shared consumers' emptiness test.
            self.tail.index.store(t + 1, Ordering::Release);
        }
        Ok(t)
    }

    /// Shared-producer push: claims an index with a compare-and-swap. Returns the index used,
    /// or hands `value` back when the queue holds `cap`.
    pub(crate) fn push_shared(&self, value: T, cap: Option<usize>) -> Result<usize, T> {
        let backoff = Backoff::new();
        let mut spare: *mut Segment<T> = ptr::null_mut();
        loop {
            // Acquire: pairs with the installer's release store, so `seg` below is at least
            // the segment of `t` and its initialisation is visible.
            let t = self.tail.index.load(Ordering::Acquire);
            if t % SEG == SEG - 1 {
                // Another producer is installing the next segment.
                backoff.snooze();
                continue;
            }
            if let Some(cap) = cap
                && self.full_at(t, cap)
            {
                if self.tail.index.load(Ordering::Acquire) != t {
                    continue; // `t` was stale: the check proved nothing.
                }
                if !spare.is_null() {
                    // SAFETY: never published, so unreferenced.
                    unsafe { self.recycle(spare) };
                }
                return Err(value);
            }
            if t % SEG == LAST && spare.is_null() {
                spare = self.take_segment();
            }
            let seg = self.tail.seg.load(Ordering::Acquire);
            // Success proves the tail was `t` from our load until now, so no installation
            // happened in between and `seg` is the segment of `t`.
            if self
                .tail
                .index
                .compare_exchange_weak(t, t + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                backoff.spin();
                continue;
            }
            if t % SEG == LAST {
                // SAFETY: we claimed an unwritten slot of `seg`, so it is live.
                unsafe { (*seg).next.store(spare, Ordering::Release) };
                // Release: the segment pointer before the index that lets producers use it.
                self.tail.seg.store(spare, Ordering::Release);
                self.tail.index.store(t + 2, Ordering::Release);
                spare = ptr::null_mut();
            }
            // SAFETY: index `t` is ours, in `seg`.
            unsafe { Self::write(seg, t, value) };
            if !spare.is_null() {
                // SAFETY: never published, so unreferenced.
                unsafe { self.recycle(spare) };
            }
            return Ok(t);
        }
    }

    /// A single side's position from its own copy `own`, reloaded from the shared `end` after
    /// the side was shared (the shared end is exact then: the shared discipline keeps it, and
    /// a single owner stores every move to it).
    ///
    /// # Safety
    /// The calling thread is the side's only one, and every earlier operation of the side
    /// happened before this call.
    #[inline(always)]
    unsafe fn own_position(own: &Own<T>, end: &End<T>) -> (usize, *mut Segment<T>) {
        // Relaxed throughout: only the side's single owner touches `own`, and the previous
        // owner's accesses happened before (the contract).
        if !own.current.load(Ordering::Relaxed) {
            own.index
                .store(end.index.load(Ordering::Relaxed), Ordering::Relaxed);
            own.seg
                .store(end.seg.load(Ordering::Relaxed), Ordering::Relaxed);
            own.current.store(true, Ordering::Relaxed);
        }
        (
            own.index.load(Ordering::Relaxed),
            own.seg.load(Ordering::Relaxed),
        )
    }

    /// Single-consumer claim: the element at the head, if its stamp says it is written.
    ///
    /// # Safety
    /// The calling thread is the only consumer, and every earlier consumer operation happened
    /// before this call.
    #[inline]
    pub(crate) unsafe fn claim_single(&self) -> Option<Claim<T>> {
        // SAFETY: the same contract, for the consumers.
        let (h, seg) = unsafe { Self::own_position(&self.own_head, &self.head) };
        // SAFETY: the head segment is live: only this thread recycles segments now.
        let slot = unsafe { &(*seg).slots[h % SEG] };
        // Acquire: pairs with the producer's release, so the value is visible.
        if slot.stamp.load(Ordering::Acquire) == h + 1 {
            Some(Claim { seg, index: h })
        } else {
            None
        }
    }

    /// Moves the single consumer's position to `h` in `seg`: its own copy, then the head
    /// (release: our reads of the slots before anyone who sees the head move on).
    #[inline(always)]
    fn advance_single(&self, h: usize, seg: *mut Segment<T>, new_seg: bool) {
        // Relaxed: see `own_position`.
        self.own_head.index.store(h, Ordering::Relaxed);
        if new_seg {
            self.own_head.seg.store(seg, Ordering::Relaxed);
            // Relaxed: read by consumers only after a change of discipline, which
            // synchronises through the handle count.
            self.head.seg.store(seg, Ordering::Relaxed);
        }
        self.head.index.store(h, Ordering::Release);
    }

    /// Completes a single consumer's claim whose value has been moved out or dropped.
    ///
    /// # Safety
    /// `claim` came from [`Queue::claim_single`] under the same contract, and its value is gone.
    #[inline]
    pub(crate) unsafe fn finish_single(&self, claim: Claim<T>) {
        let h = claim.index;
        if h % SEG == LAST {
            // SAFETY: the segment is live (we have not recycled it yet). Acquire: the producer
            // stored `next` before the stamp we acquired; this pairs with its release.
            let next = unsafe { (*claim.seg).next.load(Ordering::Acquire) };
            debug_assert!(!next.is_null());
            self.advance_single(h + 2, next, true);
            // SAFETY: every slot of the segment is read and `next` was seen set, so no producer
            // or consumer references it any more.
            unsafe { self.recycle(claim.seg) };
        } else {
            self.advance_single(h + 1, claim.seg, false);
        }
    }

    /// Single-consumer batch: takes up to `max` elements into `out`, publishing the head once
    /// at the end (producers of a bounded channel see the room appear in one step). Returns
    /// how many were taken.
    ///
    /// No user code runs inside: `out` must have room for `max` more elements, so `push`
    /// never calls the allocator (which could re-enter this receiver, or unwind, while the
    /// head is not yet published), and the run ends at the first recycled segment (freeing it
    /// calls the allocator), so it may return fewer than are there.
    ///
    /// # Safety
    /// As [`Queue::claim_single`], and `out.capacity() - out.len() >= max`.
    pub(crate) unsafe fn take_run_single(&self, max: usize, out: &mut Vec<T>) -> usize {
        debug_assert!(out.capacity() - out.len() >= max);
        // SAFETY: the same contract, for the consumers.
        let (mut h, seg) = unsafe { Self::own_position(&self.own_head, &self.head) };
        let mut n = 0;
        while n < max {
            // SAFETY: the head segment is live: only this thread recycles segments now.
            let slot = unsafe { &(*seg).slots[h % SEG] };
            // Acquire: pairs with the producer's release, so the value is visible.
            if slot.stamp.load(Ordering::Acquire) != h + 1 {
                break;
            }
            // SAFETY: written (stamp seen) and ours; moved out exactly once.
            let value = slot.value.with_mut(|p| unsafe { (*p).assume_init_read() });
            n += 1;
            if h % SEG == LAST {
                // SAFETY: live until recycled below. Acquire: `next` was stored before the
                // stamp we acquired.
                let next = unsafe { (*seg).next.load(Ordering::Acquire) };
                // As in `finish_single`, before the segment is recycled.
                self.advance_single(h + 2, next, true);
                // Within capacity (the contract): no allocation, no unwinding.
                out.push(value);
                // SAFETY: every slot read and `next` seen: nobody references `seg`.
                unsafe { self.recycle(seg) };
                // Recycling may free the segment, which calls the allocator: user code, which
                // may receive on this very handle. The run ends here, published; the caller
                // starts another from the head as it is now.
                return n;
            }
            h += 1;
            // Within capacity (the contract): no allocation, no unwinding.
            out.push(value);
        }
        self.advance_single(h, seg, false);
        n
    }

    /// Prepares the consumer side for the shared discipline: the head segment's `done` counts
    /// the slots the single consumer has read in it.
    ///
    /// # Safety
    /// Called by the only consumer, between operations, before a second consumer exists.
    pub(crate) unsafe fn share_consumers(&self) {
        // Relaxed: the other consumers receive their handles through a synchronising transfer.
        // The head is exact: the single consumer stores every move to it.
        let h = self.head.index.load(Ordering::Relaxed);
        let seg = self.head.seg.load(Ordering::Relaxed);
        // SAFETY: the head segment is live (the caller is the only consumer).
        unsafe { (*seg).done.store(h % SEG, Ordering::Relaxed) };
        // The shared consumers will move the head: a later single consumer reloads.
        self.own_head.current.store(false, Ordering::Relaxed);
    }

    /// Shared-consumer claim: a compare-and-swap on the head index, then a wait for the
    /// producer to finish the slot if it claimed it but has not written it yet.
    pub(crate) fn claim_shared(&self) -> Option<Claim<T>> {
        let backoff = Backoff::new();
        loop {
            // Acquire: pairs with the release stores of a consumer moving the head, so `seg`
            // below is at least the segment of `h`.
            let h = self.head.index.load(Ordering::Acquire);
            if h % SEG == SEG - 1 {
                // Another consumer is moving the head to the next segment.
                backoff.snooze();
                continue;
            }
            let seg = self.head.seg.load(Ordering::Acquire);
            // Acquire: with a single producer the tail is stored after the stamp, so a tail
            // past `h` means the slot is written.
            let t = self.tail.index.load(Ordering::Acquire);
            if ordinal(t) <= ordinal(h) {
                // The head never passes the tail and only grows, so at our tail load the
                // head was `h` and equal to the tail: empty then.
                return None;
            }
            // Success proves the head was `h` from our load until now, so `seg` is the segment
            // of `h` and our unread slot keeps it alive. `seg` is not dereferenced before.
            if self
                .head
                .index
                .compare_exchange_weak(h, h + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                backoff.spin();
                continue;
            }
            // SAFETY: we claimed index `h` of `seg` just above.
            return Some(unsafe { self.claimed_shared(seg, h, &backoff) });
        }
    }

    /// Shared-consumer claim of index `i` only, for a rendezvous sender taking back its own
    /// element (a timeout, or every receiver gone): `None` if the head has moved past `i`
    /// (a receiver claimed it). Exactly one of this and a receiver's claim succeeds.
    ///
    /// # Safety
    /// Index `i` was pushed by the caller and its stamp is stored (the push returned), so
    /// the head is at most `i`; receivers claim with [`Queue::claim_shared`] only.
    pub(crate) unsafe fn claim_index_shared(&self, i: usize) -> Option<Claim<T>> {
        let backoff = Backoff::new();
        loop {
            // Acquire: as in `claim_shared`.
            let h = self.head.index.load(Ordering::Acquire);
            if h % SEG == SEG - 1 {
                backoff.snooze();
                continue;
            }
            if h != i {
                // The head only grows and was at most `i`: a receiver claimed it.
                return None;
            }
            let seg = self.head.seg.load(Ordering::Acquire);
            // Success proves the head was `i` from our load until now: `seg` is its segment.
            if self
                .head
                .index
                .compare_exchange_weak(i, i + 1, Ordering::SeqCst, Ordering::Relaxed)
                .is_err()
            {
                backoff.spin();
                continue;
            }
            // SAFETY: we claimed index `i` of `seg` just above.
            return Some(unsafe { self.claimed_shared(seg, i, &backoff) });
        }
    }

    /// The rest of a shared claim after the compare-and-swap that took index `h`: moves the
    /// head to the next segment if `h` is its last slot, then waits for the slot's value.
    ///
    /// # Safety
    /// This thread's compare-and-swap moved the head from `h` to `h + 1`, with `seg` loaded
    /// after `h` (so it is the segment of `h`, kept alive by our unread slot).
    unsafe fn claimed_shared(&self, seg: *mut Segment<T>, h: usize, backoff: &Backoff) -> Claim<T> {
        if h % SEG == LAST {
            // A shared producer links `next` right after claiming this slot; wait for it.
            let next = loop {
                // SAFETY: live, as above. Acquire: the next segment's reset before its use.
                let next = unsafe { (*seg).next.load(Ordering::Acquire) };
                if !next.is_null() {
                    break next;
                }
                backoff.snooze();
            };
            // Release: the segment pointer before the index that lets consumers use it.
            self.head.seg.store(next, Ordering::Release);
            self.head.index.store(h + 2, Ordering::Release);
        }
        // SAFETY: live, as above.
        let slot = unsafe { &(*seg).slots[h % SEG] };
        // Acquire: pairs with the producer's release, so the value is visible. A shared
        // producer may have claimed the slot and not written it yet.
        while slot.stamp.load(Ordering::Acquire) != h + 1 {
            backoff.snooze();
        }
        Claim { seg, index: h }
    }

    /// Completes a shared consumer's claim whose value has been moved out or dropped; the last
    /// reader of a segment recycles it.
    ///
    /// # Safety
    /// `claim` came from [`Queue::claim_shared`], and its value is gone.
    pub(crate) unsafe fn finish_shared(&self, claim: Claim<T>) {
        // AcqRel: our read of the slot before the count; the last reader acquires every other
        // reader's count (a release sequence of RMWs) before it recycles.
        // SAFETY: our counted-but-not-yet-added slot keeps the segment alive.
        let done = unsafe { (*claim.seg).done.fetch_add(1, Ordering::AcqRel) } + 1;
        if done == SEG - 1 {
            // SAFETY: every slot is read, the head has left the segment (its last slot was
            // claimed), and no producer has an unwritten slot in it: nobody references it.
            unsafe { self.recycle(claim.seg) };
        }
    }
}

impl<T> Queue<T> {
    /// Moves the head element out with exclusive access (every handle gone), advancing the
    /// head first and freeing each segment the head leaves, so that the queue stays consistent
    /// if dropping the returned value unwinds.
    fn pop_exclusive(&mut self) -> Option<T> {
        // Relaxed: exclusive access, every handle's operations happened before.
        let t = self.tail.index.load(Ordering::Relaxed);
        loop {
            let h = self.head.index.load(Ordering::Relaxed);
            if h == t {
                return None;
            }
            let seg = self.head.seg.load(Ordering::Relaxed);
            if h % SEG == SEG - 1 {
                self.head.index.store(h + 1, Ordering::Relaxed);
                continue;
            }
            // SAFETY: segments from head to tail are live and linked; exclusive access.
            let slot = unsafe { &(*seg).slots[h % SEG] };
            let value = if slot.stamp.load(Ordering::Relaxed) == h + 1 {
                // SAFETY: written and never read: moved out exactly once, here.
                Some(slot.value.with_mut(|p| unsafe { (*p).assume_init_read() }))
            } else {
                None
            };
            if h % SEG == LAST {
                // SAFETY: live, exclusive.
                let next = unsafe { (*seg).next.load(Ordering::Relaxed) };
                self.head.seg.store(next, Ordering::Relaxed);
                self.head.index.store(h + 2, Ordering::Relaxed);
                // SAFETY: no one references it; its last value was just moved out.
                unsafe { Segment::free(seg) };
            } else {
                self.head.index.store(h + 1, Ordering::Relaxed);
            }
            if value.is_some() {
                return value;
            }
        }
    }

    /// Frees the head segment and the free list (with exclusive access, after the values).
    fn free_segments(&mut self) {
        // SAFETY: the head segment holds no values left; nothing references it.
        unsafe { Segment::free(self.head.seg.load(Ordering::Relaxed)) };
        let mut s = self.free.load(Ordering::Relaxed);
        while !s.is_null() {
            // SAFETY: listed segments are owned by the queue, exclusive access.
            let next = unsafe { (*s).link.load(Ordering::Relaxed) };
            // SAFETY: as above; their values were moved out before they were listed.
            unsafe { Segment::free(s) };
            s = next;
        }
    }
}

/// Finishes dropping a queue if dropping one of its values unwinds: the values after it are
/// leaked, as crossbeam-channel does (dropping them could panic again, during the unwind,
/// which aborts), and the segments are freed.
struct DropRest<'a, T>(&'a mut Queue<T>);

impl<T> Drop for DropRest<'_, T> {
    fn drop(&mut self) {
        while let Some(v) = self.0.pop_exclusive() {
            core::mem::forget(v);
        }
        self.0.free_segments();
    }
}

impl<T> Drop for Queue<T> {
    fn drop(&mut self) {
        // Exclusive access: every handle is gone, and its operations happened before. Each
        // value is moved out (and the head advanced) before its drop runs user code.
        let leak = self.leak_values.load(core::sync::atomic::Ordering::Relaxed);
        let rest = DropRest(self);
        if !leak {
            while let Some(v) = rest.0.pop_exclusive() {
                drop(v);
            }
        }
        drop(rest);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::panic::{AssertUnwindSafe, catch_unwind};
    use std::sync::atomic::AtomicUsize as Counter;

    /// Counts its drops; the one with `panics` set panics in `drop`.
    struct Elem(&'static Counter, bool);

    impl Drop for Elem {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
            if self.1 {
                panic!("element drop panics");
            }
        }
    }

    fn filled(n: usize, drops: &'static Counter, panic_at: Option<usize>) -> Queue<Elem> {
        let q = Queue::new(None);
        for i in 0..n {
            let mut e = Elem(drops, Some(i) == panic_at);
            loop {
                // SAFETY: this thread is the only producer.
                match unsafe { q.push_single(e, None) } {
                    Ok(_) => break,
                    Err(Refused::NeedSegment(back)) => {
                        e = back;
                        q.stock_segment();
                    }
                    Err(Refused::Full(_)) => unreachable!("unbounded"),
                }
            }
        }
        q
    }

    #[test]
    fn drop_drops_every_value_once() {
        static DROPS: Counter = Counter::new(0);
        let n = 3 * SEG;
        drop(filled(n, &DROPS, None));
        assert_eq!(DROPS.load(Ordering::SeqCst), n);
    }

    #[test]
    fn drop_panics() {
        // A value whose drop panics: the values before it were dropped, those after it are
        // leaked (not dropped during the unwind, which would abort on a second panic), and
        // every segment is freed (Miri reports a leaked segment or a use after free).
        static DROPS: Counter = Counter::new(0);
        let n = 3 * SEG;
        let q = filled(n, &DROPS, Some(SEG + 1));
        let r = catch_unwind(AssertUnwindSafe(move || drop(q)));
        assert!(r.is_err());
        // Elements 0..=SEG + 1 were dropped (the last of them panicking), across a segment.
        assert_eq!(DROPS.load(Ordering::SeqCst), SEG + 2);
    }

    /// Once closed to producers (the last receiver discarding what is left), the head the
    /// discard moves is not room: a bounded push is refused, and the refusal can be told
    /// apart as a disconnection.
    #[test]
    fn a_discard_makes_no_room() {
        let q: Queue<u32> = Queue::new(Some(1));
        // SAFETY: this thread is the only producer and the only consumer.
        unsafe {
            assert!(q.push_single(0, Some(1)).is_ok());
            assert!(matches!(q.push_single(1, Some(1)), Err(Refused::Full(1))));
            q.close_for_producers();
            let c = q.claim_single().expect("the element is there");
            assert_eq!(c.value_ptr().read(), 0);
            q.finish_single(c);
            assert!(matches!(q.push_single(2, Some(1)), Err(Refused::Full(2))));
        }
        assert!(q.closed_for_producers());
    }

    #[test]
    fn leak_remaining_values_leaks_them() {
        static DROPS: Counter = Counter::new(0);
        let q = filled(2 * SEG, &DROPS, None);
        q.leak_remaining_values();
        drop(q);
        assert_eq!(DROPS.load(Ordering::SeqCst), 0);
    }
}
