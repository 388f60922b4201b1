//! The choice of discipline by handle count: the idea of the crate, in one place. Every
//! operation that depends on how many handles a side has goes through here (the push, the
//! claim and its completion, the batch run of `recv_many`, and the count changes of `clone`,
//! `into_shared` and `drop`), so every contract of the queue's single-thread operations is
//! discharged in this file.
//!
//! **How a side follows its handles.** Each operation reads its side's handle count with
//! acquire. One handle: the *Single* discipline (`queue.rs`: plain loads and stores, no RMW).
//! More: the *Shared* discipline (compare-and-swap on the side's index). The switch is
//! race-free because handles are `Send` but not `Sync`: `clone` takes `&self` of a handle
//! only one thread can reach, so when the count goes from one to two, the thread doing it is
//! the side's only thread and is not mid-operation; the new handle reaches another thread
//! only through something that synchronises (a spawn, a channel). When the count drops back to
//! one, each departing handle released (`fetch_sub`, release) after its last operation, and the
//! survivor's next operation reads the count with acquire: it sees every earlier operation, and
//! nobody else can start one. That is the safe point. The producer keeps its position in the
//! words the shared discipline uses; the single consumer keeps a private copy of its own,
//! which the switch to shared marks stale (`Queue::share_consumers`).
//!
//! **Shared handles.** A `SharedSender`/`SharedReceiver` (`shared.rs`) is `Sync` and counts
//! as [`SHARED`] handles: the high half of the side's count, so the count differs from one
//! while any shared handle lives and the side stays shared.
//!
//! **Guarantees.** A side runs the single discipline exactly when one handle can use it;
//! the counts are exact (they are the handles), and a switch happens only at a safe point on
//! the switching handle's own thread.

use super::{Chan, Wait};
use crate::queue::{Claim, Refused};
use crate::remark;
use crate::sync::{AtomicUsize, Ordering};
use core::panic::Location;

/// What one shared handle adds to its side's handle count: the high half of the word, so
/// that plain and shared handles are counted apart and any shared handle makes the count
/// differ from one.
pub(crate) const SHARED: usize = 1 << (usize::BITS / 2);

/// The number of handles a side's raw count stands for (plain plus shared).
pub(crate) fn handles(raw: usize) -> usize {
    raw % SHARED + raw / SHARED
}

/// Live handles per side (a shared handle counts [`SHARED`]).
pub(super) struct Counts {
    pub(super) senders: AtomicUsize,
    pub(super) receivers: AtomicUsize,
}

impl Counts {
    /// One sender and one receiver.
    pub(super) fn new() -> Self {
        Self {
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }
}

/// The most handles of each side alive at once, for the channel's last remark. Updated only
/// while remarks are on, by `clone` and `into_shared` (never on a send or a receive).
pub(super) struct Peaks {
    senders: AtomicUsize,
    receivers: AtomicUsize,
}

impl Peaks {
    /// One sender and one receiver.
    pub(super) fn new() -> Self {
        Self {
            senders: AtomicUsize::new(1),
            receivers: AtomicUsize::new(1),
        }
    }

    /// The peaks so far: (senders, receivers).
    pub(super) fn get(&self) -> (usize, usize) {
        // Relaxed: read when the channel is dropped, after every handle's drop.
        (
            self.senders.load(Ordering::Relaxed),
            self.receivers.load(Ordering::Relaxed),
        )
    }

    /// Notes a side whose raw count is now `raw`.
    fn note(peak: &AtomicUsize, raw: usize) {
        // Relaxed: a statistic, read once at the end.
        peak.fetch_max(handles(raw), Ordering::Relaxed);
    }
}

impl<T> Chan<T> {
    /// Pushes with the discipline the sender count selects; hands the value back when full.
    /// The caller holds a `Sender` of this channel (and so is on the one thread that can use it).
    #[inline(always)]
    pub(super) fn push(&self, value: T) -> Result<usize, T> {
        // Acquire: pairs with departed senders' release, making their pushes visible before a
        // return to the single discipline.
        if self.counts.senders.load(Ordering::Acquire) != 1 {
            return self.queue.push_shared(value, self.cap);
        }
        // SAFETY: one sender exists and the caller holds it through a `!Sync` handle, so this
        // thread is the only producer; the count can only grow from this thread, and every
        // earlier push happened before (see the module docs).
        match unsafe { self.queue.push_single(value, self.cap) } {
            Ok(index) => Ok(index),
            Err(Refused::Full(v)) => Err(v),
            Err(Refused::NeedSegment(v)) => self.push_after_stocking(v),
        }
    }

