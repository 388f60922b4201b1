//! The channel: the state its handles share ([`Chan`]) and its waiting machinery (spinning,
//! yielding and sleeping on eventcounts, timeouts, the rendezvous hand-over), over the
//! segmented queue of `queue.rs`. The choice of discipline by handle count lives in
//! `topology.rs`, the handles and iterators in `handles.rs`.
//!
//! **Guarantees.** FIFO per channel (linearisable); every element is dropped exactly once
//! (received, or left in the channel and dropped with it, or by the last receiver's drop).
//! Per channel: the queue, two cache-padded handle counts, two eventcounts.

mod futures;
mod handles;
mod handoff;
mod timer;
mod topology;

use crate::error::{SendTimeoutError, TrySendError};
use crate::eventcount::EventCount;
use crate::queue::Queue;
use crate::remark;
use crate::sync::{Arc, AtomicU32, AtomicUsize, Ordering, spin_loop, yield_now};
use core::marker::PhantomData;
use core::panic::Location;
use crossbeam_utils::CachePadded;
pub use futures::{RecvFut, SendFut};
#[cfg(feature = "futures")]
pub use futures::{RecvStream, SendSink};
pub use handles::{IntoIter, Iter, Receiver, RecvGuard, Sender, TryIter};
use handoff::Registry;
pub(crate) use handoff::{Context, Handoff, Side, Slot};
use std::time::Instant;
use timer::Timer;
pub use timer::{after, at, never, tick};
use topology::{Counts, Peaks, handles};

/// How a blocked operation waits, chosen per channel with [`Builder::wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Spin, yielding the processor after a few rounds (so that both ends on one core make
    /// progress). Senders then never pay for a wake-up check.
    Spin,
    /// Sleep in the kernel at once.
    Park,
    /// Spin (and yield) for `spins` rounds, then sleep. The default, with 100 rounds.
    SpinThenPark {
        /// Rounds before sleeping; the first few spin, the rest yield.
        spins: u32,
    },
}

impl Default for Wait {
    fn default() -> Self {
        Self::SpinThenPark { spins: 100 }
    }
}

/// Rounds of pure spinning before a waiter starts yielding its time slice: 1 to 64 pause
/// instructions each, 127 in all (crossbeam's `Backoff` spins as long). Sixteen rounds (about
/// 700 pauses) burnt tens of microseconds whenever the partner was not running.
const SPIN_ROUNDS: u32 = 7;

/// Yields a waiter keeps however its spinning budget shrinks, so that a wait can still end
/// while yielding and grow the budget back.
const MIN_YIELDS: u32 = 2;

/// Whether a waiter of strategy `wait` that has waited `round` rounds goes to sleep now,
/// with `budget` rounds of spinning and yielding allowed (see [`Chan::adapt_budget`]).
/// [`Wait::Spin`] never does: its senders never notify, so a sleeper would never wake.
#[inline]
fn parks_after(wait: Wait, round: u32, budget: u32) -> bool {
    match wait {
        Wait::Spin => false,
        Wait::Park => true,
        Wait::SpinThenPark { spins } => round >= spins.min(budget),
    }
}

/// The earlier of two optional instants (`None` is never).
pub(crate) fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// How a rendezvous sender's wait for its element ended (see `Chan::await_taken`).
enum Handover {
    /// A receiver claimed the element.
    Taken,
    /// Every receiver is gone.
    Disconnected,
    /// The sender gives up: its deadline passed (or it is a `try_send`) and no receiver is
    /// blocked in a receive that could take the element.
    NoReceiver,
}

/// Builds a channel with a chosen waiting strategy.
///
/// ```
/// use welltempered_channel::{Builder, Wait};
/// let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(8);
/// tx.send(1).unwrap();
/// assert_eq!(rx.recv(), Ok(1));
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Builder {
    wait: Wait,
}

impl Builder {
    /// A builder with the default strategy ([`Wait::SpinThenPark`]).
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets how blocked operations wait.
    pub fn wait(mut self, wait: Wait) -> Self {
        self.wait = wait;
        self
    }

