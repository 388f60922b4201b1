//! Async sends and receives: [`RecvFut`] and [`SendFut`], and (with the `futures` feature)
//! [`RecvStream`] and [`SendSink`], for any executor (they use wakers only).
//!
//! **Algorithm.** A future attempts its operation with the non-blocking `try_` form; if it
//! would block, it first yields to its executor once (asking to be polled again at once, as
//! a blocked thread spins a little), then registers a task signal (its latest waker, in an
//! `AtomicWaker`) with the eventcount the blocking form would sleep on, as a selector
//! registers (see `eventcount.rs` and `select.rs`): counted as a waiter, then one heavy fence
//! (a `SeqCst` fence once a task has armed that eventcount: its notifiers then fence fully),
//! then one more attempt, and only then `Pending`. A notifier takes the registration and wakes the task; the
//! next poll registers again if it must wait again. So a send still costs only a light fence
//! and a load when nobody waits (and a `SeqCst` fence besides on a channel a task has awaited),
//! and a thread may send while a task awaits (or the reverse) on the same channel.
//!
//! A rendezvous send is two-phase, as the blocking one is, but never blocks the thread: once a
//! receiver is waiting, the future pushes its element and returns `Pending` until the element
//! is taken; if every waiting receiver leaves first, it takes the element back (exactly one of
//! that claim and a receiver's succeeds) and waits again.
//!
//! **Cancellation.** Dropping a future withdraws its registration (and, for a rendezvous
//! receive, its place among the blocked receivers); a dropped receive has taken nothing (an
//! element is taken only in the poll that returns it); a dropped rendezvous send takes its
//! element back unless a receiver already took it (then it was delivered). Nothing is lost,
//! nothing stays registered.
//!
//! **Handles.** A future holds its handle by `&mut` (or owns it, with `into_*`), never by
//! `&`: handles are not `Sync`, so a future holding `&Receiver` could not be sent to another
//! thread, and one that could would let two threads use one side's single discipline. A
//! [`SharedReceiver`]/[`SharedSender`] is `Sync` and lends its futures a `&` reference.
//!
//! Channels built with [`Wait::Spin`](crate::Wait::Spin) are never notified, and timer channels
//! deliver only when received from: their futures ask to be polled again at once (they spin
//! through the executor). Use the executor's own timers in async code.
//!
//! **Guarantees.** As the channel's; a future is `Send` when its element type is.

use super::{Chan, Receiver, Sender, Waiting};
use crate::error::{RecvError, SendError, TryRecvError, TrySendError};
use crate::eventcount::{EventCount, Signal};
use crate::shared::{SharedReceiver, SharedSender};
use crate::sync::{Arc, Ordering};
use core::fmt;
use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

/// Times a future yields to its executor (asking to be polled again at once) before it
/// registers to be woken, on a channel whose strategy spins before it parks
/// ([`Wait::SpinThenPark`](crate::Wait::SpinThenPark)): when the other end runs soon (a task
/// on the same executor, a thread on another core), the next poll usually finds the operation
/// done, without the registration and its fence. Not the blocked thread's adaptive budget of
/// up to 100 rounds: on one thread, yielding can only help once the other end has run, and a
/// long run of yields keeps the executor busy with a task that cannot progress (a spawned task
/// that spins starves tokio's current-thread `block_on` future, which is polled again only
/// between batches of tasks). One yield, not two, since a registration costs a `SeqCst` fence
/// rather than a system call (see `eventcount.rs`): a tokio ping-pong of tasks on one thread
/// made 1.06x flume's round trips with one and 0.94x with two (`async_channels` example).
const YIELDS: u32 = 1;

/// A future's registration with one eventcount (see the module documentation).
#[derive(Default)]
struct Registration {
    signal: Option<Arc<Signal>>,
    /// Registered, and not withdrawn since (a notification may have taken it: see `arm`).
    registered: bool,
    /// Yields to the executor so far in this operation (see [`YIELDS`]).
    yields: u32,
}

