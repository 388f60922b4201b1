//! Selection over several channel operations: the dynamic [`Select`] and the
//! [`select!`](crate::select!) macro, shaped like crossbeam-channel's
//! (<https://docs.rs/crossbeam-channel/0.5/crossbeam_channel/struct.Select.html>) so that code
//! using them ports by changing the path.
//!
//! **Algorithm.** Each operation is attempted in turn, in a random order (a uniformly random
//! permutation, so that each of several ready operations is chosen with equal chance). A
//! receive is attempted with `try_recv`, so the element is taken during the selection and the
//! operation is complete once chosen; a send of the macro is chosen when it can proceed, then
//! given its message by the expansion (in the caller's code, with no registration held) and
//! attempted with `try_send` (a selection with a rendezvous send has every message before it
//! starts: see [`select!`](crate::select!)). When none succeeds, the selector spins and yields
//! a little as a blocked receive does, then sleeps: it registers one signal with the
//! eventcount of every operation's channel end (see `eventcount.rs`: counted as a waiter, so a
//! notifier that would skip the wake-up for want of sleepers does not), issues one heavy fence
//! (the other half of the Dekker pair each notifier's light fence makes), looks once more
//! whether an operation is ready, and only then parks until a notifier, a timer delivery, a
//! committing thread (below) or the deadline wakes it. Registrations are withdrawn before any
//! attempt that could return, so none outlives the select. Channels with
//! [`Wait::Spin`](crate::Wait::Spin) are never notified; a select that includes one polls
//! (yielding between rounds) instead of sleeping.
//!
//! The handles' discipline (single or shared) may change while a select waits, when another
//! thread clones or drops a handle: the eventcounts do not depend on the discipline, and each
//! attempt runs the ordinary `try_recv`/`try_send`, which reads the handle count afresh.
//!
//! **Rendezvous channels: commitment.** A rendezvous send completes only by meeting a receive
//! and the other way round, so a sleeping selection cannot wait for its partner to come and
//! then decide: the partner must be able to complete the selection's operation itself, and
//! the selection must then complete no other. So the sleeping selection also enters each
//! rendezvous operation in its channel's registry under one context (`chan/handoff.rs`, after
//! crossbeam-channel's `Context` and Go's `select`). Another thread's send, `try_send`,
//! receive or `try_recv` (and an awaiting task's, and another selection's attempt) commits
//! it with one CAS of that context and hands over the message through the entry's slot; one
//! commitment succeeds per sleep. A selection that wakes withdraws its context with a CAS
//! first, and if that fails completes the operation it was committed to. Its own entries are
//! never its partner: a send does not meet its own selection's receive. A selection of one
//! operation runs that operation's blocking form (`recv`, `send`, or their deadline forms).
//!
//! Without time to wait (`default`, `try_select`, a deadline already passed), the operations
//! are attempted twice: one that failed in the first pass because another thread took what
//! it wanted may have been overtaken by a change the first pass looked for too early, and the
//! answer is then linearisable, as crossbeam-channel's is.
//!
//! **Guarantees.** An operation is chosen only if it completed (receive, and the macro's
//! send), or, for a send of the dynamic [`Select`], was ready when observed or committed (a
//! rendezvous receive waits for its value), and for [`Select::ready`], was ready when
//! observed. With several senders on a bounded channel, a send chosen by [`Select::select`]
//! may find the room taken by the time [`SelectedOperation::send`] runs, and then waits for
//! room (the element is never lost). No lost wake-ups; spurious ones are absorbed by the loop.
//!
//! **Not as crossbeam.** A rendezvous send of the dynamic [`Select`] is also chosen, when no
//! selection is there to commit, for a thread blocked in `recv` (or an awaiting task), and
//! [`SelectedOperation::send`] then sends as [`Sender::send`] does: if that receiver was a
//! `recv_timeout` whose time ran out meanwhile (or a task whose future was dropped), the send
//! waits for the next receiver. Crossbeam's blocked receivers are all committable entries.