    /// A single producer's push that needs a new segment: allocating runs user code (the
    /// global allocator), so it happens here, with nothing half done, and the push starts over
    /// (reading the handle count again).
    #[cold]
    #[inline(never)]
    fn push_after_stocking(&self, value: T) -> Result<usize, T> {
        self.queue.stock_segment();
        self.push(value)
    }

    /// Claims the head element with the discipline the receiver count selects. Returns the
    /// claim and whether it is shared. Rendezvous receivers always claim shared: a sender
    /// that gives up takes its element back with a claim of its own (see `await_taken`),
    /// and the compare-and-swap decides which of the two gets it.
    #[inline]
    pub(super) fn claim(&self) -> Option<(Claim<T>, bool)> {
        // Acquire: as in `push`, for departed receivers.
        let claimed = if !self.rendezvous && self.counts.receivers.load(Ordering::Acquire) == 1 {
            // SAFETY: the only receiver is the caller's, on this thread (as in `push`).
            unsafe { self.queue.claim_single() }.map(|c| (c, false))
        } else {
            self.queue.claim_shared().map(|c| (c, true))
        };
        if claimed.is_none() && self.timer.is_some() {
            return self.claim_after_firing();
        }
        claimed
    }

    /// A timer channel found empty: fires the timer if a delivery is due, pushing it (with the
    /// shared discipline: the timer counts as a shared sender), then claims once more.
    #[cold]
    #[inline(never)]
    fn claim_after_firing(&self) -> Option<(Claim<T>, bool)> {
        let message = self.timer.as_ref()?.fire(std::time::Instant::now())?;
        // Full only if another receiver's delivery is still there: this one is dropped, as
        // a ticker drops the ticks nobody takes.
        if self.queue.push_shared(message, self.cap).is_ok() {
            self.wake_receivers();
        }
        if !self.rendezvous && self.counts.receivers.load(Ordering::Acquire) == 1 {
            // SAFETY: as in `claim`.
            unsafe { self.queue.claim_single() }.map(|c| (c, false))
        } else {
            self.queue.claim_shared().map(|c| (c, true))
        }
    }

    /// Completes a claim whose value is gone, and wakes a waiting sender if needed.
    #[inline]
    pub(super) fn finish(&self, claim: Claim<T>, shared: bool) {
        if shared {
            // SAFETY: the claim came from `claim_shared`, with its value moved out or dropped.
            unsafe { self.queue.finish_shared(claim) };
        } else {
            // SAFETY: the claim came from `claim_single` under the same contract, with its
            // value moved out or dropped.
            unsafe { self.queue.finish_single(claim) };
        }
        if self.cap.is_some() && self.wait != Wait::Spin {
            if self.rendezvous {
                // Rendezvous senders sleep for different things (room, or their own element
                // taken): wake them all.
                self.send_ec.notify();
            } else {
                // One slot of room: one sleeping sender can use it (all of them wait for
                // room), so one is woken instead of all of them.
                self.send_ec.notify_one();
            }
        }
    }

    /// Takes the head element, if any.
    #[inline]
    pub(super) fn try_take(&self) -> Option<T> {
        let (claim, shared) = self.claim()?;
        // SAFETY: the claim gives us the written value; we move it out exactly once.
        let value = unsafe { claim.value_ptr().read() };
        self.finish(claim, shared);
        Some(value)
    }

    /// Whether every receiver is gone.
    #[inline(always)]
    pub(super) fn receivers_gone(&self) -> bool {
        // Acquire: the departed receivers' operations happen before what the caller does next.
        self.counts.receivers.load(Ordering::Acquire) == 0
    }

    /// Whether every sender is gone.
    #[inline(always)]
    pub(super) fn senders_gone(&self) -> bool {
        // Acquire: the departed senders' pushes are visible to the caller's receives.
        self.counts.senders.load(Ordering::Acquire) == 0
    }

    /// Whether `never()` made this channel.
    pub(super) fn is_never(&self) -> bool {
        self.never
    }

    /// Live senders (plain and shared handles).
    pub(super) fn sender_handles(&self) -> usize {
        handles(self.counts.senders.load(Ordering::Relaxed))
    }

    /// Live receivers (plain and shared handles).
    pub(super) fn receiver_handles(&self) -> usize {
        handles(self.counts.receivers.load(Ordering::Relaxed))
    }

