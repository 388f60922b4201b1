//! The channel: the state its handles share ([`Chan`]) and its waiting machinery (spinning,
//! yielding and sleeping on eventcounts, timeouts, the rendezvous hand-over), over the
//! segmented queue of `queue.rs`. The choice of discipline by handle count lives in
//! `topology.rs`, the handles and iterators in `handles.rs`.
//!
//! **Guarantees.** FIFO per channel (linearisable); every element is dropped exactly once
//! (received, or left in the channel and dropped with it, or by the last receiver's drop).
//! Per channel: the queue, two cache-padded handle counts, two eventcounts.

mod handles;
mod topology;

use crate::error::{SendTimeoutError, TrySendError};
use crate::eventcount::EventCount;
use crate::queue::Queue;
use crate::remark;
use crate::sync::{Arc, AtomicU32, AtomicUsize, Ordering, spin_loop, yield_now};
use core::marker::PhantomData;
use core::panic::Location;
use crossbeam_utils::CachePadded;
pub use handles::{IntoIter, Iter, Receiver, RecvGuard, Sender, TryIter};
use std::time::Instant;
use topology::{Counts, handles};

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
        Chan::build(None, self.wait, Location::caller())
    }

    /// A channel holding at most `cap` elements; `0` makes a rendezvous channel.
    #[track_caller]
    pub fn bounded<T>(self, cap: usize) -> (Sender<T>, Receiver<T>) {
        Chan::build(Some(cap), self.wait, Location::caller())
    }
}

/// The state the handles share.
pub(crate) struct Chan<T> {
    queue: Queue<T>,
    counts: CachePadded<Counts>,
    /// Elements the queue may hold (`Some(1)` for rendezvous); `None`: unbounded.
    cap: Option<usize>,
    rendezvous: bool,
    /// Receivers blocked in a receive (maintained for rendezvous channels only).
    blocked_receivers: AtomicUsize,
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
}