use crate::chan::{Context, Handoff, Receiver, Sender, Slot, Waiting, earliest};
use crate::error::{
    ReadyTimeoutError, RecvError, RecvTimeoutError, SelectTimeoutError, SendError,
    SendTimeoutError, TryReadyError, TryRecvError, TrySelectError, TrySendError,
};
use crate::eventcount::Signal;
use crate::fence;
use crate::sync::Arc;
use crate::sync::{spin_loop, yield_now};
use core::fmt;
use core::ops::DerefMut;
use std::time::{Duration, Instant};

/// Rounds of spinning (1 to 64 pause instructions each) before a selector starts yielding.
/// None under loom, whose models are about the sleeping protocol.
const SPIN_ROUNDS: u32 = if cfg!(loom) { 0 } else { 7 };
/// Rounds of yielding before a selector sleeps.
const YIELD_ROUNDS: u32 = if cfg!(loom) { 0 } else { 3 };
/// The longest sleep when the heavy fence was not ordered (see `fence.rs`).
const UNORDERED_NAP: Duration = Duration::from_millis(1);

/// One operation of a selection, whatever its channel's element type. Public only for the
/// expansion of [`select!`](crate::select!).
#[doc(hidden)]
pub trait Operation {
    /// Completes the operation if it can without blocking (a receive takes its element, the
    /// macro's send sends), or, for a send of [`Select`], reports that it is ready (or commits
    /// a sleeping selection's receive to it). Returns `true` once the operation is chosen.
    fn attempt(&mut self) -> bool;
    /// Whether the operation would not block now (for [`Select::ready`], and for a sleeping
    /// selection's re-check), not counting the entries of the sleeping selection `cx`.
    fn is_ready(&self, cx: Option<&Context>) -> bool;
    /// How to wait for the operation; `None` for one that can never complete.
    fn waiting(&self) -> Option<Waiting<'_>>;
    /// The selection goes to sleep with context `cx`, this being its operation `index`: an
    /// operation on a rendezvous channel enters that channel's registry, where another
    /// thread's operation may commit it (see `chan/handoff.rs`).
    fn register(&mut self, _cx: &Arc<Context>, _index: usize) {}
    /// Withdraws what [`Operation::register`] entered; `chosen` when `cx` names this
    /// operation (then what it needs for [`Operation::accept`] is kept).
    fn unregister(&mut self, _cx: &Context, _chosen: bool) {}
    /// Completes the operation another thread committed while the selection slept: `true`
    /// once done, `false` if that thread abandoned it (the selection goes on).
    fn accept(&mut self) -> bool {
        false
    }
    /// For a receive: a pointer to its outcome, an `Option<Result<T, RecvError>>` of its
    /// receiver's `T`; null otherwise.
    fn outcome(&mut self) -> *mut () {
        core::ptr::null_mut()
    }
    /// For a send of [`Select`]: a pointer to its `Option<Handoff<T>>` (the committed
    /// receive its message goes to); null otherwise.
    fn handoff(&mut self) -> *mut () {
        core::ptr::null_mut()
    }
    /// The chosen operation's [`SelectedOperation`] is dropped without completing it: a
    /// committed receive waiting for its message is released.
    fn forfeit(&mut self) {}
    /// The operation's channel (the same for every handle of it; null for none).
    fn channel(&self) -> *const ();
    /// The only operation of a selection, waited for as its blocking form waits (a
    /// rendezvous send then offers its element to any receiver, `try_recv` included): `true`
    /// once it completed, `false` once `deadline` passed; `None` if it has no blocking form.
    fn complete_alone(&mut self, _deadline: Option<Instant>) -> Option<bool> {
        None
    }
    /// For a send of the macro: whether it was just given its message (chosen, and neither
    /// sent nor failed yet).
    fn supplied(&self) -> bool {
        false
    }
    /// For a send of the macro whose message is not evaluated: it is no longer chosen.
    fn forgo(&mut self) {}
    /// For a send of the macro: whether its channel needs the messages of the selection before
    /// it starts (a rendezvous channel: see [`eager`]).
    fn eager(&self) -> bool {
        false
    }
}