    /// An unbounded channel. The construction site is what remarks report.
    #[track_caller]
    pub fn unbounded<T>(self) -> (Sender<T>, Receiver<T>) {
        Chan::build_with(None, self.wait, Location::caller(), None, false)
    }

    /// A channel holding at most `cap` elements; `0` makes a rendezvous channel.
    #[track_caller]
    pub fn bounded<T>(self, cap: usize) -> (Sender<T>, Receiver<T>) {
        Chan::build_with(Some(cap), self.wait, Location::caller(), None, false)
    }
}

/// The state the handles share.
pub(crate) struct Chan<T> {
    queue: Queue<T>,
    counts: CachePadded<Counts>,
    /// Elements the queue may hold (`Some(1)` for rendezvous); `None`: unbounded.
    cap: Option<usize>,
    rendezvous: bool,
    /// Receivers blocked in a receive (maintained for rendezvous channels only; sleeping
    /// selections are in `selecting` instead).
    blocked_receivers: AtomicUsize,
    /// Blocked receivers taking an element right now (see `Chan::blocked_receive`).
    claiming: AtomicUsize,
    /// The sleeping selections of a rendezvous channel, committed one operation at a time
    /// (`handoff.rs`).
    selecting: Registry<T>,
    wait: Wait,
    /// Rounds a [`Wait::SpinThenPark`] waiter spins and yields before it sleeps, adapted to
    /// how waits end (see [`Chan::adapt_budget`]); at most the strategy's `spins`.
    spin_budget: AtomicU32,
    /// Receivers sleep here until an element arrives or the senders are gone.
    recv_ec: EventCount,
    /// Senders sleep here until room appears (or their element is taken) or the receivers
    /// are gone.
    send_ec: EventCount,
    site: &'static Location<'static>,
    /// The timer of a timer channel (`timer.rs`), fired by receives that find it empty.
    timer: Option<Timer<T>>,
    /// The most handles of each side alive at once, kept only while remarks are on (for the
    /// channel's last remark).
    peaks: Peaks,
    /// Made by `never()`: every such channel is the same channel to `same_channel`, as
    /// crossbeam's are (it has no state to tell them apart).
    never: bool,
}

impl<T> Drop for Chan<T> {
    fn drop(&mut self) {
        if remark::enabled() {
            let (s, r) = self.peaks.get();
            remark::emit(&remark::closing_line(self.site, s, r));
        }
    }
}

impl<T> Chan<T> {
    fn build_with(
        cap: Option<usize>,
        wait: Wait,
        site: &'static Location<'static>,
        timer: Option<Timer<T>>,
        never: bool,
    ) -> (Sender<T>, Receiver<T>) {
        let chan = Arc::new(Chan {
            queue: Queue::new(cap.map(|c| c.max(1))),
            counts: CachePadded::new(Counts::new()),
            cap: cap.map(|c| c.max(1)),
            rendezvous: cap == Some(0),
            blocked_receivers: AtomicUsize::new(0),
            claiming: AtomicUsize::new(0),
            selecting: Registry::new(),
            wait,
            spin_budget: AtomicU32::new(match wait {
                Wait::SpinThenPark { spins } => spins,
                _ => 0,
            }),
            recv_ec: EventCount::new(),
            send_ec: EventCount::new(),
            site,
            timer,
            peaks: Peaks::new(),
            never,
        });
        if remark::enabled() {
            remark::emit(&remark::line(site, &chan.kind(1, 1), 1, 1, None));
        }
        (
            Sender {
                chan: chan.clone(),
                made_at: site,
                _not_sync: PhantomData,
            },
            Receiver {
                chan,
                made_at: site,
                _not_sync: PhantomData,
            },
        )
    }