impl Registration {
    /// Whether to yield to the executor once more instead of registering; if so, asks to be
    /// polled again.
    fn yield_first<T>(&mut self, chan: &Chan<T>, cx: &Context<'_>) -> bool {
        if self.registered
            || self.yields >= YIELDS
            || !matches!(chan.wait, crate::Wait::SpinThenPark { .. })
        {
            return false;
        }
        self.yields += 1;
        cx.waker().wake_by_ref();
        true
    }

    /// The operation is over.
    fn done(&mut self) {
        self.yields = 0;
    }

    /// Registers (again, if a notification took the registration) to be woken through
    /// `cx`'s waker by the eventcount of `w`. Returns `false` if the caller must ask to be
    /// polled again at once: the channel is never notified (spinning, or a timer), or the
    /// heavy fence was not ordered (see `fence.rs`).
    fn arm(&mut self, w: &Waiting<'_>, cx: &Context<'_>) -> bool {
        if !w.notified || w.due.is_some() {
            return false;
        }
        let signal = self.signal.get_or_insert_with(Signal::for_task);
        // Before the registration is visible: a notifier wakes the latest waker.
        signal.set_waker(cx.waker());
        // A woken signal's registration was taken by its notifier. One not woken is still
        // listed, or being taken right now (and its wake-up is on the way).
        // The waiter's half of the Dekker pair with every notifier (a heavy fence, or a
        // `SeqCst` one once a task has armed the eventcount: see `eventcount.rs`); the caller
        // attempts once more after it.
        if !self.registered || signal.take_woken() {
            self.registered = true;
            w.ec.register_task(signal)
        } else {
            w.ec.order_task(w.ec.marks())
        }
    }

    /// Withdraws the registration, if any.
    fn disarm(&mut self, ec: &EventCount) {
        if self.registered {
            if let Some(signal) = &self.signal {
                ec.unregister(signal);
            }
            self.registered = false;
        }
    }
}

/// The pending state of a receive.
#[derive(Default)]
struct RecvState {
    reg: Registration,
    /// Counted among a rendezvous channel's blocked receivers.
    entered: bool,
}

impl RecvState {
    fn attempt<T>(r: &Receiver<T>) -> Option<Result<T, RecvError>> {
        match r.try_recv() {
            Ok(v) => Some(Ok(v)),
            Err(TryRecvError::Disconnected) => Some(Err(RecvError)),
            Err(TryRecvError::Empty) => None,
        }
    }

    fn poll<T>(&mut self, r: &Receiver<T>, cx: &Context<'_>) -> Poll<Result<T, RecvError>> {
        if let Some(res) = Self::attempt(r) {
            self.finish(r);
            return Poll::Ready(res);
        }
        if !self.entered {
            // A rendezvous sender hands its element only to a receiver that waits.
            self.entered = r.enter_blocked();
        }
        if self.reg.yield_first(&r.chan, cx) {
            return Poll::Pending;
        }
        let ordered = self.reg.arm(&r.recv_waiting(), cx);
        if let Some(res) = Self::attempt(r) {
            self.finish(r);
            return Poll::Ready(res);
        }
        if !ordered {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }

    /// Leaves the wait: withdraws the registration and the blocked-receiver count.
    fn finish<T>(&mut self, r: &Receiver<T>) {
        self.reg.disarm(&r.chan.recv_ec);
        self.reg.done();
        if self.entered {
            self.entered = false;
            r.leave_blocked();
        }
    }
}

/// The pending state of a send.
struct SendState<T> {
    reg: Registration,
    /// The element, until it is sent (or, for a rendezvous, pushed).
    value: Option<T>,
    /// A rendezvous send's element is in the queue at this index, waiting to be taken.
    pushed: Option<usize>,
}

impl<T> SendState<T> {
    fn new(value: Option<T>) -> Self {
        Self {
            reg: Registration::default(),
            value,
            pushed: None,
        }
    }