/// A `recv` case: the element (or the disconnection) is taken during the selection.
#[doc(hidden)]
pub struct RecvCase<'a, T> {
    r: &'a Receiver<T>,
    got: Option<Result<T, RecvError>>,
    /// While the selection sleeps on a rendezvous channel: where a committed send puts its
    /// message.
    slot: Option<Arc<Slot<T>>>,
}

impl<'a, T> RecvCase<'a, T> {
    /// A receive on `r`.
    pub fn new(r: &'a Receiver<T>) -> Self {
        Self {
            r,
            got: None,
            slot: None,
        }
    }

    /// The outcome of the chosen receive.
    pub fn into_result(self) -> Result<T, RecvError> {
        match self.got {
            Some(got) => got,
            // Only a chosen case is asked, and a chosen receive holds its outcome.
            None => unreachable!("select: result of a receive that was not chosen"),
        }
    }
}

impl<T> Operation for RecvCase<'_, T> {
    fn attempt(&mut self) -> bool {
        if self.got.is_some() {
            return true;
        }
        self.got = match self.r.try_recv() {
            Ok(v) => Some(Ok(v)),
            Err(TryRecvError::Disconnected) => Some(Err(RecvError)),
            Err(TryRecvError::Empty) => None,
        };
        self.got.is_some()
    }

    fn is_ready(&self, cx: Option<&Context>) -> bool {
        self.got.is_some() || self.r.recv_ready(cx)
    }

    fn waiting(&self) -> Option<Waiting<'_>> {
        Some(self.r.recv_waiting())
    }

    fn register(&mut self, cx: &Arc<Context>, index: usize) {
        if self.got.is_none() && self.r.is_rendezvous() {
            let slot = Slot::empty();
            self.r.register_selection(cx, index, slot.clone());
            self.slot = Some(slot);
        }
    }

    fn unregister(&mut self, cx: &Context, chosen: bool) {
        if self.slot.is_some() {
            self.r.unregister_selection(cx);
            if !chosen {
                self.slot = None;
            }
        }
    }

    fn accept(&mut self) -> bool {
        // The committing sender fills the slot right after its CAS.
        let got = self.slot.take().and_then(|slot| slot.wait());
        self.got = got.map(Ok);
        self.got.is_some()
    }

    fn outcome(&mut self) -> *mut () {
        (&raw mut self.got).cast()
    }

    fn channel(&self) -> *const () {
        self.r.channel_id()
    }

    fn complete_alone(&mut self, deadline: Option<Instant>) -> Option<bool> {
        if self.got.is_none() {
            self.got = match deadline {
                None => Some(self.r.recv()),
                Some(d) => match self.r.recv_deadline(d) {
                    Ok(v) => Some(Ok(v)),
                    Err(RecvTimeoutError::Disconnected) => Some(Err(RecvError)),
                    Err(RecvTimeoutError::Timeout) => None,
                },
            };
        }
        Some(self.got.is_some())
    }
}

/// A `send` case of the macro. Its message is evaluated by the macro's expansion (in the
/// caller's code, outside the selection's protocol) once the case is chosen as ready, and sent
/// then (see [`finish`]); once given, it is sent during the selection.
#[doc(hidden)]
pub struct SendCase<'a, T> {
    s: &'a Sender<T>,
    /// The message, once evaluated.
    value: Option<T>,
    /// Whether the message is yet to be evaluated.
    pending: bool,
    /// Whether the case may still be chosen for its message to be evaluated (no longer once
    /// another case of the selection was given its message: see [`finish`]).
    eligible: bool,
    result: Option<Result<(), SendError<T>>>,
    /// While the selection sleeps on a rendezvous channel: the slot holding the message, for
    /// a receive that commits this send to take.
    slot: Option<Arc<Slot<T>>>,
}

impl<'a, T> SendCase<'a, T> {
    /// A send on `s`, its message to be given with [`SendCase::supply`] once chosen.
    pub fn new(s: &'a Sender<T>) -> Self {
        Self {
            s,
            value: None,
            pending: true,
            eligible: true,
            result: None,
            slot: None,
        }
    }

    /// Whether the case was chosen (or is a candidate) without its message yet.
    pub fn is_pending(&self) -> bool {
        self.pending
    }