impl<T> Chan<T> {
    fn build(
        cap: Option<usize>,
        wait: Wait,
        site: &'static Location<'static>,
    ) -> (Sender<T>, Receiver<T>) {
        let chan = Arc::new(Chan {
            queue: Queue::new(cap.map(|c| c.max(1))),
            counts: CachePadded::new(Counts::new()),
            cap: cap.map(|c| c.max(1)),
            rendezvous: cap == Some(0),
            blocked_receivers: AtomicUsize::new(0),
            wait,
            spin_budget: AtomicU32::new(match wait {
                Wait::SpinThenPark { spins } => spins,
                _ => 0,
            }),
            recv_ec: EventCount::new(),
            send_ec: EventCount::new(),
            site,
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
            // SAFETY: the receiver count is zero, so no receiver exists or can be made, and the
            // departed ones' operations happened before (their release decrements, acquired
            // by the caller's): this thread is the only consumer. Rendezvous senders, which
            // also claim, are excluded by the caller.
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
            if !ec.wait(key, deadline) {
                return attempt();
            }
        }
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
                    || self.queue.len() < self.cap.unwrap_or(usize::MAX))
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
    /// channel hands an element to a waiting receiver.
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
            } else if late && self.blocked_receivers.load(Ordering::SeqCst) == 0 {
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

    /// Runs a blocking receive `f`, counted (for a rendezvous channel) among the receivers a
    /// `try_send` may hand an element to; a receiver leaving wakes rendezvous senders that
    /// wait for it to take their element or leave.
    fn blocked_receive<R>(&self, f: impl FnOnce() -> R) -> R {
        if !self.rendezvous {
            return f();
        }
        struct Leave<'a, T>(&'a Chan<T>);
        impl<T> Drop for Leave<'_, T> {
            fn drop(&mut self) {
                self.0.blocked_receivers.fetch_sub(1, Ordering::SeqCst);
                self.0.send_ec.notify();
            }
        }
        self.blocked_receivers.fetch_add(1, Ordering::SeqCst);
        let _leave = Leave(self);
        f()
    }

    /// Elements in the channel now, at most its capacity (a rendezvous channel holds none:
    /// an element waiting for its receiver is still the sender's).
    fn len(&self) -> usize {
        match self.cap {
            _ if self.rendezvous => 0,
            Some(cap) => self.queue.len().min(cap),
            None => self.queue.len(),
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::error::{
        RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
    };
    use crate::queue::FREE_CAP;
    use crate::{bounded, spsc, unbounded};
    use std::sync::Arc as StdArc;
    use std::sync::atomic::AtomicUsize as StdAtomicUsize;
    use std::thread;
    use std::time::Duration;

    /// Elements per test, scaled down under Miri.
    const N: usize = if cfg!(miri) { 200 } else { 20_000 };

    /// Counts its drops.
    #[derive(Debug)]
    struct Tracked(StdArc<StdAtomicUsize>, #[allow(dead_code)] usize);
    impl Drop for Tracked {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn assert_send<T: Send>() {}

    #[test]
    fn handles_are_send() {
        assert_send::<Sender<u8>>();
        assert_send::<Receiver<String>>();
        assert_send::<spsc::Sender<u8>>();
    }

    #[test]
    fn fifo_across_segments() {
        let (tx, rx) = unbounded();
        for i in 0..N {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.len(), N);
        assert_eq!(tx.len(), N);
        for i in 0..N {
            assert_eq!(rx.try_recv(), Ok(i));
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert!(rx.is_empty());
        assert_eq!(rx.capacity(), None);
    }

    #[test]
    fn interleaved_send_and_receive() {
        let (tx, rx) = unbounded();
        let mut next = 0;
        for i in 0..N {
            tx.send(i).unwrap();
            if i % 3 == 0 {
                assert_eq!(rx.recv(), Ok(next));
                next += 1;
            }
        }
        drop(tx);
        let rest: Vec<usize> = rx.iter().collect();
        assert_eq!(rest, (next..N).collect::<Vec<_>>());
    }

    #[test]
    fn bounded_is_bounded() {
        let (tx, rx) = bounded(3);
        assert_eq!(tx.capacity(), Some(3));
        for i in 0..3 {
            tx.try_send(i).unwrap();
        }
        assert!(tx.is_full());
        assert_eq!(tx.try_send(9), Err(TrySendError::Full(9)));
        assert_eq!(rx.recv(), Ok(0));
        tx.try_send(3).unwrap();
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
        // Shared producers respect the bound too.
        let tx2 = tx.clone();
        for i in 0..3 {
            tx2.try_send(i).unwrap();
        }
        assert!(tx.try_send(7).unwrap_err().is_full());
        assert_eq!(rx.len(), 3);
    }

    #[test]
    fn bounded_threads_block_and_deliver_all() {
        for cap in [1, 2, 7, 300] {
            let (tx, rx) = bounded(cap);
            let h = thread::spawn(move || {
                for i in 0..N {
                    tx.send(i).unwrap();
                }
            });
            for i in 0..N {
                assert_eq!(rx.recv(), Ok(i));
            }
            h.join().unwrap();
            assert_eq!(rx.recv(), Err(RecvError));
        }
    }

    #[test]
    fn disconnection_of_senders_drains_then_fails() {
        let (tx, rx) = unbounded();
        let tx2 = tx.clone();
        tx.send(1).unwrap();
        drop(tx);
        tx2.send(2).unwrap();
        drop(tx2);
        assert_eq!(rx.recv(), Ok(1));
        assert_eq!(rx.try_recv(), Ok(2));
        assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
        assert_eq!(rx.recv(), Err(RecvError));
        assert_eq!(
            rx.recv_timeout(Duration::from_millis(1)),
            Err(RecvTimeoutError::Disconnected)
        );
    }

    #[test]
    fn disconnection_of_receivers_hands_values_back() {
        let (tx, rx) = bounded::<String>(1);
        let rx2 = rx.clone();
        drop(rx);
        tx.send("a".into()).unwrap();
        drop(rx2);
        assert_eq!(tx.send("b".into()), Err(SendError("b".to_string())));
        assert_eq!(
            tx.try_send("c".into()),
            Err(TrySendError::Disconnected("c".to_string()))
        );
        assert_eq!(
            tx.send_timeout("d".into(), Duration::from_millis(1)),
            Err(SendTimeoutError::Disconnected("d".to_string()))
        );
    }

    #[test]
    fn blocked_receiver_wakes_on_disconnect() {
        for wait in [Wait::Park, Wait::Spin, Wait::default()] {
            let (tx, rx) = Builder::new().wait(wait).unbounded::<u8>();
            let h = thread::spawn(move || rx.recv());
            thread::sleep(Duration::from_millis(5));
            drop(tx);
            assert_eq!(h.join().unwrap(), Err(RecvError));
        }
    }

    #[test]
    fn blocked_sender_wakes_on_disconnect() {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u8>(1);
        tx.send(0).unwrap();
        let h = thread::spawn(move || tx.send(1));
        thread::sleep(Duration::from_millis(5));
        drop(rx);
        assert_eq!(h.join().unwrap(), Err(SendError(1)));
    }

    #[test]
    fn every_element_dropped_exactly_once() {
        let drops = StdArc::new(StdAtomicUsize::new(0));
        {
            let (tx, rx) = unbounded();
            for i in 0..N {
                tx.send(Tracked(drops.clone(), i)).unwrap();
            }
            for _ in 0..N / 3 {
                drop(rx.recv().unwrap());
            }
            let rx2 = rx.clone();
            for _ in 0..N / 3 {
                drop(rx2.recv().unwrap());
            }
            assert_eq!(drops.load(Ordering::SeqCst), 2 * (N / 3));
            // The rest are dropped with the channel.
        }
        assert_eq!(drops.load(Ordering::SeqCst), N);
        // Values handed back on a failed send are the caller's, not dropped by the channel.
        let (tx, rx) = unbounded();
        drop(rx);
        let back = tx.send(Tracked(drops.clone(), 0)).unwrap_err().into_inner();
        assert_eq!(drops.load(Ordering::SeqCst), N);
        drop(back);
        assert_eq!(drops.load(Ordering::SeqCst), N + 1);
    }

    #[test]
    fn timeouts() {
        let (tx, rx) = bounded::<u32>(1);
        assert_eq!(
            rx.recv_timeout(Duration::from_millis(2)),
            Err(RecvTimeoutError::Timeout)
        );
        assert_eq!(
            rx.recv_deadline(Instant::now()),
            Err(RecvTimeoutError::Timeout)
        );
        tx.send(1).unwrap();
        assert_eq!(
            tx.send_timeout(2, Duration::from_millis(2)),
            Err(SendTimeoutError::Timeout(2))
        );
        assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(1));
        assert_eq!(tx.send_timeout(3, Duration::from_secs(5)), Ok(()));
        for wait in [Wait::Spin, Wait::Park] {
            let (_tx, rx) = Builder::new().wait(wait).unbounded::<u32>();
            assert!(
                rx.recv_timeout(Duration::from_millis(2))
                    .unwrap_err()
                    .is_timeout()
            );
        }
    }

    #[test]
    fn rendezvous() {
        let (tx, rx) = bounded::<usize>(0);
        assert_eq!(tx.capacity(), Some(0));
        assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
        let n = N / 10;
        let h = thread::spawn(move || {
            for i in 0..n {
                tx.send(i).unwrap();
                // `send` returned: the element was taken, so at most nothing is buffered.
                assert!(tx.len() <= 1);
            }
        });
        for i in 0..n {
            assert_eq!(rx.recv(), Ok(i));
        }
        h.join().unwrap();
        assert_eq!(rx.recv(), Err(RecvError));
    }

    #[test]
    fn rendezvous_try_send_meets_a_blocked_receiver() {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let h = thread::spawn(move || rx.recv());
        let mut v = 7;
        loop {
            match tx.try_send(v) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) => {
                    v = back;
                    thread::yield_now();
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(h.join().unwrap(), Ok(7));
    }

    #[test]
    fn wait_strategies_deliver_everything() {
        for wait in [
            Wait::Spin,
            Wait::Park,
            Wait::SpinThenPark { spins: 3 },
            Wait::default(),
        ] {
            let (tx, rx) = Builder::new().wait(wait).unbounded();
            let h = thread::spawn(move || {
                for i in 0..N {
                    tx.send(i).unwrap();
                }
            });
            let mut sum = 0;
            for v in rx {
                sum += v;
            }
            h.join().unwrap();
            assert_eq!(sum, N * (N - 1) / 2);
        }
    }

    /// Both ends pinned to one CPU: every strategy must hand the processor over (yield or
    /// park) rather than spin out its time slice. Checks delivery only; rates are the
    /// harness's business.
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn both_ends_on_one_core() {
        fn pin_to_cpu0() {
            // SAFETY: `set` is a plain bit set that lives across the call; pid 0 is this thread.
            unsafe {
                let mut set: libc::cpu_set_t = core::mem::zeroed();
                libc::CPU_SET(0, &mut set);
                libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &set);
            }
        }
        for wait in [Wait::Spin, Wait::Park, Wait::default()] {
            let (tx, rx) = Builder::new().wait(wait).bounded(64);
            let h = thread::spawn(move || {
                pin_to_cpu0();
                for i in 0..N {
                    tx.send(i).unwrap();
                }
            });
            let c = thread::spawn(move || {
                pin_to_cpu0();
                rx.iter().sum::<usize>()
            });
            h.join().unwrap();
            assert_eq!(c.join().unwrap(), N * (N - 1) / 2);
        }
    }

    #[test]
    fn switching_disciplines_keeps_order() {
        let (tx, rx) = unbounded();
        let mut expect = 0;
        let mut next = 0;
        for round in 0..N / 100 {
            let tx2 = tx.clone();
            let rx2 = rx.clone();
            for _ in 0..50 {
                if round % 2 == 0 {
                    tx2.send(next).unwrap();
                } else {
                    tx.send(next).unwrap();
                }
                next += 1;
            }
            for _ in 0..25 {
                assert_eq!(rx2.recv(), Ok(expect));
                expect += 1;
            }
            drop(tx2);
            drop(rx2);
            for _ in 0..50 {
                tx.send(next).unwrap();
                next += 1;
            }
            for _ in 0..75 {
                assert_eq!(rx.recv(), Ok(expect));
                expect += 1;
            }
        }
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }

    /// A bounded channel keeps the segments its capacity spans, so a steady stream through it
    /// stops calling the allocator once they exist (as a ring buffer never does); an
    /// unbounded one keeps a single spare.
    #[test]
    fn bounded_stream_keeps_its_segments() {
        let seg = crate::queue::SEG;
        let cap = 3 * (seg - 1);
        let (tx, rx) = bounded(cap);
        for round in 0..4u64 {
            for i in 0..cap as u64 {
                tx.send(round * 1000 + i).unwrap();
            }
            let peak = rx.allocated_segments();
            for i in 0..cap as u64 {
                assert_eq!(rx.recv(), Ok(round * 1000 + i));
            }
            assert_eq!(
                rx.allocated_segments(),
                peak,
                "a drained bounded channel keeps its segments"
            );
            assert!(peak <= cap.div_ceil(seg - 1) + 2, "{peak} segments");
        }
    }

    #[test]
    fn batches() {
        let (tx, rx) = bounded(5);
        let h = thread::spawn(move || tx.send_iter(0..N).unwrap());
        let mut buf = Vec::new();
        while buf.len() < N {
            let got = rx.recv_many(&mut buf, 64).unwrap();
            assert!((1..=64).contains(&got));
        }
        assert_eq!(h.join().unwrap(), N);
        assert_eq!(buf, (0..N).collect::<Vec<_>>());
        assert_eq!(rx.recv_many(&mut buf, 0), Ok(0));
        assert_eq!(rx.recv_many(&mut buf, 4), Err(RecvError));
        let (tx, rx) = unbounded();
        assert_eq!(tx.send_batch(vec![1, 2, 3]), Ok(3));
        let mut buf = Vec::new();
        assert_eq!(rx.try_recv_many(&mut buf, 2), 2);
        assert_eq!(buf, vec![1, 2]);
        drop(rx);
        assert_eq!(tx.send_iter([4, 5]), Err(SendError(4)));
    }

    #[test]
    fn a_panicking_batch_publishes_what_it_sent() {
        let (tx, rx) = unbounded::<usize>();
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            tx.send_iter((0..600).map(|i| if i == 555 { panic!("boom") } else { i }))
        }));
        assert!(r.is_err());
        tx.send(1000).unwrap();
        let mut buf = Vec::new();
        while buf.len() < 556 {
            rx.recv_many(&mut buf, 100).unwrap();
        }
        let mut want: Vec<usize> = (0..555).collect();
        want.push(1000);
        assert_eq!(buf, want);
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }

    #[test]
    fn borrowing_receive() {
        let drops = StdArc::new(StdAtomicUsize::new(0));
        let (tx, mut rx) = unbounded();
        for i in 0..N {
            tx.send((i, Tracked(drops.clone(), i))).unwrap();
        }
        for i in 0..N / 2 {
            let g = rx.recv_ref().unwrap();
            assert_eq!(g.0, i);
        }
        assert_eq!(drops.load(Ordering::SeqCst), N / 2);
        // Shared receivers lend in place too.
        let rx2 = rx.clone();
        let mut i = N / 2;
        while i < N - 1 {
            {
                let mut g = rx.try_recv_ref().unwrap();
                assert_eq!(g.0, i);
                g.0 = usize::MAX;
            }
            let (j, t) = rx2.recv().unwrap();
            assert_eq!(j, i + 1);
            drop(t);
            i += 2;
        }
        drop(rx2);
        while let Ok(g) = rx.try_recv_ref() {
            let (j, t) = g.take();
            assert_eq!(j, i);
            drop(t);
            i += 1;
        }
        assert_eq!(i, N);
        assert_eq!(drops.load(Ordering::SeqCst), N);
        drop(tx);
        assert_eq!(rx.try_recv_ref().unwrap_err(), TryRecvError::Disconnected);
        assert!(rx.recv_ref().is_err());
    }

    #[test]
    fn memory_goes_back_after_a_burst() {
        let burst = if cfg!(miri) { 2_000 } else { 1_000_000 };
        let (tx, rx) = unbounded::<u64>();
        let idle = rx.allocated_segments();
        for i in 0..burst as u64 {
            tx.send(i).unwrap();
        }
        let peak = rx.allocated_segments();
        assert!(peak >= burst / crate::queue::SEG);
        let mut sum = 0;
        for _ in 0..burst {
            sum += rx.recv().unwrap();
        }
        assert_eq!(sum, (burst as u64) * (burst as u64 - 1) / 2);
        let after = rx.allocated_segments();
        // Within twice the idle channel's memory: the current segment and one spare.
        assert_eq!(idle, 1);
        assert!(
            after <= idle + FREE_CAP,
            "{after} segments held after the burst"
        );
        assert!(after <= 2 * idle);
        // Shared receivers give memory back too (through the segments' reader counts).
        let rx2 = rx.clone();
        for i in 0..burst as u64 {
            tx.send(i).unwrap();
        }
        for i in 0..burst {
            let r = if i % 2 == 0 { &rx } else { &rx2 };
            r.recv().unwrap();
        }
        assert!(rx.allocated_segments() <= 2 * idle);
        drop(rx2);
        tx.send(0).unwrap();
        rx.recv().unwrap();
        assert!(rx.allocated_segments() <= 2 * idle);
    }

    #[test]
    fn iterators() {
        let (tx, rx) = unbounded();
        tx.send_iter(0..10).unwrap();
        assert_eq!(rx.try_iter().take(3).collect::<Vec<_>>(), vec![0, 1, 2]);
        drop(tx);
        let v: Vec<i32> = (&rx).into_iter().collect();
        assert_eq!(v, (3..10).collect::<Vec<_>>());
        assert_eq!(rx.into_iter().next(), None);
    }

    /// The spinning budget halves when waits sleep (to the spinning rounds plus a couple of
    /// yields, never below) and doubles back when waits end while yielding.
    #[test]
    fn spin_budget_adapts_to_how_waits_end() {
        let (tx, _rx) = Builder::new()
            .wait(Wait::SpinThenPark { spins: 100 })
            .bounded::<u8>(1);
        let chan = &*tx.chan;
        let budget = || chan.spin_budget.load(Ordering::Relaxed);
        assert_eq!(budget(), 100);
        chan.adapt_budget(100, true);
        assert_eq!(budget(), 50);
        for _ in 0..10 {
            chan.adapt_budget(budget(), true);
        }
        assert_eq!(budget(), SPIN_ROUNDS + MIN_YIELDS);
        chan.adapt_budget(3, false); // ended while spinning: no change
        assert_eq!(budget(), SPIN_ROUNDS + MIN_YIELDS);
        chan.adapt_budget(SPIN_ROUNDS + 1, false); // ended while yielding
        assert_eq!(budget(), 2 * (SPIN_ROUNDS + MIN_YIELDS));
        for _ in 0..10 {
            chan.adapt_budget(SPIN_ROUNDS + 1, false);
        }
        assert_eq!(budget(), 100, "never above the strategy's spins");
    }

    #[test]
    fn iterators_are_fused_and_debug() {
        fn fused<I: core::iter::FusedIterator>(_: &I) {}
        let (tx, rx) = unbounded::<u8>();
        tx.send(1).unwrap();
        drop(tx);
        let mut it = rx.iter();
        fused(&it);
        assert!(format!("{it:?}").starts_with("Iter"));
        assert_eq!(it.next(), Some(1));
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None, "stays ended");
        assert!(format!("{:?}", rx.try_iter()).starts_with("TryIter"));
        let it = rx.into_iter();
        fused(&it);
        assert!(format!("{it:?}").starts_with("IntoIter"));
    }

    #[test]
    fn counts_and_identity() {
        let (tx, rx) = unbounded::<()>();
        let tx2 = tx.clone();
        assert!(tx.same_channel(&tx2));
        assert_eq!(tx.sender_count(), 2);
        let rx2 = rx.clone();
        assert!(rx.same_channel(&rx2));
        assert_eq!(rx2.receiver_count(), 2);
        drop(tx2);
        assert_eq!(tx.sender_count(), 1);
        let (other, _r) = unbounded::<()>();
        assert!(!tx.same_channel(&other));
    }

    #[test]
    fn progress_constants() {
        use crate::progress::{Progress, ProgressGuarantee, require_lock_free};
        assert_eq!(
            <Sender<u8> as ProgressGuarantee>::PROGRESS,
            Progress::Blocking
        );
        assert!(<spsc::Receiver<u8> as ProgressGuarantee>::PROGRESS.is_lock_free());
        require_lock_free::<spsc::Sender<u8>>();
    }

    #[test]
    fn remarks_name_sites_and_implementations() {
        let (tx, rx) = bounded::<u8>(4);
        let line = line!() - 1;
        assert_eq!(tx.chan.site.line(), line);
        assert!(tx.chan.site.file().ends_with("mod.rs"));
        let tx2 = tx.clone();
        assert_eq!(tx2.made_at.line(), line + 4);
        let l = tx.chan.change_line("clone", tx2.made_at);
        assert!(l.contains(": mpsc, bounded(4) (senders: 2, receivers: 1) after clone at "));
        assert!(l.ends_with(&format!(":{}:{}", line + 4, tx2.made_at.column())));
        let rx2 = rx.clone();
        drop(tx2);
        let l = rx
            .chan
            .change_line("drop of the receiver made", rx2.made_at);
        assert!(l.contains("spmc, bounded(4) (senders: 1, receivers: 2)"));
        let (z, _r) = bounded::<u8>(0);
        assert_eq!(z.chan.kind(1, 1), "spsc, rendezvous");
        let (u, _r) = unbounded::<u8>();
        assert_eq!(u.chan.kind(1, 1), "spsc");
    }

    #[test]
    fn spsc_handles_work() {
        let (tx, mut rx) = spsc::channel();
        let h = thread::spawn(move || {
            for i in 0..N {
                tx.send(i).unwrap();
            }
        });
        for i in 0..N {
            assert_eq!(*rx.recv_ref().unwrap(), i);
        }
        h.join().unwrap();
        assert_eq!(rx.recv(), Err(RecvError));
        let (tx, rx) = spsc::bounded(2);
        tx.try_send(1).unwrap();
        tx.try_send(2).unwrap();
        assert!(tx.try_send(3).unwrap_err().is_full());
        assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2]);
    }

    #[test]
    fn spin_waiters_never_park() {
        // A spinning channel's senders never notify: a waiter that went to sleep after some
        // (large) number of rounds would never wake.
        for round in [0, 100, u32::MAX - 1, u32::MAX] {
            assert!(!parks_after(Wait::Spin, round, 0));
            assert!(parks_after(Wait::Park, round, u32::MAX));
        }
        assert!(!parks_after(Wait::SpinThenPark { spins: 3 }, 2, 100));
        assert!(parks_after(Wait::SpinThenPark { spins: 3 }, 3, 100));
        assert!(parks_after(Wait::SpinThenPark { spins: 100 }, 20, 20));
    }

    #[test]
    fn rendezvous_send_fails_when_the_receiver_leaves_without_taking() {
        for wait in [Wait::Park, Wait::Spin, Wait::default()] {
            let (tx, rx) = Builder::new().wait(wait).bounded::<String>(0);
            let h = thread::spawn(move || tx.send("kept".to_string()));
            // Wait until the element is offered, then leave without taking it.
            while rx.chan.queue.len() == 0 {
                thread::yield_now();
            }
            drop(rx);
            assert_eq!(h.join().unwrap(), Err(SendError("kept".to_string())));
        }
    }

    #[test]
    fn rendezvous_send_timeout_hands_the_value_back() {
        let (tx, rx) = bounded::<u32>(0);
        assert_eq!(
            tx.send_timeout(1, Duration::from_millis(5)),
            Err(SendTimeoutError::Timeout(1))
        );
        assert_eq!(
            tx.send_deadline(2, Instant::now()),
            Err(SendTimeoutError::Timeout(2))
        );
        // Nothing stayed buffered for a later receive.
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
        assert_eq!(rx.chan.queue.len(), 0);
        // And with a receiver waiting, the element is delivered.
        let h = thread::spawn(move || rx.recv());
        assert_eq!(tx.send_timeout(3, Duration::from_secs(60)), Ok(()));
        assert_eq!(h.join().unwrap(), Ok(3));
    }

    #[test]
    fn rendezvous_reports_no_room_and_no_length() {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        assert!(tx.is_full() && tx.is_empty());
        assert_eq!((tx.len(), rx.len()), (0, 0));
        let h = thread::spawn(move || tx.send(7));
        while rx.chan.queue.len() == 0 {
            thread::yield_now();
        }
        // A sender blocked with its element offered: still nothing "in" the channel.
        assert_eq!(rx.len(), 0);
        assert!(rx.is_empty());
        assert_eq!(rx.recv(), Ok(7));
        assert_eq!(h.join().unwrap(), Ok(()));
    }

    #[test]
    fn bounded_len_never_exceeds_capacity() {
        let (tx, rx) = bounded::<usize>(2);
        let rx2 = rx.clone();
        let h = thread::spawn(move || {
            for i in 0..N {
                tx.send(i).unwrap();
                assert!(tx.len() <= 2);
            }
        });
        let mut n = 0;
        while n < N {
            let r = if n % 2 == 0 { &rx } else { &rx2 };
            assert!(r.len() <= 2);
            if r.try_recv().is_ok() {
                n += 1;
            }
        }
        h.join().unwrap();
    }

    #[test]
    fn last_receiver_drops_what_is_left() {
        let drops = StdArc::new(StdAtomicUsize::new(0));
        for cap in [None, Some(100)] {
            drops.store(0, Ordering::SeqCst);
            let (tx, rx) = match cap {
                None => unbounded(),
                Some(c) => bounded(c),
            };
            let rx2 = rx.clone();
            for i in 0..10 {
                tx.send(Tracked(drops.clone(), i)).unwrap();
            }
            drop(rx);
            assert_eq!(drops.load(Ordering::SeqCst), 0, "another receiver remains");
            drop(rx2);
            assert_eq!(
                drops.load(Ordering::SeqCst),
                10,
                "dropped with the last receiver"
            );
            assert!(tx.send(Tracked(drops.clone(), 10)).is_err());
            assert_eq!(drops.load(Ordering::SeqCst), 11);
        }
    }

    #[test]
    fn rendezvous_try_send_meets_a_borrowing_receiver() {
        let (tx, mut rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let h = thread::spawn(move || *rx.recv_ref().unwrap());
        let mut v = 7;
        loop {
            match tx.try_send(v) {
                Ok(()) => break,
                Err(TrySendError::Full(back)) => {
                    v = back;
                    thread::yield_now();
                }
                Err(e) => panic!("{e}"),
            }
        }
        assert_eq!(h.join().unwrap(), 7);
    }

    #[test]
    fn rendezvous_try_send_ok_means_delivered() {
        // A receiver with a short timeout: `try_send` either fails (the receiver left) or the
        // receiver got the element; never `Ok` with the element left behind.
        let rounds = if cfg!(miri) { 5 } else { 200 };
        for _ in 0..rounds {
            let (tx, rx) = bounded::<u32>(0);
            let h = thread::spawn(move || rx.recv_timeout(Duration::from_micros(50)).ok());
            let mut sent = false;
            while !h.is_finished() {
                if tx.try_send(1).is_ok() {
                    sent = true;
                    break;
                }
            }
            let got = h.join().unwrap();
            assert_eq!(sent, got.is_some(), "sent {sent}, received {got:?}");
        }
    }
}
