//! Single-producer single-consumer handles: the channel with its topology declared.
//!
//! **Algorithm.** The segmented queue of `queue.rs` with both sides in the single discipline for
//! their whole life: plain loads and stores and one release store per element on each side
//! (an unbounded ring of segments holding elements in raw storage, popped by moving or by
//! borrowing). The handles are not `Clone`, so a second producer or consumer is a compile
//! error: a declared topology, checked by the type system for free:
//!
//! ```compile_fail,E0599
//! let (tx, _rx) = welltempered_channel::spsc::channel::<u32>();
//! let tx2 = tx.clone(); // error: `spsc::Sender` is not `Clone`
//! ```
//!
//! ```compile_fail,E0599
//! let (_tx, rx) = welltempered_channel::spsc::bounded::<u32>(4);
//! let rx2 = rx.clone(); // error: `spsc::Receiver` is not `Clone`
//! ```
//!
//! Nor are they `Sync` (a shared reference would be a second producer):
//!
//! ```compile_fail,E0277
//! let (tx, _rx) = welltempered_channel::spsc::channel::<u32>();
//! let tx = &tx;
//! std::thread::scope(|s| { s.spawn(move || tx.send(1)); });
//! ```
//!
//! The handles have the general channel's async forms (`recv_async`, `send_async`, and with the
//! `futures` feature `stream` and `sink`), taking them by `&mut` or by value. They can be cases
//! of a [`select!`](crate::select!) (a case holds the inner handle and exposes nothing that
//! could clone it), but not operations of a dynamic [`Select`](crate::Select), whose methods
//! take the general handles, as crossbeam's do:
//!
//! ```
//! use welltempered_channel::{select, spsc, unbounded};
//! use std::time::Duration;
//!
//! let (tx, rx) = spsc::channel::<u32>();
//! let (_tx2, rx2) = unbounded::<&str>();
//! tx.send(7).unwrap();
//! select! {
//!     recv(rx) -> v => assert_eq!(v, Ok(7)),
//!     recv(rx2) -> _ => unreachable!(),
//!     default(Duration::from_secs(10)) => unreachable!(),
//! }
//! ```
//!
//! **Guarantees.** FIFO; both sides lock-free for `try_send`/`try_recv` (wait-free except for
//! the free list of segments, which the two sides share, and the allocator); the same memory
//! as the general channel.

use crate::chan;
use crate::error::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};
use crate::progress::{Progress, ProgressGuarantee};
use crate::{Builder, RecvGuard, Wait};
use std::time::{Duration, Instant};

/// The sending half of an SPSC channel: not `Clone`, not `Sync`.
#[derive(Debug)]
pub struct Sender<T>(chan::Sender<T>);

/// The receiving half of an SPSC channel: not `Clone`, not `Sync`.
#[derive(Debug)]
pub struct Receiver<T>(chan::Receiver<T>);

/// An unbounded SPSC channel.
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    with_wait(Wait::default(), None)
}

/// An SPSC channel holding at most `cap` elements (`0`: rendezvous).
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    with_wait(Wait::default(), Some(cap))
}

/// An SPSC channel with a chosen waiting strategy; `cap: None` for unbounded.
#[track_caller]
pub fn with_wait<T>(wait: Wait, cap: Option<usize>) -> (Sender<T>, Receiver<T>) {
    let b = Builder::new().wait(wait);
    let (tx, rx) = match cap {
        None => b.unbounded(),
        Some(c) => b.bounded(c),
    };
    (Sender(tx), Receiver(rx))
}

impl<T> crate::select::SelectSender<T> for Sender<T> {
    #[inline(always)]
    fn __welltempered_send_case(&self) -> crate::select::SendCase<'_, T> {
        crate::select::SendCase::new(&self.0)
    }
}

impl<T> crate::select::SelectReceiver<T> for Receiver<T> {
    #[inline(always)]
    fn __welltempered_recv_case(&self) -> crate::select::RecvCase<'_, T> {
        crate::select::RecvCase::new(&self.0)
    }
}

impl<T> Sender<T> {
    /// See [`chan::Sender::send`].
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.0.send(value)
    }
    /// See [`chan::Sender::try_send`].
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        self.0.try_send(value)
    }
    /// See [`chan::Sender::send_timeout`].
    pub fn send_timeout(&self, value: T, timeout: Duration) -> Result<(), SendTimeoutError<T>> {
        self.0.send_timeout(value, timeout)
    }
    /// See [`chan::Sender::send_deadline`].
    pub fn send_deadline(&self, value: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        self.0.send_deadline(value, deadline)
    }
    /// See [`chan::Sender::send_iter`].
    pub fn send_iter<I: IntoIterator<Item = T>>(&self, iter: I) -> Result<usize, SendError<T>> {
        self.0.send_iter(iter)
    }
    /// See [`chan::Sender::len`].
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// See [`chan::Sender::is_empty`].
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// See [`chan::Sender::is_full`].
    pub fn is_full(&self) -> bool {
        self.0.is_full()
    }
    /// See [`chan::Sender::capacity`].
    pub fn capacity(&self) -> Option<usize> {
        self.0.capacity()
    }
}