    /// One attempt, never blocking: `Some` when the send is over.
    fn attempt(&mut self, s: &Sender<T>) -> Option<Result<(), SendError<T>>> {
        let chan = &*s.chan;
        if let Some(index) = self.pushed {
            return self.await_taken(chan, index);
        }
        let value = self.value.take()?;
        if !chan.rendezvous {
            return match s.try_send(value) {
                Ok(()) => Some(Ok(())),
                Err(TrySendError::Disconnected(v)) => Some(Err(SendError(v))),
                Err(TrySendError::Full(v)) => {
                    self.value = Some(v);
                    None
                }
            };
        }
        // A rendezvous: a sleeping selection's receive takes the element at once; otherwise
        // push only while a receiver waits, then wait for it without blocking.
        let value = match chan.selecting.give(value) {
            Ok(()) => return Some(Ok(())),
            Err(v) => v,
        };
        if chan.blocked_receivers.load(Ordering::SeqCst) == 0 {
            if chan.receivers_gone() {
                return Some(Err(SendError(value)));
            }
            self.value = Some(value);
            return None;
        }
        match chan.try_push(value) {
            Ok(index) => {
                chan.wake_receivers();
                self.pushed = Some(index);
                self.await_taken(chan, index)
            }
            Err(TrySendError::Disconnected(v)) => Some(Err(SendError(v))),
            Err(TrySendError::Full(v)) => {
                self.value = Some(v);
                None
            }
        }
    }

    /// A pushed rendezvous element: taken (`Ok`), or taken back when every receiver is gone
    /// (`Err`) or no receiver waits any more (the send waits again).
    fn await_taken(&mut self, chan: &Chan<T>, index: usize) -> Option<Result<(), SendError<T>>> {
        if chan.queue.head_index() > index {
            self.pushed = None;
            return Some(Ok(()));
        }
        let gone = chan.receivers_gone();
        if !gone && chan.receiver_may_take() {
            return None;
        }
        self.pushed = None;
        match chan.take_back(index) {
            None => Some(Ok(())), // A receiver claimed it first: delivered.
            Some(v) if gone => Some(Err(SendError(v))),
            Some(v) => {
                self.value = Some(v);
                None
            }
        }
    }

    fn poll(&mut self, s: &Sender<T>, cx: &Context<'_>) -> Poll<Result<(), SendError<T>>> {
        assert!(
            self.value.is_some() || self.pushed.is_some(),
            "a send future polled after it completed"
        );
        if let Some(res) = self.attempt(s) {
            self.reg.disarm(&s.chan.send_ec);
            self.reg.done();
            return Poll::Ready(res);
        }
        if self.reg.yield_first(&s.chan, cx) {
            return Poll::Pending;
        }
        let ordered = self.reg.arm(&s.send_waiting(), cx);
        if let Some(res) = self.attempt(s) {
            self.reg.disarm(&s.chan.send_ec);
            self.reg.done();
            return Poll::Ready(res);
        }
        if !ordered {
            cx.waker().wake_by_ref();
        }
        Poll::Pending
    }