    /// Gives the chosen case its message.
    pub fn supply(&mut self, value: T) {
        debug_assert!(self.pending && self.value.is_none());
        self.pending = false;
        self.value = Some(value);
    }

    /// The outcome of the chosen send.
    pub fn into_result(self) -> Result<(), SendError<T>> {
        match self.result {
            Some(r) => r,
            None => unreachable!("select: result of a send that was not chosen"),
        }
    }
}

impl<T> Operation for SendCase<'_, T> {
    fn attempt(&mut self) -> bool {
        if self.result.is_some() {
            return true;
        }
        if self.pending {
            // Chosen when the send could proceed now: its message is evaluated next, by the
            // expansion, and sent by `finish`.
            return self.eligible && self.s.send_ready(None);
        }
        let Some(value) = self.value.take() else {
            return false;
        };
        match self.s.try_send(value) {
            Ok(()) => self.result = Some(Ok(())),
            Err(TrySendError::Disconnected(v)) => self.result = Some(Err(SendError(v))),
            Err(TrySendError::Full(v)) => self.value = Some(v),
        }
        self.result.is_some()
    }

    fn is_ready(&self, cx: Option<&Context>) -> bool {
        self.result.is_some() || ((self.eligible || !self.pending) && self.s.send_ready(cx))
    }

    fn waiting(&self) -> Option<Waiting<'_>> {
        Some(self.s.send_waiting())
    }

    fn register(&mut self, cx: &Arc<Context>, index: usize) {
        // Only a send holding its message registers (every rendezvous send of the macro does:
        // see `eager`).
        if self.result.is_none()
            && self.s.is_rendezvous()
            && let Some(value) = self.value.take()
        {
            let slot = Slot::full(value);
            self.s.register_selection(cx, index, slot.clone());
            self.slot = Some(slot);
        }
    }

    fn unregister(&mut self, cx: &Context, chosen: bool) {
        if let Some(slot) = &self.slot {
            self.s.unregister_selection(cx);
            if !chosen {
                // Nobody committed this send: the message is still in the slot.
                self.value = slot.take_back();
                self.slot = None;
            }
        }
    }

    fn accept(&mut self) -> bool {
        // The committing receiver takes the message from the slot.
        if self.slot.take().is_some() {
            self.result = Some(Ok(()));
        }
        self.result.is_some()
    }

    fn channel(&self) -> *const () {
        self.s.channel_id()
    }

    fn supplied(&self) -> bool {
        !self.pending && self.result.is_none() && self.value.is_some()
    }

    fn forgo(&mut self) {
        self.eligible = false;
    }

    fn eager(&self) -> bool {
        self.s.capacity() == Some(0)
    }

    fn complete_alone(&mut self, deadline: Option<Instant>) -> Option<bool> {
        if self.pending {
            // Chosen when ready, by the general path.
            return None;
        }
        if self.result.is_none()
            && let Some(value) = self.value.take()
        {
            match deadline {
                None => self.result = Some(self.s.send(value)),
                Some(d) => match self.s.send_deadline(value, d) {
                    Ok(()) => self.result = Some(Ok(())),
                    Err(SendTimeoutError::Disconnected(v)) => self.result = Some(Err(SendError(v))),
                    Err(SendTimeoutError::Timeout(v)) => self.value = Some(v),
                },
            }
        }
        Some(self.result.is_some())
    }
}

/// A send of [`Select`]: chosen when ready; the value comes with
/// [`SelectedOperation::send`]. On a rendezvous channel it is chosen when it commits a
/// sleeping selection's receive, or when a receive commits it while it sleeps (the value then
/// goes to that receive), or when a thread is blocked in a receive (the value is then sent as
/// [`Sender::send`] sends it).
struct SendReady<'a, T> {
    s: &'a Sender<T>,
    /// While the selection sleeps on a rendezvous channel: the slot a committing receive
    /// waits on.
    slot: Option<Arc<Slot<T>>>,
    /// Once chosen by a commitment: the receive the value goes to.
    handoff: Option<Handoff<T>>,
}