    /// The implementation's name for remarks.
    fn kind(&self, senders: usize, receivers: usize) -> String {
        let topo = remark::topology(senders, receivers);
        match (self.rendezvous, self.cap) {
            (true, _) => format!("{topo}, rendezvous"),
            (false, Some(c)) => format!("{topo}, bounded({c})"),
            (false, None) => topo.to_string(),
        }
    }

    fn remark_change(&self, what: &str, at: &Location<'_>) {
        remark::emit(&self.change_line(what, at));
    }

    /// The remark for a change of implementation caused by `what` at `at`.
    fn change_line(&self, what: &str, at: &Location<'_>) -> String {
        let s = self.counts.senders.load(Ordering::Relaxed);
        let r = self.counts.receivers.load(Ordering::Relaxed);
        // The kind follows the raw counts (a shared handle makes its side shared); the line
        // reports the handles.
        let kind = self.kind(s, r);
        remark::line(self.site, &kind, handles(s), handles(r), Some((what, at)))
    }

    /// Drops every element left once the last receiver is gone. Each is moved out and its
    /// slot finished before its drop runs; a drop that unwinds leaves the rest to the
    /// channel's own drop.
    fn discard_all(&self) {
        /// If a drop unwinds, the rest are leaked rather than dropped during the unwind.
        struct LeakRest<'a, T>(&'a Queue<T>);
        impl<T> Drop for LeakRest<'_, T> {
            fn drop(&mut self) {
                self.0.leak_remaining_values();
            }
        }
        self.queue.close_for_producers();
        loop {
            // The receiver count is zero, so no receiver exists or can be made, and the
            // departed ones' operations happened before (their release decrements, acquired
            // by the caller's). Rendezvous senders, which also claim, are excluded by the caller.
            // SAFETY: so this thread is the only consumer, as `claim_single` requires.
            let Some(claim) = (unsafe { self.queue.claim_single() }) else {
                return;
            };
            // SAFETY: the claim gives us the written value; moved out exactly once.
            let value = unsafe { claim.value_ptr().read() };
            // SAFETY: from `claim_single` under the same contract, value moved out.
            unsafe { self.queue.finish_single(claim) };
            let on_unwind = LeakRest(&self.queue);
            drop(value);
            core::mem::forget(on_unwind);
        }
    }

    /// Wakes a sleeping receiver if there is one.
    #[inline]
    fn wake_receivers(&self) {
        if self.wait != Wait::Spin {
            self.recv_ec.notify();
        }
    }

    /// Calls `attempt` until it yields, waiting as the channel's strategy says between
    /// attempts. `None` when `deadline` passes first.
    fn block<R>(
        &self,
        ec: &EventCount,
        deadline: Option<Instant>,
        mut attempt: impl FnMut() -> Option<R>,
    ) -> Option<R> {
        let mut round: u32 = 0;
        loop {
            if let Some(r) = attempt() {
                self.adapt_budget(round, false);
                return Some(r);
            }
            if let Some(d) = deadline
                && Instant::now() >= d
            {
                return None;
            }
            if !parks_after(self.wait, round, self.spin_budget.load(Ordering::Relaxed)) {
                if round < SPIN_ROUNDS {
                    for _ in 0..(1u32 << round.min(6)) {
                        spin_loop();
                    }
                } else {
                    // Both ends on one core: give the other end the processor.
                    yield_now();
                }
                round = round.saturating_add(1);
                continue;
            }
            let key = ec.prepare();
            if let Some(r) = attempt() {
                ec.cancel();
                return Some(r);
            }
            self.adapt_budget(round, true);
            // A timer channel is notified by no one: sleep until its next delivery at most.
            let wake_at = earliest(deadline, self.timer_due());
            if !ec.wait(key, wake_at) && wake_at == deadline {
                return attempt();
            }
        }
    }

    /// When a timer channel's next delivery is due (`None` for other channels).
    #[inline]
    fn timer_due(&self) -> Option<Instant> {
        self.timer.as_ref().and_then(Timer::due)
    }

    /// Adapts the spinning budget to how a wait of `round` rounds ended, as the adaptive
    /// spin of the futex lock does: a wait that had to sleep halves it (down to the spinning
    /// rounds and [`MIN_YIELDS`] yields), and one that ended while yielding doubles it (up to the
    /// strategy's `spins`). When the partner is running, waits end while spinning and the
    /// budget stays; when it is not (more threads than cores, foreign load), yielding mostly
    /// hands the processor to someone else's work, and waiters soon sleep instead.
    #[inline]
    fn adapt_budget(&self, round: u32, slept: bool) {
        let Wait::SpinThenPark { spins } = self.wait else {
            return;
        };
        if !slept && round <= SPIN_ROUNDS {
            return;
        }
        // Relaxed: a heuristic; racing updates lose an adjustment, nothing else.
        let b = self.spin_budget.load(Ordering::Relaxed);
        let next = if slept {
            (b / 2).max((SPIN_ROUNDS + MIN_YIELDS).min(spins))
        } else {
            b.saturating_mul(2).min(spins)
        };
        if next != b {
            self.spin_budget.store(next, Ordering::Relaxed);
        }
    }

    /// The blocking send behind `send`, `send_timeout` and `send_deadline`.
    #[inline]
    fn send_until(&self, value: T, deadline: Option<Instant>) -> Result<(), SendTimeoutError<T>> {
        // The fast path: room (and no rendezvous), no waiting machinery.
        if !self.rendezvous {
            match self.try_push(value) {
                Ok(_) => {
                    self.wake_receivers();
                    return Ok(());
                }
                Err(TrySendError::Disconnected(v)) => {
                    return Err(SendTimeoutError::Disconnected(v));
                }
                Err(TrySendError::Full(v)) => return self.send_wait(v, deadline),
            }
        }
        self.send_wait(value, deadline)
    }

    /// The waiting part of [`Chan::send_until`] (and every rendezvous send), out of line.
    #[inline(never)]
    fn send_wait(
        &self,
        mut value: T,
        deadline: Option<Instant>,
    ) -> Result<(), SendTimeoutError<T>> {
        loop {
            if self.rendezvous {
                // A sleeping selection's receive takes the element at once.
                match self.selecting.give(value) {
                    Ok(()) => return Ok(()),
                    Err(v) => value = v,
                }
            }
            match self.try_push(value) {
                Ok(index) => {
                    self.wake_receivers();
                    if self.rendezvous {
                        return self.await_taken(index, deadline, false);
                    }
                    return Ok(());
                }
                Err(TrySendError::Disconnected(v)) => {
                    return Err(SendTimeoutError::Disconnected(v));
                }
                Err(TrySendError::Full(v)) => value = v,
            }
            let ready = self.block(&self.send_ec, deadline, || {
                (self.receivers_gone()
                    || self.queue.closed_for_producers()
                    || self.queue.len() < self.cap.unwrap_or(usize::MAX)
                    || (self.rendezvous && self.selecting.any(Side::Receivers)))
                .then_some(())
            });
            if ready.is_none() {
                return Err(SendTimeoutError::Timeout(value));
            }
        }
    }

    /// One push attempt: disconnected, full, or done (with the index used).
    #[inline(always)]
    fn try_push(&self, value: T) -> Result<usize, TrySendError<T>> {
        if self.counts.receivers.load(Ordering::Acquire) == 0 {
            return Err(TrySendError::Disconnected(value));
        }
        self.push(value).map_err(|v| {
            // Refused for want of room: the last receiver may have gone meanwhile, and its
            // discards make no room (see `Queue::close_for_producers`).
            if self.queue.closed_for_producers() {
                TrySendError::Disconnected(v)
            } else {
                TrySendError::Full(v)
            }
        })
    }

    /// A rendezvous sender's wait for the element it pushed at `index`: `Ok` once a receiver
    /// has claimed it (`Ok` means delivered). The sender gives up when every receiver is
    /// gone, or, once `deadline` has passed (at once for `try_send`, `now`), when no receiver
    /// is blocked in a receive; it then takes the element back with a claim of its own, and
    /// exactly one of that claim and a receiver's succeeds. A receiver blocked at the deadline
    /// is waited for (it will take the element or leave), as crossbeam's zero-capacity
    /// channel hands an element to a waiting receiver. (Sleeping selections are not counted:
    /// they see the element, or a send commits them directly, see `handoff.rs`.)
    fn await_taken(
        &self,
        index: usize,
        deadline: Option<Instant>,
        now: bool,
    ) -> Result<(), SendTimeoutError<T>> {
        let check = |late: bool| {
            if self.queue.head_index() > index {
                Some(Handover::Taken)
            } else if self.counts.receivers.load(Ordering::Acquire) == 0 {
                Some(Handover::Disconnected)
            } else if late && !self.receiver_may_take() {
                Some(Handover::NoReceiver)
            } else {
                None
            }
        };
        let first = if now {
            None
        } else {
            self.block(&self.send_ec, deadline, || check(false))
        };
        // After the deadline every event the check depends on is notified: a claim (`finish`),
        // a receiver leaving its wait, the last receiver's drop.
        let outcome = match first {
            Some(o) => o,
            None => self
                .block(&self.send_ec, None, || check(true))
                .unwrap_or(Handover::NoReceiver),
        };
        if let Handover::Taken = outcome {
            return Ok(());
        }
        // SAFETY: we pushed index `index` (its stamp is stored: the push returned), and
        // rendezvous receivers claim with `claim_shared` only (see `Chan::claim`).
        let Some(claim) = (unsafe { self.queue.claim_index_shared(index) }) else {
            return Ok(()); // A receiver claimed it first: delivered.
        };
        // SAFETY: the claim gives us our own written value back; moved out exactly once.
        let value = unsafe { claim.value_ptr().read() };
        // Frees the slot for the next sender, and wakes one waiting for room.
        self.finish(claim, true);
        Err(match outcome {
            Handover::Disconnected => SendTimeoutError::Disconnected(value),
            _ => SendTimeoutError::Timeout(value),
        })
    }

    /// A blocking receive: calls `attempt` until it yields, waiting as [`Chan::block`] does
    /// (`None` when `deadline` passes first). On a rendezvous channel the receiver is counted,
    /// meanwhile, among the blocked receivers a `try_send` may hand an element to, and a
    /// receiver leaving wakes the rendezvous senders that wait for it to take their element or
    /// leave.
    ///
    /// A counted receiver that sees something to take moves from the blocked count to the
    /// `claiming` count before it attempts (and back if the attempt fails): so once a sender
    /// sees its element taken, the receiver that took it is no longer counted blocked (a
    /// selection that reads the count next does not choose a send for a receiver that is
    /// leaving), while a sender deciding whether a receiver may still take its element counts
    /// both.
    fn blocked_receive<R>(
        &self,
        deadline: Option<Instant>,
        mut attempt: impl FnMut() -> Option<R>,
    ) -> Option<R> {
        if !self.rendezvous {
            return self.block(&self.recv_ec, deadline, attempt);
        }
        /// Whether the receiver is counted blocked; uncounts it however the receive ends.
        struct Counted<'a, T>(&'a Chan<T>, core::cell::Cell<bool>);
        impl<T> Counted<'_, T> {
            fn set(&self, counted: bool) {
                if counted {
                    self.0.blocked_receivers.fetch_add(1, Ordering::SeqCst);
                } else {
                    self.0.blocked_receivers.fetch_sub(1, Ordering::SeqCst);
                }
                self.1.set(counted);
                // Selecting senders may wait until a receiver blocks; rendezvous senders
                // wait for theirs to take their element or leave.
                self.0.send_ec.notify();
            }
        }
        impl<T> Drop for Counted<'_, T> {
            fn drop(&mut self) {
                if self.1.get() {
                    self.set(false);
                }
            }
        }
        let counted = Counted(self, core::cell::Cell::new(false));
        counted.set(true);
        self.block(&self.recv_ec, deadline, || {
            if self.queue.len() == 0 && !self.selecting.any(Side::Senders) && !self.senders_gone() {
                return None;
            }
            self.claiming.fetch_add(1, Ordering::SeqCst);
            counted.set(false);
            let got = attempt();
            if got.is_none() {
                counted.set(true);
            }
            self.claiming.fetch_sub(1, Ordering::SeqCst);
            got
        })
    }

    /// Whether a receiver counted blocked may still take a pushed rendezvous element (one is
    /// blocked, or one is taking).
    fn receiver_may_take(&self) -> bool {
        // SeqCst, in this order: a receiver adds itself to `claiming` before it leaves the
        // blocked count, so a reader that misses it in the count sees it claiming (or its
        // claim done).
        self.blocked_receivers.load(Ordering::SeqCst) > 0
            || self.claiming.load(Ordering::SeqCst) > 0
    }

    /// Whether a sleeping selection other than `cx` waits on `side` (out of line: only
    /// rendezvous channels ask).
    #[cold]
    #[inline(never)]
    fn selecting_besides(&self, side: Side, cx: Option<&Context>) -> bool {
        self.selecting.any_besides(side, cx)
    }

    /// A rendezvous receive that found no element: takes a sleeping selection's send, if
    /// one waits (out of line: the common receive never gets here).
    #[cold]
    #[inline(never)]
    fn take_from_selection(&self) -> Option<T> {
        self.selecting.take()
    }

    /// Elements in the channel now, at most its capacity (a rendezvous channel holds none:
    /// an element waiting for its receiver is still the sender's).
    fn len(&self) -> usize {
        // A timer channel's delivery that is due counts, though no receive has fired it yet
        // (as crossbeam-channel counts it).
        let due = usize::from(self.timer_due().is_some_and(|d| d <= Instant::now()));
        match self.cap {
            _ if self.rendezvous => 0,
            Some(cap) => (self.queue.len() + due).min(cap),
            None => self.queue.len(),
        }
    }
}