    /// Abandons the send: withdraws the registration and takes a pushed rendezvous element
    /// back (if a receiver took it first, it was delivered). Returns the element not sent.
    fn cancel(&mut self, s: &Sender<T>) -> Option<T> {
        self.reg.disarm(&s.chan.send_ec);
        if let Some(index) = self.pushed.take() {
            return s.chan.take_back(index);
        }
        self.value.take()
    }
}

impl<T> Chan<T> {
    /// Takes a rendezvous element pushed by the caller at `index` back, unless a receiver
    /// claimed it first (`None`: delivered).
    fn take_back(&self, index: usize) -> Option<T> {
        // SAFETY: the caller pushed index `index` (its stamp is stored: the push returned),
        // and rendezvous receivers claim with `claim_shared` only (see `Chan::claim`).
        let claim = unsafe { self.queue.claim_index_shared(index) }?;
        // SAFETY: the claim gives us our own written value back; moved out exactly once.
        let value = unsafe { claim.value_ptr().read() };
        // Frees the slot for the next sender, and wakes one waiting for room.
        self.finish(claim, true);
        Some(value)
    }
}

/// How a future holds its receiver.
enum RxRef<'a, T> {
    Borrowed(&'a mut Receiver<T>),
    Shared(&'a SharedReceiver<T>),
    Owned(Receiver<T>),
    OwnedShared(SharedReceiver<T>),
}

impl<T> RxRef<'_, T> {
    fn get(&self) -> &Receiver<T> {
        match self {
            Self::Borrowed(r) => r,
            Self::Shared(r) => r,
            Self::Owned(r) => r,
            Self::OwnedShared(r) => r,
        }
    }
}

/// How a future holds its sender.
enum TxRef<'a, T> {
    Borrowed(&'a mut Sender<T>),
    Shared(&'a SharedSender<T>),
    Owned(Sender<T>),
    OwnedShared(SharedSender<T>),
}

impl<T> TxRef<'_, T> {
    fn get(&self) -> &Sender<T> {
        match self {
            Self::Borrowed(s) => s,
            Self::Shared(s) => s,
            Self::Owned(s) => s,
            Self::OwnedShared(s) => s,
        }
    }
}

/// The future of [`Receiver::recv_async`]: the next element, or `RecvError` once every sender
/// is gone and the channel is empty. Dropping it takes nothing.
#[must_use = "futures do nothing unless polled"]
pub struct RecvFut<'a, T> {
    rx: RxRef<'a, T>,
    state: RecvState,
}

impl<T> Future for RecvFut<'_, T> {
    type Output = Result<T, RecvError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.state.poll(this.rx.get(), cx)
    }
}

impl<T> Drop for RecvFut<'_, T> {
    fn drop(&mut self) {
        self.state.finish(self.rx.get());
    }
}

impl<T> fmt::Debug for RecvFut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecvFut").finish_non_exhaustive()
    }
}

/// The future of [`Sender::send_async`]: `Ok` once the element is in the channel (for a
/// rendezvous channel, once a receiver took it), `Err` with the element if every receiver is
/// gone. Dropping it before it completes drops the element, unless a rendezvous receiver
/// already took it (then it was delivered).
#[must_use = "futures do nothing unless polled"]
pub struct SendFut<'a, T> {
    tx: TxRef<'a, T>,
    state: SendState<T>,
}

impl<T> Unpin for SendFut<'_, T> {}

impl<T> Future for SendFut<'_, T> {
    type Output = Result<(), SendError<T>>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        this.state.poll(this.tx.get(), cx)
    }
}

impl<T> Drop for SendFut<'_, T> {
    fn drop(&mut self) {
        drop(self.state.cancel(self.tx.get()));
    }
}

impl<T> fmt::Debug for SendFut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SendFut").finish_non_exhaustive()
    }
}

impl<T> Receiver<T> {
    /// Receives asynchronously: a future of the next element (any executor: it uses wakers
    /// only). It borrows the receiver mutably, so that it can be sent to another thread with
    /// the task (a `&Receiver` could not be: handles are not `Sync`).
    ///
    /// ```
    /// let (tx, mut rx) = welltempered_channel::unbounded::<u32>();
    /// std::thread::spawn(move || tx.send(7).unwrap());
    /// let got = futures_executor::block_on(rx.recv_async());
    /// assert_eq!(got, Ok(7));
    /// ```
    pub fn recv_async(&mut self) -> RecvFut<'_, T> {
        RecvFut {
            rx: RxRef::Borrowed(self),
            state: RecvState::default(),
        }
    }

    /// [`Receiver::recv_async`], owning the receiver.
    pub fn into_recv_async(self) -> RecvFut<'static, T> {
        RecvFut {
            rx: RxRef::Owned(self),
            state: RecvState::default(),
        }
    }
}