    /// The batch run of `recv_many`: with one receiver, takes up to `max` elements into
    /// spare capacity of `buf` at once; `None` when the consumers are shared (the caller then
    /// receives one at a time). The caller holds a `Receiver` of this channel, on its thread.
    pub(super) fn take_run(&self, max: usize, buf: &mut Vec<T>) -> Option<usize> {
        let spare = (buf.capacity() - buf.len()).min(max);
        // Acquire: as in `claim` (read afresh: growing `buf` ran user code).
        if spare == 0
            || self.rendezvous
            || self.timer.is_some()
            || self.counts.receivers.load(Ordering::Acquire) != 1
        {
            return None;
        }
        // SAFETY: as in `claim`, the only receiver is the caller's, on this thread; and `buf`
        // has room for `spare` elements.
        Some(unsafe { self.queue.take_run_single(spare, buf) })
    }

    /// Counts `n` more senders (a `clone`: 1; an `into_shared`: the rest of [`SHARED`]; a
    /// shared clone: [`SHARED`]); remarks a change to the shared discipline as `what` at `at`.
    /// The caller holds a live sender.
    pub(super) fn add_senders(&self, n: usize, what: &str, at: &Location<'_>) {
        // Relaxed: the new handle reaches another thread only through a synchronising
        // transfer, which carries this increment with it (as `Arc::clone`).
        let before = self.counts.senders.fetch_add(n, Ordering::Relaxed);
        if remark::enabled() {
            Peaks::note(&self.peaks.senders, before + n);
            // A change of discipline, or (on a side already shared) a second handle.
            if before == 1 || (handles(before) == 1 && handles(before + n) > 1) {
                self.remark_change(what, at);
            }
        }
    }

    /// Takes a shared handle's weight away, all but the one its own drop removes.
    pub(super) fn remove_shared_sender_weight(&self) {
        // Release: our pushes before the count a returning single producer acquires.
        self.counts.senders.fetch_sub(SHARED - 1, Ordering::Release);
    }

    /// A sender made at `made_at` is dropped: the last one disconnects the channel.
    pub(super) fn sender_dropped(&self, made_at: &Location<'_>) {
        // Release: our pushes before the count another thread reads with acquire when it
        // returns to the single discipline or finds the channel disconnected. Acquire: for the
        // same reason when we are the one who sees it.
        let before = self.counts.senders.fetch_sub(1, Ordering::AcqRel);
        if before == 1 {
            // Disconnected: wake every receiver so that it drains and sees it.
            self.recv_ec.notify_all();
        } else if before == 2 && remark::enabled() {
            // Drop glue has no useful caller location: name the handle by where it was made.
            self.remark_change("drop of the sender made", made_at);
        }
    }

    /// Counts `n` more receivers, as [`Chan::add_senders`]; going from one to more, the
    /// consumers switch to the shared discipline first. The caller holds a live receiver on
    /// this thread, between operations (`clone` and `into_shared` take `&self` of a `!Sync`
    /// handle, and a `RecvGuard` borrows it mutably).
    pub(super) fn add_receivers(&self, n: usize, what: &str, at: &Location<'_>) {
        // Acquire: departed receivers' reads and counts happen before we seed the count.
        // Rendezvous receivers are shared from the start (their counts are already exact).
        if !self.rendezvous && self.counts.receivers.load(Ordering::Acquire) == 1 {
            // SAFETY: one receiver exists, the caller's, on this thread and between
            // operations (the contract above).
            unsafe { self.queue.share_consumers() };
        }
        // Relaxed: as in `add_senders`.
        let before = self.counts.receivers.fetch_add(n, Ordering::Relaxed);
        if remark::enabled() {
            Peaks::note(&self.peaks.receivers, before + n);
            // A change of discipline, or (on a side already shared) a second handle.
            if before == 1 || (handles(before) == 1 && handles(before + n) > 1) {
                self.remark_change(what, at);
            }
        }
    }

    /// Takes a shared handle's weight away, all but the one its own drop removes.
    pub(super) fn remove_shared_receiver_weight(&self) {
        // Release: our receives before the count a returning single consumer acquires.
        self.counts
            .receivers
            .fetch_sub(SHARED - 1, Ordering::Release);
    }

    /// A receiver made at `made_at` is dropped: the last one wakes the senders and drops
    /// what is left in the channel.
    pub(super) fn receiver_dropped(&self, made_at: &Location<'_>) {
        // AcqRel: as in `sender_dropped`, for the receivers' side.
        let before = self.counts.receivers.fetch_sub(1, Ordering::AcqRel);
        if before == 1 {
            self.send_ec.notify_all();
            if !self.rendezvous {
                // Nobody can receive any more: drop what is left now rather than with the
                // channel (crossbeam-channel does the same). A rendezvous channel's element
                // is still its sender's, who takes it back.
                self.discard_all();
            }
        } else if before == 2 && remark::enabled() {
            self.remark_change("drop of the receiver made", made_at);
        }
    }
}