impl<T> Operation for SendReady<'_, T> {
    fn attempt(&mut self) -> bool {
        if self.handoff.is_some() {
            return true;
        }
        if self.s.is_rendezvous() {
            self.handoff = self.s.reserve_selection();
            return self.handoff.is_some() || self.s.receiver_blocked() || self.s.disconnected();
        }
        self.s.send_ready(None)
    }

    fn is_ready(&self, cx: Option<&Context>) -> bool {
        self.handoff.is_some() || self.s.send_ready(cx)
    }

    fn waiting(&self) -> Option<Waiting<'_>> {
        Some(self.s.send_waiting())
    }

    fn register(&mut self, cx: &Arc<Context>, index: usize) {
        if self.handoff.is_none() && self.s.is_rendezvous() {
            let slot = Slot::empty();
            self.s.register_selection(cx, index, slot.clone());
            self.slot = Some(slot);
        }
    }

    fn unregister(&mut self, cx: &Context, chosen: bool) {
        if let Some(slot) = self.slot.take() {
            self.s.unregister_selection(cx);
            if chosen {
                // A receive committed this send and waits on the slot.
                self.handoff = Some(Handoff::to_waiting(slot));
            }
        }
    }

    fn accept(&mut self) -> bool {
        self.handoff.is_some()
    }

    fn handoff(&mut self) -> *mut () {
        (&raw mut self.handoff).cast()
    }

    fn forfeit(&mut self) {
        // Dropping the handoff releases the receive waiting for the value.
        self.handoff = None;
    }

    fn channel(&self) -> *const () {
        self.s.channel_id()
    }
}

/// A removed operation of [`Select`]: never chosen.
struct Removed;

impl Operation for Removed {
    fn attempt(&mut self) -> bool {
        false
    }

    fn is_ready(&self, _cx: Option<&Context>) -> bool {
        false
    }

    fn waiting(&self) -> Option<Waiting<'_>> {
        None
    }

    fn channel(&self) -> *const () {
        core::ptr::null()
    }
}

/// How long a selection may wait. Public only for the expansion of
/// [`select!`](crate::select!).
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub enum Mode {
    /// Not at all.
    Try,
    /// Until an operation is chosen.
    Block,
    /// Until the instant.
    Until(Instant),
}

impl Mode {
    /// Waiting at most `timeout` from now (forever if the instant cannot be represented).
    pub fn timeout(timeout: Duration) -> Self {
        Instant::now()
            .checked_add(timeout)
            .map_or(Mode::Block, Mode::Until)
    }
}