impl<T> Receiver<T> {
    /// See [`chan::Receiver::recv`].
    pub fn recv(&self) -> Result<T, RecvError> {
        self.0.recv()
    }
    /// See [`chan::Receiver::try_recv`].
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.0.try_recv()
    }
    /// See [`chan::Receiver::recv_timeout`].
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        self.0.recv_timeout(timeout)
    }
    /// See [`chan::Receiver::recv_deadline`].
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.0.recv_deadline(deadline)
    }
    /// See [`chan::Receiver::recv_many`].
    pub fn recv_many(&self, buf: &mut Vec<T>, max: usize) -> Result<usize, RecvError> {
        self.0.recv_many(buf, max)
    }
    /// See [`chan::Receiver::try_recv_many`].
    pub fn try_recv_many(&self, buf: &mut Vec<T>, max: usize) -> usize {
        self.0.try_recv_many(buf, max)
    }
    /// See [`chan::Receiver::recv_ref`].
    pub fn recv_ref(&mut self) -> Result<RecvGuard<'_, T>, RecvError> {
        self.0.recv_ref()
    }
    /// See [`chan::Receiver::try_recv_ref`].
    pub fn try_recv_ref(&mut self) -> Result<RecvGuard<'_, T>, TryRecvError> {
        self.0.try_recv_ref()
    }
    /// See [`chan::Receiver::iter`].
    pub fn iter(&self) -> chan::Iter<'_, T> {
        self.0.iter()
    }
    /// See [`chan::Receiver::try_iter`].
    pub fn try_iter(&self) -> chan::TryIter<'_, T> {
        self.0.try_iter()
    }
    /// See [`chan::Receiver::len`].
    pub fn len(&self) -> usize {
        self.0.len()
    }
    /// See [`chan::Receiver::is_empty`].
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// See [`chan::Receiver::is_full`].
    pub fn is_full(&self) -> bool {
        self.0.is_full()
    }
    /// See [`chan::Receiver::capacity`].
    pub fn capacity(&self) -> Option<usize> {
        self.0.capacity()
    }
    /// See [`chan::Receiver::allocated_segments`].
    pub fn allocated_segments(&self) -> usize {
        self.0.allocated_segments()
    }
}

impl<T> Receiver<T> {
    /// Receives asynchronously (see [`chan::Receiver::recv_async`]).
    ///
    /// ```
    /// let (tx, mut rx) = welltempered_channel::spsc::bounded::<u32>(4);
    /// std::thread::spawn(move || tx.send(7).unwrap());
    /// assert_eq!(futures_executor::block_on(rx.recv_async()), Ok(7));
    /// ```
    pub fn recv_async(&mut self) -> crate::RecvFut<'_, T> {
        self.0.recv_async()
    }
    /// [`Receiver::recv_async`], owning the receiver.
    pub fn into_recv_async(self) -> crate::RecvFut<'static, T> {
        self.0.into_recv_async()
    }
    /// The receiver as a [`futures_core::Stream`], borrowed mutably (feature `futures`).
    #[cfg(feature = "futures")]
    pub fn stream(&mut self) -> crate::RecvStream<'_, T> {
        self.0.stream()
    }
    /// The receiver as a [`futures_core::Stream`], owned (feature `futures`).
    #[cfg(feature = "futures")]
    pub fn into_stream(self) -> crate::RecvStream<'static, T> {
        self.0.into_stream()
    }
}

impl<T> Sender<T> {
    /// Sends asynchronously (see [`chan::Sender::send_async`]).
    ///
    /// ```
    /// let (mut tx, rx) = welltempered_channel::spsc::bounded::<u32>(1);
    /// futures_executor::block_on(tx.send_async(1)).unwrap();
    /// assert_eq!(rx.recv(), Ok(1));
    /// ```
    pub fn send_async(&mut self, value: T) -> crate::SendFut<'_, T> {
        self.0.send_async(value)
    }
    /// [`Sender::send_async`], owning the sender.
    pub fn into_send_async(self, value: T) -> crate::SendFut<'static, T> {
        self.0.into_send_async(value)
    }
    /// The sender as a [`futures_sink::Sink`], borrowed mutably (feature `futures`).
    #[cfg(feature = "futures")]
    pub fn sink(&mut self) -> crate::SendSink<'_, T> {
        self.0.sink()
    }
    /// The sender as a [`futures_sink::Sink`], owned (feature `futures`).
    #[cfg(feature = "futures")]
    pub fn into_sink(self) -> crate::SendSink<'static, T> {
        self.0.into_sink()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = chan::IntoIter<T>;
    fn into_iter(self) -> chan::IntoIter<T> {
        self.0.into_iter()
    }
}

impl<T> ProgressGuarantee for Sender<T> {
    /// Lock-free: one producer, no installation race; the free list is the only shared RMW.
    const PROGRESS: Progress = Progress::LockFree;
}

impl<T> ProgressGuarantee for Receiver<T> {
    /// Lock-free: one consumer; recycling a segment is a push on the shared free list.
    const PROGRESS: Progress = Progress::LockFree;
}