impl<T> SharedReceiver<T> {
    /// [`Receiver::recv_async`] through a shared reference (a `SharedReceiver` is `Sync`).
    pub fn recv_async(&self) -> RecvFut<'_, T> {
        RecvFut {
            rx: RxRef::Shared(self),
            state: RecvState::default(),
        }
    }

    /// [`SharedReceiver::recv_async`], owning the receiver (flume's `into_recv_async`).
    pub fn into_recv_async(self) -> RecvFut<'static, T> {
        RecvFut {
            rx: RxRef::OwnedShared(self),
            state: RecvState::default(),
        }
    }
}

impl<T> Sender<T> {
    /// Sends asynchronously: a future that completes once `value` is in the channel (waiting
    /// for room, or for a rendezvous receiver, without blocking the thread). It borrows the
    /// sender mutably, as [`Receiver::recv_async`] borrows its receiver.
    ///
    /// ```
    /// let (mut tx, rx) = welltempered_channel::bounded::<u32>(1);
    /// futures_executor::block_on(async {
    ///     tx.send_async(1).await.unwrap();
    /// });
    /// assert_eq!(rx.recv(), Ok(1));
    /// ```
    pub fn send_async(&mut self, value: T) -> SendFut<'_, T> {
        SendFut {
            tx: TxRef::Borrowed(self),
            state: SendState::new(Some(value)),
        }
    }

    /// [`Sender::send_async`], owning the sender.
    pub fn into_send_async(self, value: T) -> SendFut<'static, T> {
        SendFut {
            tx: TxRef::Owned(self),
            state: SendState::new(Some(value)),
        }
    }
}

impl<T> SharedSender<T> {
    /// [`Sender::send_async`] through a shared reference (a `SharedSender` is `Sync`).
    pub fn send_async(&self, value: T) -> SendFut<'_, T> {
        SendFut {
            tx: TxRef::Shared(self),
            state: SendState::new(Some(value)),
        }
    }

    /// [`SharedSender::send_async`], owning the sender (flume's `into_send_async`).
    pub fn into_send_async(self, value: T) -> SendFut<'static, T> {
        SendFut {
            tx: TxRef::OwnedShared(self),
            state: SendState::new(Some(value)),
        }
    }
}

/// A receiver as a [`futures_core::Stream`] of its elements, ending once every sender is gone
/// and the channel is empty (feature `futures`).
#[cfg(feature = "futures")]
#[must_use = "streams do nothing unless polled"]
pub struct RecvStream<'a, T> {
    rx: RxRef<'a, T>,
    state: RecvState,
}

#[cfg(feature = "futures")]
impl<T> futures_core::Stream for RecvStream<'_, T> {
    type Item = T;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let this = self.get_mut();
        this.state.poll(this.rx.get(), cx).map(Result::ok)
    }
}

#[cfg(feature = "futures")]
impl<T> futures_core::FusedStream for RecvStream<'_, T> {
    fn is_terminated(&self) -> bool {
        let r = self.rx.get();
        r.chan.senders_gone() && r.is_empty()
    }
}

#[cfg(feature = "futures")]
impl<T> Drop for RecvStream<'_, T> {
    fn drop(&mut self) {
        self.state.finish(self.rx.get());
    }
}

/// A sender as a [`futures_sink::Sink`] (feature `futures`): `start_send` holds one element,
/// which `poll_ready`, `poll_flush` and `poll_close` drive into the channel; the error gives
/// back an element no receiver can take any more. Dropping the sink with an element held
/// drops that element, as dropping a [`SendFut`] does.
#[cfg(feature = "futures")]
#[must_use = "sinks do nothing unless polled"]
pub struct SendSink<'a, T> {
    tx: TxRef<'a, T>,
    state: SendState<T>,
}

#[cfg(feature = "futures")]
impl<T> Unpin for SendSink<'_, T> {}