/// One random 64-bit number from this thread's state (xorshift64, seeded from the address of
/// its cell).
#[cfg(not(loom))]
#[inline]
fn random_u64() -> u64 {
    use core::cell::Cell;
    std::thread_local! {
        static RNG: Cell<u64> = const { Cell::new(0) };
    }
    RNG.with(|rng| {
        let mut x = rng.get();
        if x == 0 {
            x = (rng as *const Cell<u64> as u64) | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        rng.set(x);
        x
    })
}

/// The order in which a selection tries (and registers) its operations: a uniformly random
/// permutation (Fisher–Yates), so that each of several ready operations is chosen with equal
/// chance (a random starting point alone favours the operation after a run of unready ones),
/// or their own order when biased. Up to 16 operations are ordered in one register (4 bits
/// each), without touching memory; more in a vector.
enum Order {
    Packed(u64),
    Large(Vec<usize>),
}

impl Order {
    #[inline]
    fn new(n: usize, biased: bool) -> Self {
        #[cfg_attr(loom, allow(unused_mut))]
        let mut order = if n <= 16 {
            Order::Packed(0xFEDC_BA98_7654_3210)
        } else {
            Order::Large((0..n).collect())
        };
        // Loom explores schedules, not random choices: a fixed order keeps models
        // deterministic.
        #[cfg(not(loom))]
        if !biased && n > 1 {
            // One random number read as a fraction in [0, 1): each step multiplies it by the
            // number of choices left, takes the integer part as the choice and keeps the
            // fraction for the next (so `n` choices cost one draw and `n` multiplications;
            // 64 bits cover the 45 that 16! needs, with a bias below 2^-19; beyond 16
            // operations each step draws afresh).
            let mut frac = random_u64();
            for i in (1..n).rev() {
                if n > 16 {
                    frac = random_u64();
                }
                let m = u128::from(frac) * (i as u128 + 1);
                let j = (m >> 64) as usize;
                frac = m as u64;
                match &mut order {
                    Order::Packed(p) => {
                        let (si, sj) = (4 * i, 4 * j);
                        let d = ((*p >> si) ^ (*p >> sj)) & 0xF;
                        *p ^= (d << si) | (d << sj);
                    }
                    Order::Large(v) => v.swap(i, j),
                }
            }
        }
        #[cfg(loom)]
        let _ = biased;
        order
    }

    /// The `k`th operation to try.
    #[inline]
    fn get(&self, k: usize) -> usize {
        match self {
            Order::Packed(p) => ((p >> (4 * k)) & 0xF) as usize,
            Order::Large(v) => v[k],
        }
    }
}

/// Runs a selection over `ops`: completes one (or, with `ready_only`, finds one ready) and
/// returns its index (with `biased`, the first in order that can; otherwise a random one); `None` when `mode` says to stop waiting first. Public only for the
/// expansion of [`select!`](crate::select!).
#[doc(hidden)]
pub fn run<O>(ops: &mut [O], mode: Mode, ready_only: bool, biased: bool) -> Option<usize>
where
    O: DerefMut,
    O::Target: Operation,
{
    let n = ops.len();
    let order = Order::new(n, biased);
    let mut check = |ops: &mut [O]| {
        (0..n).map(|k| order.get(k)).find(|&i| {
            if ready_only {
                ops[i].is_ready(None)
            } else {
                ops[i].attempt()
            }
        })
    };
    let deadline = match mode {
        Mode::Until(d) => Some(d),
        _ => None,
    };
    let passed = |d: Option<Instant>| d.is_some_and(|d| Instant::now() >= d);
    if let Some(i) = check(ops) {
        return Some(i);
    }
    // Without time to wait, a second pass: an operation that failed in the first one because
    // another thread took what it wanted may have been overtaken by a change the first pass
    // checked too early to see (the answer is then linearisable, as crossbeam's).
    if matches!(mode, Mode::Try) || passed(deadline) {
        return check(ops);
    }
    if n == 1 && !ready_only {
        // One operation: its own blocking form (with its spinning, and for a rendezvous send
        // the offer of its element to any receiver).
        if let Some(done) = ops[0].complete_alone(deadline) {
            return done.then_some(0);
        }
    }
    // Spin, then yield, as a blocked receive does before it sleeps.
    for round in 0..SPIN_ROUNDS + YIELD_ROUNDS {
        if passed(deadline) {
            return check(ops);
        }
        if round < SPIN_ROUNDS {
            for _ in 0..(1u32 << round.min(6)) {
                spin_loop();
            }
        } else {
            yield_now();
        }
        if let Some(i) = check(ops) {
            return Some(i);
        }
    }
    // Some end that is never notified (a `Wait::Spin` channel) makes the selection poll
    // instead of sleeping.
    let polls = ops
        .iter()
        .any(|op| op.waiting().is_some_and(|w| !w.notified));
    sleep(ops, deadline, ready_only, &order, polls, &mut check)
}

/// Whether a selection of the macro evaluates every send's message before it starts: when one
/// of its sends is on a rendezvous channel. Such a send completes only by handing its message
/// to a receiver within the selection, and whether a receiver waits is only a hint (it may be
/// leaving), so it must be able to try, fail and try again, and the other sends with it; the
/// expansion evaluates each message at one place, once. Public only for the expansion of
/// [`select!`](crate::select!).
#[doc(hidden)]
pub fn eager(ops: &[&dyn Operation]) -> bool {
    ops.iter().any(|op| op.eager())
}

/// Completes a selection of the macro: with `eager` (every message given), runs it; otherwise,
/// after [`run`] chose `chosen`, when that is a send just
/// given its message, sends it; if the room (or the blocked receiver) it was chosen for was
/// taken meanwhile, selects again among the other operations and this send, which now holds
/// its message. The other sends whose messages were not evaluated are no longer chosen then:
/// the expansion evaluates one message per selection. Public only for the expansion of
/// [`select!`](crate::select!).
#[doc(hidden)]
pub fn finish<O>(
    ops: &mut [O],
    chosen: Option<usize>,
    mode: Mode,
    biased: bool,
    eager: bool,
) -> Option<usize>
where
    O: DerefMut,
    O::Target: Operation,
{
    if eager {
        // Every message was given before the selection: it runs now.
        return run(ops, mode, false, biased);
    }
    let i = chosen?;
    if !ops[i].supplied() {
        return chosen;
    }
    for op in ops.iter_mut() {
        op.forgo();
    }
    if ops[i].attempt() {
        return chosen;
    }
    run(ops, mode, false, biased)
}

/// The sleeping part of [`run`]: registers with every eventcount, and (unless it only asks
/// what is ready) enters its rendezvous operations in their channels' registries under one
/// context; re-checks, parks (or, with `polls`, yields once); then withdraws, completes the
/// operation another thread committed if any, and otherwise attempts every operation. Until
/// an operation is chosen or the deadline passes.
#[cold]
fn sleep<O>(
    ops: &mut [O],
    deadline: Option<Instant>,
    ready_only: bool,
    order: &Order,
    polls: bool,
    check: &mut impl FnMut(&mut [O]) -> Option<usize>,
) -> Option<usize>
where
    O: DerefMut,
    O::Target: Operation,
{
    let (signal, cx) = take_context();
    let chosen = loop {
        signal.reset();
        // Every entry of the previous round is withdrawn: no committer can still choose it.
        cx.reset();
        let mut due = None;
        // Entries are committed oldest first: registering in the selection's random order
        // keeps the choice among several operations on one channel fair. A selection that
        // only asks what is ready commits to nothing.
        if !ready_only {
            for i in (0..ops.len()).map(|k| order.get(k)) {
                ops[i].register(&cx, i);
            }
        }
        // After the entries: entering one notifies the other side's eventcount, which must not
        // wake this selection's own signal.
        if !polls {
            for op in ops.iter() {
                if let Some(w) = op.waiting() {
                    w.ec.register(&signal);
                    due = earliest(due, w.due);
                }
            }
        }
        // Whether the re-check saw an operation ready (so the selection did not sleep).
        let mut looked_ready = false;
        if polls {
            yield_now();
        } else {
            // The selector's half of the Dekker pair with every notifier: registered before
            // the re-check. The re-check only looks (nothing completes while other threads may
            // commit the selection).
            let ordered = fence::heavy();
            looked_ready = ops.iter().any(|op| op.is_ready(Some(&cx)));

            if !looked_ready {
                let nap = (!ordered).then(|| Instant::now() + UNORDERED_NAP);
                signal.park(earliest(earliest(deadline, due), nap));
            }
        }
        // From here nothing can be committed: either this withdraws the selection, or another
        // thread chose one operation, which is the one to complete.
        let chosen = cx.try_abort();
        for (i, op) in ops.iter_mut().enumerate() {
            if !polls && let Some(w) = op.waiting() {
                w.ec.unregister(&signal);
            }
            if !ready_only {
                op.unregister(&cx, chosen == Some(i));
            }
        }
        if let Some(i) = chosen
            && ops[i].accept()
        {
            break Some(i);
        }
        if let Some(i) = check(ops) {
            break Some(i);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break None;
        }
        if looked_ready {
            // What looked ready was taken by another thread, or is half done (an element
            // whose sender is still writing it): let that thread run before looking again.
            yield_now();
        }
    };
    keep_context(signal, cx);
    chosen
}

#[cfg(not(loom))]
std::thread_local! {
    /// The thread's last selection's signal and context, for its next selection to sleep with
    /// (as crossbeam keeps a context per thread): a sleeping selection allocates nothing.
    static CONTEXT: core::cell::Cell<Option<(Arc<Signal>, Arc<Context>)>> =
        const { core::cell::Cell::new(None) };
}

/// A signal for the calling thread and a context over it: the thread's cached pair when no
/// one else holds either any more (no eventcount registration, registry entry or committer
/// from an earlier selection: a late wake-up from one would only be spurious anyway, but
/// none can come), a new pair otherwise.
fn take_context() -> (Arc<Signal>, Arc<Context>) {
    #[cfg(not(loom))]
    if let Ok(Some((signal, cx))) = CONTEXT.try_with(core::cell::Cell::take)
        // Ours and the context's.
        && Arc::strong_count(&signal) == 2
        && Arc::strong_count(&cx) == 1
    {
        return (signal, cx);
    }
    let signal = Signal::for_current_thread();
    let cx = Context::new(signal.clone());
    (signal, cx)
}

/// Keeps the pair for the thread's next selection (dropped instead while the thread's
/// locals are being destroyed).
fn keep_context(signal: Arc<Signal>, cx: Arc<Context>) {
    #[cfg(not(loom))]
    {
        let _ = CONTEXT.try_with(|c| c.set(Some((signal, cx))));
    }
    #[cfg(loom)]
    drop((signal, cx));
}

mod dynamic;
mod macros;

#[cfg(all(test, not(loom)))]
mod tests {
    use super::Order;

    /// Every order is a permutation, and each operation comes first equally often (within
    /// six standard deviations), for sizes in the packed form and beyond it.
    #[test]
    fn orders_are_uniform_permutations() {
        for n in [2usize, 3, 4, 7, 16, 20] {
            let draws = if cfg!(miri) { 200 } else { 20_000 };
            let mut first = vec![0u32; n];
            for _ in 0..draws {
                let order = Order::new(n, false);
                let mut seen = vec![false; n];
                for k in 0..n {
                    let i = order.get(k);
                    assert!(i < n && !seen[i], "not a permutation of 0..{n}");
                    seen[i] = true;
                }
                first[order.get(0)] += 1;
            }
            if cfg!(miri) {
                continue;
            }
            let p = 1.0 / n as f64;
            let (mean, sd) = (draws as f64 * p, (draws as f64 * p * (1.0 - p)).sqrt());
            for (i, &c) in first.iter().enumerate() {
                assert!(
                    (f64::from(c) - mean).abs() < 6.0 * sd,
                    "n = {n}: operation {i} first {c} times of {draws}"
                );
            }
            let biased = Order::new(n, true);
            assert!((0..n).all(|k| biased.get(k) == k));
        }
    }
}

pub use dynamic::{Select, SelectedOperation};

/// The `recv` case of [`select!`](crate::select!) on a handle. The expansion calls the method
/// with method syntax, so it is found through auto-deref: a case takes a general handle, a
/// shareable one, a reference to either, anything that derefs to them (as a plain
/// `&Receiver<T>` parameter would by coercion), and an [`spsc`](crate::spsc) handle. The case
/// holds the handle's general handle and exposes nothing that could clone it, so an `spsc`
/// handle lends its inner handle to the selection only. Public only for the expansion.
#[doc(hidden)]
pub trait SelectReceiver<T> {
    #[doc(hidden)]
    fn __welltempered_recv_case(&self) -> RecvCase<'_, T>;
}

/// The `send` case on a handle: as [`SelectReceiver`].
#[doc(hidden)]
pub trait SelectSender<T> {
    #[doc(hidden)]
    fn __welltempered_send_case(&self) -> SendCase<'_, T>;
}

impl<T> SelectReceiver<T> for Receiver<T> {
    #[inline(always)]
    fn __welltempered_recv_case(&self) -> RecvCase<'_, T> {
        RecvCase::new(self)
    }
}

impl<T> SelectSender<T> for Sender<T> {
    #[inline(always)]
    fn __welltempered_send_case(&self) -> SendCase<'_, T> {
        SendCase::new(self)
    }
}

/// What the expansion of [`select!`](crate::select!) names; not public API.
#[doc(hidden)]
pub mod __private {
    pub use super::{
        Mode, Operation, RecvCase, SelectReceiver, SelectSender, SendCase, eager, finish, run,
    };
}