/// How a `select` waits for one end of a channel: the eventcount to register with, whether
/// anyone notifies it (a [`Wait::Spin`] channel's other end never does: the select must
/// poll), and when a timer channel's next delivery is due.
#[doc(hidden)]
pub struct Waiting<'a> {
    pub(crate) ec: &'a EventCount,
    pub(crate) notified: bool,
    pub(crate) due: Option<Instant>,
}

impl<T> Receiver<T> {
    /// The channel's identity (its shared state's address), the same for every handle of it.
    pub(crate) fn channel_id(&self) -> *const () {
        Arc::as_ptr(&self.chan).cast()
    }

    /// How a select waits for this receiver.
    pub(crate) fn recv_waiting(&self) -> Waiting<'_> {
        Waiting {
            ec: &self.chan.recv_ec,
            notified: self.chan.wait != Wait::Spin,
            due: self.chan.timer_due(),
        }
    }

    /// Whether a receive would not block now: an element is there, the channel is over, a
    /// timer delivery is due, or (rendezvous) a sleeping selection other than `cx` sends.
    #[inline]
    pub(crate) fn recv_ready(&self, cx: Option<&Context>) -> bool {
        let chan = &*self.chan;
        chan.queue.len() > 0
            || chan.senders_gone()
            || chan.timer_due().is_some_and(|d| d <= Instant::now())
            || (chan.rendezvous && chan.selecting_besides(Side::Senders, cx))
    }

    /// Whether this is a rendezvous channel's receiver (whose selections register).
    pub(crate) fn is_rendezvous(&self) -> bool {
        self.chan.rendezvous
    }

    /// Enters a receive of the sleeping selection `cx` (operation `op`) with `slot`, and wakes
    /// the senders that may commit it.
    pub(crate) fn register_selection(&self, cx: &Arc<Context>, op: usize, slot: Arc<Slot<T>>) {
        let chan = &*self.chan;
        chan.selecting.register(Side::Receivers, cx, op, slot);
        if chan.wait != Wait::Spin {
            chan.send_ec.notify();
        }
    }

    /// Withdraws the receives of the selection `cx`.
    pub(crate) fn unregister_selection(&self, cx: &Context) {
        self.chan.selecting.unregister(Side::Receivers, cx);
    }

    /// An awaiting receive goes to sleep: on a rendezvous channel it counts among the
    /// blocked receivers a `try_send` may hand an element to (and wakes senders that wait for
    /// one). Returns whether it counted itself; if so, [`Receiver::leave_blocked`] must follow.
    pub(crate) fn enter_blocked(&self) -> bool {
        let chan = &*self.chan;
        if !chan.rendezvous {
            return false;
        }
        chan.blocked_receivers.fetch_add(1, Ordering::SeqCst);
        chan.send_ec.notify();
        true
    }

    /// Undoes [`Receiver::enter_blocked`]: wakes rendezvous senders waiting for this
    /// receiver to take their element or leave.
    pub(crate) fn leave_blocked(&self) {
        self.chan.blocked_receivers.fetch_sub(1, Ordering::SeqCst);
        self.chan.send_ec.notify();
    }
}