#[cfg(feature = "futures")]
impl<T> SendSink<'_, T> {
    /// Drives the held element, if any, into the channel.
    fn drive(&mut self, cx: &Context<'_>) -> Poll<Result<(), SendError<T>>> {
        if self.state.value.is_none() && self.state.pushed.is_none() {
            return Poll::Ready(Ok(()));
        }
        self.state.poll(self.tx.get(), cx)
    }
}

#[cfg(feature = "futures")]
impl<T> futures_sink::Sink<T> for SendSink<'_, T> {
    type Error = SendError<T>;
    fn poll_ready(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().drive(cx)
    }
    fn start_send(self: Pin<&mut Self>, item: T) -> Result<(), Self::Error> {
        let this = self.get_mut();
        assert!(
            this.state.value.is_none() && this.state.pushed.is_none(),
            "start_send without poll_ready"
        );
        this.state.value = Some(item);
        Ok(())
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().drive(cx)
    }
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.get_mut().drive(cx)
    }
}

#[cfg(feature = "futures")]
impl<T> Drop for SendSink<'_, T> {
    fn drop(&mut self) {
        drop(self.state.cancel(self.tx.get()));
    }
}

#[cfg(feature = "futures")]
impl<T> Receiver<T> {
    /// The receiver as a [`futures_core::Stream`], borrowed mutably (feature `futures`).
    pub fn stream(&mut self) -> RecvStream<'_, T> {
        RecvStream {
            rx: RxRef::Borrowed(self),
            state: RecvState::default(),
        }
    }

    /// The receiver as a [`futures_core::Stream`], owned (feature `futures`).
    pub fn into_stream(self) -> RecvStream<'static, T> {
        RecvStream {
            rx: RxRef::Owned(self),
            state: RecvState::default(),
        }
    }
}

#[cfg(feature = "futures")]
impl<T> SharedReceiver<T> {
    /// [`Receiver::stream`] through a shared reference (feature `futures`).
    pub fn stream(&self) -> RecvStream<'_, T> {
        RecvStream {
            rx: RxRef::Shared(self),
            state: RecvState::default(),
        }
    }

    /// The shared receiver as a [`futures_core::Stream`], owned (feature `futures`; flume's
    /// `into_stream`).
    ///
    /// ```
    /// use futures_util::StreamExt;
    /// let (tx, rx) = welltempered_channel::shared::unbounded::<u32>();
    /// tx.send(1).unwrap();
    /// drop(tx);
    /// let got: Vec<u32> = futures_executor::block_on(rx.into_stream().collect());
    /// assert_eq!(got, [1]);
    /// ```
    pub fn into_stream(self) -> RecvStream<'static, T> {
        RecvStream {
            rx: RxRef::OwnedShared(self),
            state: RecvState::default(),
        }
    }
}

#[cfg(feature = "futures")]
impl<T> Sender<T> {
    /// The sender as a [`futures_sink::Sink`], borrowed mutably (feature `futures`).
    pub fn sink(&mut self) -> SendSink<'_, T> {
        SendSink {
            tx: TxRef::Borrowed(self),
            state: SendState::new(None),
        }
    }

    /// The sender as a [`futures_sink::Sink`], owned (feature `futures`).
    pub fn into_sink(self) -> SendSink<'static, T> {
        SendSink {
            tx: TxRef::Owned(self),
            state: SendState::new(None),
        }
    }
}

#[cfg(feature = "futures")]
impl<T> SharedSender<T> {
    /// [`Sender::sink`] through a shared reference (feature `futures`).
    pub fn sink(&self) -> SendSink<'_, T> {
        SendSink {
            tx: TxRef::Shared(self),
            state: SendState::new(None),
        }
    }

    /// The shared sender as a [`futures_sink::Sink`], owned (feature `futures`; flume's
    /// `into_sink`).
    pub fn into_sink(self) -> SendSink<'static, T> {
        SendSink {
            tx: TxRef::OwnedShared(self),
            state: SendState::new(None),
        }
    }
}