impl<T> Sender<T> {
    /// The channel's identity (its shared state's address), the same for every handle of it.
    pub(crate) fn channel_id(&self) -> *const () {
        Arc::as_ptr(&self.chan).cast()
    }

    /// How a select waits for this sender.
    pub(crate) fn send_waiting(&self) -> Waiting<'_> {
        Waiting {
            ec: &self.chan.send_ec,
            notified: self.chan.wait != Wait::Spin,
            due: None,
        }
    }

    /// Whether a send would not block now: there is room (for a rendezvous channel, a
    /// receiver is blocked in a receive, or a sleeping selection other than `cx` receives), or
    /// every receiver is gone.
    #[inline]
    pub(crate) fn send_ready(&self, cx: Option<&Context>) -> bool {
        let chan = &*self.chan;
        chan.receivers_gone()
            || chan.queue.closed_for_producers()
            || if chan.rendezvous {
                chan.blocked_receivers.load(Ordering::SeqCst) > 0
                    || chan.selecting_besides(Side::Receivers, cx)
            } else {
                chan.queue.len() < chan.cap.unwrap_or(usize::MAX)
            }
    }

    /// Whether every receiver is gone (or the last one is going): a send fails now.
    pub(crate) fn disconnected(&self) -> bool {
        self.chan.receivers_gone() || self.chan.queue.closed_for_producers()
    }

    /// Whether a receiver is blocked in a receive (a rendezvous channel's, not counting
    /// sleeping selections).
    pub(crate) fn receiver_blocked(&self) -> bool {
        self.chan.blocked_receivers.load(Ordering::SeqCst) > 0
    }

    /// Whether this is a rendezvous channel's sender (whose selections register).
    pub(crate) fn is_rendezvous(&self) -> bool {
        self.chan.rendezvous
    }

    /// Commits a sleeping selection's receive, whose message the caller gives later.
    pub(crate) fn reserve_selection(&self) -> Option<Handoff<T>> {
        self.chan.selecting.reserve()
    }

    /// Enters a send of the sleeping selection `cx` (operation `op`) with `slot` (holding
    /// its message, or to be filled once chosen), and wakes the receivers that may commit it.
    pub(crate) fn register_selection(&self, cx: &Arc<Context>, op: usize, slot: Arc<Slot<T>>) {
        let chan = &*self.chan;
        chan.selecting.register(Side::Senders, cx, op, slot);
        chan.wake_receivers();
    }

    /// Withdraws the sends of the selection `cx`.
    pub(crate) fn unregister_selection(&self, cx: &Context) {
        self.chan.selecting.unregister(Side::Senders, cx);
    }
}

#[cfg(all(test, not(loom)))]
mod tests;
