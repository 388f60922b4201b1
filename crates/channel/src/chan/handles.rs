//! The handles: [`Sender`] and [`Receiver`], the borrowing receive's [`RecvGuard`], and the
//! receiving iterators. Each operation goes to the channel's waiting machinery (`mod.rs`) and
//! its choice of discipline (`topology.rs`); nothing here touches the queue's single-thread
//! operations directly.
//!
//! **Guarantees.** Handles are `Send` and not `Sync` (see [`Sender`]); dropping the last
//! sender disconnects the receivers, dropping the last receiver disconnects the senders and
//! drops what is left in the channel.

use super::topology::SHARED;
use super::{Chan, Wait};
use crate::error::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};
use crate::progress::{Progress, ProgressGuarantee};
use crate::queue::Claim;
use crate::sync::{Arc, Ordering};
use core::fmt;
use core::marker::PhantomData;
use core::panic::Location;
use std::time::{Duration, Instant};

/// Makes a handle `Send` but not `Sync` (see [`Sender`]). Its name is what the compiler
/// shows when a handle is shared by reference between threads ("required because it appears
/// within the type `NotSyncCloneOrCallIntoShared`"): give each thread a clone of the handle,
/// or turn it into a `Sync` one with `into_shared()`.
pub(crate) struct NotSyncCloneOrCallIntoShared(PhantomData<*const ()>);

// SAFETY: a marker with no data; it exists only to withhold `Sync` (a raw pointer is neither
// `Send` nor `Sync`, and only `Send` is given back).
unsafe impl Send for NotSyncCloneOrCallIntoShared {}

/// The sending half of a channel.
///
/// `Send` but deliberately **not `Sync`**: the channel counts its senders to know whether one
/// thread or several produce, and a `&Sender` shared between threads would be a second producer
/// the count cannot see. To send from another thread, give it its own handle: **clone it**
/// (crossbeam's and std's senders are `Sync`; this one is not, by design). Code that must
/// share one handle by reference (`&tx` in scoped threads, an `Arc` or a `static`) can turn
/// it into a `Sync` [`SharedSender`](crate::SharedSender) with [`Sender::into_shared`], at the
/// price of the shared discipline.
///
/// ```compile_fail,E0277
/// let (tx, _rx) = welltempered_channel::unbounded::<u32>();
/// let tx = &tx;
/// std::thread::scope(|s| {
///     s.spawn(move || tx.send(1).unwrap()); // error: `Sender` is not `Sync`
/// });
/// ```
///
/// ```
/// let (tx, rx) = welltempered_channel::unbounded::<u32>();
/// let tx2 = tx.clone(); // the fix: one handle per thread
/// std::thread::spawn(move || tx2.send(1).unwrap()).join().unwrap();
/// assert_eq!(rx.recv(), Ok(1));
/// ```
pub struct Sender<T> {
    pub(super) chan: Arc<Chan<T>>,
    /// Where this handle was made (the channel's construction or a `clone`), for remarks.
    pub(super) made_at: &'static Location<'static>,
    /// `Send + !Sync`: see the type's docs.
    pub(super) _not_sync: PhantomData<NotSyncCloneOrCallIntoShared>,
}

/// The receiving half of a channel.
///
/// `Send` but deliberately **not `Sync`**, for the reason given on [`Sender`]: to receive on
/// another thread, **clone it**, or share one by reference after
/// [`Receiver::into_shared`].
///
/// ```compile_fail,E0277
/// let (_tx, rx) = welltempered_channel::unbounded::<u32>();
/// let rx = &rx;
/// std::thread::scope(|s| {
///     s.spawn(move || rx.try_recv()); // error: `Receiver` is not `Sync`
/// });
/// ```
pub struct Receiver<T> {
    pub(super) chan: Arc<Chan<T>>,
    /// Where this handle was made, for remarks.
    pub(super) made_at: &'static Location<'static>,
    /// `Send + !Sync`: see [`Sender`].
    pub(super) _not_sync: PhantomData<NotSyncCloneOrCallIntoShared>,
}

impl<T> Sender<T> {
    /// Sends `value`, waiting for room if the channel is bounded and full (and, for a
    /// rendezvous channel, until a receiver has taken it). Fails, handing the value back, when
    /// every receiver is gone.
    pub fn send(&self, value: T) -> Result<(), SendError<T>> {
        self.chan
            .send_until(value, None)
            .map_err(|e| SendError(e.into_inner()))
    }

    /// Sends `value` if there is room now. A rendezvous channel has room only while a receiver
    /// is blocked in a receive (or a selection sleeps on one: it is committed to this send).
    pub fn try_send(&self, value: T) -> Result<(), TrySendError<T>> {
        let chan = &*self.chan;
        let mut value = value;
        if chan.rendezvous {
            if chan.receivers_gone() {
                return Err(TrySendError::Disconnected(value));
            }
            match chan.selecting.give(value) {
                Ok(()) => return Ok(()),
                Err(v) => value = v,
            }
            if chan.blocked_receivers.load(Ordering::SeqCst) == 0 {
                return Err(TrySendError::Full(value));
            }
        }
        let index = chan.try_push(value)?;
        chan.wake_receivers();
        if chan.rendezvous {
            // A receiver is blocked: it takes the element or leaves, and `Ok` means taken.
            return chan.await_taken(index, None, true).map_err(|e| match e {
                SendTimeoutError::Timeout(v) => TrySendError::Full(v),
                SendTimeoutError::Disconnected(v) => TrySendError::Disconnected(v),
            });
        }
        Ok(())
    }

    /// Sends, waiting at most `timeout` for room. For a rendezvous channel `Ok` means a
    /// receiver took the element; at the deadline the sender takes it back and returns
    /// [`SendTimeoutError::Timeout`], unless a receiver is blocked in a receive then (that
    /// one is waited for, as a `try_send` waits for it).
    pub fn send_timeout(&self, value: T, timeout: Duration) -> Result<(), SendTimeoutError<T>> {
        match Instant::now().checked_add(timeout) {
            Some(d) => self.send_deadline(value, d),
            None => self
                .send(value)
                .map_err(|e| SendTimeoutError::Disconnected(e.0)),
        }
    }

    /// Sends, waiting until `deadline` at most for room (see [`Sender::send_timeout`]).
    pub fn send_deadline(&self, value: T, deadline: Instant) -> Result<(), SendTimeoutError<T>> {
        self.chan.send_until(value, Some(deadline))
    }

    /// Sends every element of `iter` in order, as [`Sender::send`] would one by one. Returns
    /// how many were sent; on disconnection, the element that could not be sent (the rest
    /// stay in the iterator).
    ///
    /// The iterator is the caller's code, and it may block, send on this channel, clone this
    /// sender, or panic. So each element is published, and a sleeping receiver woken, before
    /// the iterator is asked for the next one: nothing of the channel is half done while it
    /// runs, a receiver never waits for an iterator that waits for it, and an endless iterator
    /// stops at the first element after the receivers are gone. With nobody asleep the wake-up
    /// costs one load, so the per-element cost is that of `send`.
    pub fn send_iter<I: IntoIterator<Item = T>>(&self, iter: I) -> Result<usize, SendError<T>> {
        let chan = &*self.chan;
        let mut sent = 0;
        // Fixed at construction: read once rather than after every call of the iterator.
        let (rendezvous, notify) = (chan.rendezvous, chan.wait != Wait::Spin);
        for value in iter {
            // A complete send per element; the handle counts are read afresh each time, since
            // the iterator may have cloned or dropped handles.
            let pushed = if rendezvous {
                Err(value)
            } else if chan.receivers_gone() {
                return Err(SendError(value));
            } else {
                chan.push(value)
            };
            match pushed {
                Ok(_) => {
                    if notify {
                        chan.recv_ec.notify();
                    }
                }
                Err(v) => chan
                    .send_wait(v, None)
                    .map_err(|e| SendError(e.into_inner()))?,
            }
            sent += 1;
        }
        Ok(sent)
    }

    /// [`Sender::send_iter`] under the name batching users look for.
    pub fn send_batch<I: IntoIterator<Item = T>>(&self, batch: I) -> Result<usize, SendError<T>> {
        self.send_iter(batch)
    }

    /// Elements in the channel now, at most its capacity (always 0 for a rendezvous
    /// channel, as crossbeam's zero-capacity channel).
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// Whether the channel is empty now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether a bounded channel is full now (never for an unbounded one; always for a
    /// rendezvous channel, whose capacity is 0).
    pub fn is_full(&self) -> bool {
        self.chan.rendezvous || self.chan.cap.is_some_and(|c| self.len() >= c)
    }

    /// The capacity: `None` if unbounded, `Some(0)` for a rendezvous channel.
    pub fn capacity(&self) -> Option<usize> {
        if self.chan.rendezvous {
            Some(0)
        } else {
            self.chan.cap
        }
    }

    /// Whether both handles belong to the same channel.
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan)
    }

    /// Live senders of this channel.
    pub fn sender_count(&self) -> usize {
        self.chan.sender_handles()
    }

    /// Live receivers of this channel (as flume's `Sender::receiver_count`).
    ///
    /// ```
    /// let (tx, rx) = welltempered_channel::unbounded::<u8>();
    /// let rx2 = rx.clone();
    /// assert_eq!(tx.receiver_count(), 2);
    /// drop((rx, rx2));
    /// assert_eq!(tx.receiver_count(), 0);
    /// ```
    pub fn receiver_count(&self) -> usize {
        self.chan.receiver_handles()
    }

    /// Counts this handle as a shared one (see `shared.rs`); the caller wraps it in a
    /// `SharedSender`.
    #[track_caller]
    pub(crate) fn add_shared_weight(&self) {
        self.chan
            .add_senders(SHARED - 1, "into_shared", Location::caller());
    }

    /// Takes this handle's shared weight away, all but the one its own drop removes.
    pub(crate) fn remove_shared_weight(&self) {
        self.chan.remove_shared_sender_weight();
    }

    /// Another handle counted as shared, from a shared one.
    #[track_caller]
    pub(crate) fn clone_shared(&self) -> Self {
        self.chan.add_senders(SHARED, "clone", Location::caller());
        Self {
            chan: self.chan.clone(),
            made_at: Location::caller(),
            _not_sync: PhantomData,
        }
    }
}

impl<T> Clone for Sender<T> {
    /// Another sender on the same channel. Going from one sender to two switches the
    /// producers to the shared discipline (remarked with this call's site).
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_senders(1, "clone", Location::caller());
        Self {
            chan: self.chan.clone(),
            made_at: Location::caller(),
            _not_sync: PhantomData,
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.chan.sender_dropped(self.made_at);
    }
}

impl<T> Receiver<T> {
    /// Receives an element if one is there now.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        let chan = &*self.chan;
        if let Some(v) = chan.try_take() {
            return Ok(v);
        }
        if chan.rendezvous
            && let Some(v) = chan.take_from_selection()
        {
            return Ok(v);
        }
        // Acquire: every departed sender's pushes happen before we see the count at zero, so
        // a second look finds whatever they sent.
        if chan.senders_gone() {
            return chan.try_take().ok_or(TryRecvError::Disconnected);
        }
        Err(TryRecvError::Empty)
    }

    #[inline]
    fn recv_until(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        // The fast path: an element is there (or the channel is over), no waiting machinery.
        match self.try_recv() {
            Ok(v) => Ok(v),
            Err(TryRecvError::Disconnected) => Err(RecvTimeoutError::Disconnected),
            Err(TryRecvError::Empty) => self.recv_wait(deadline),
        }
    }

    /// The waiting part of [`Receiver::recv_until`], out of line.
    #[inline(never)]
    fn recv_wait(&self, deadline: Option<Instant>) -> Result<T, RecvTimeoutError> {
        let chan = &*self.chan;
        let attempt = || match self.try_recv() {
            Ok(v) => Some(Ok(v)),
            Err(TryRecvError::Disconnected) => Some(Err(RecvTimeoutError::Disconnected)),
            Err(TryRecvError::Empty) => None,
        };
        chan.blocked_receive(deadline, attempt)
            .unwrap_or(Err(RecvTimeoutError::Timeout))
    }

    /// Receives an element, waiting for one. Once every sender is gone, drains what is left,
    /// then fails.
    pub fn recv(&self) -> Result<T, RecvError> {
        self.recv_until(None).map_err(|_| RecvError)
    }

    /// Receives, waiting at most `timeout`.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<T, RecvTimeoutError> {
        match Instant::now().checked_add(timeout) {
            Some(d) => self.recv_deadline(d),
            None => self.recv().map_err(RecvTimeoutError::from),
        }
    }

    /// Receives, waiting until `deadline` at most.
    pub fn recv_deadline(&self, deadline: Instant) -> Result<T, RecvTimeoutError> {
        self.recv_until(Some(deadline))
    }

    /// Waits for one element, then takes up to `max` in all without waiting again, appending
    /// them to `buf`. With one receiver the head index is published (and a waiting sender
    /// woken) once per run of elements that fit in `buf`'s spare capacity. Returns how many
    /// were taken (0 only when `max == 0`).
    ///
    /// Growing `buf` calls the allocator, which is user code: it runs only between complete
    /// receives, never while a run is half taken.
    pub fn recv_many(&self, buf: &mut Vec<T>, max: usize) -> Result<usize, RecvError> {
        if max == 0 {
            return Ok(0);
        }
        buf.push(self.recv()?);
        Ok(1 + self.take_available(buf, max - 1))
    }

    /// Takes up to `max` elements that are there now into `buf`: runs into spare capacity
    /// with one receiver, single receives otherwise (and whenever `buf` must grow).
    fn take_available(&self, buf: &mut Vec<T>, max: usize) -> usize {
        let chan = &*self.chan;
        let mut n = 0;
        let mut ran = false;
        while n < max {
            match chan.take_run(max - n, buf) {
                Some(0) => break,
                Some(k) => {
                    n += k;
                    ran = true;
                    continue;
                }
                None => {}
            }
            // One complete receive, then `push` (which may grow `buf`).
            match chan.try_take() {
                Some(v) => buf.push(v),
                None => break,
            }
            n += 1;
        }
        if ran && chan.cap.is_some() && chan.wait != Wait::Spin {
            chan.send_ec.notify();
        }
        n
    }

    /// Takes up to `max` elements that are there now, without waiting.
    pub fn try_recv_many(&self, buf: &mut Vec<T>, max: usize) -> usize {
        let n = self.take_available(buf, max);
        if n < max && self.chan.senders_gone() {
            // Acquire: departed senders' last pushes are visible now; take them too.
            return n + self.take_available(buf, max - n);
        }
        n
    }

    /// Borrows the next element in place, waiting for one. The element is dropped and its
    /// slot released when the guard goes; `&mut self` keeps the receiver from being cloned or
    /// used meanwhile, so the borrow checker proves the element is not aliased.
    ///
    /// ```
    /// let (tx, mut rx) = welltempered_channel::unbounded::<String>();
    /// tx.send("hello".to_string()).unwrap();
    /// let guard = rx.recv_ref().unwrap();
    /// assert_eq!(guard.len(), 5);
    /// ```
    pub fn recv_ref(&mut self) -> Result<RecvGuard<'_, T>, RecvError> {
        let chan = &*self.chan;
        let claimed = chan.blocked_receive(None, || {
            if let Some(c) = chan.claim() {
                return Some(Ok(Held::claimed(c)));
            }
            if chan.rendezvous
                && let Some(v) = chan.take_from_selection()
            {
                return Some(Ok(Held::Owned(v)));
            }
            if chan.senders_gone() {
                return Some(chan.claim().map(Held::claimed).ok_or(RecvError));
            }
            None
        });
        let held = claimed.unwrap_or(Err(RecvError))?;
        Ok(RecvGuard::new(self, held))
    }

    /// Borrows the next element in place if there is one now (see [`Receiver::recv_ref`]).
    pub fn try_recv_ref(&mut self) -> Result<RecvGuard<'_, T>, TryRecvError> {
        let chan = &*self.chan;
        let held = match chan.claim() {
            Some(c) => Held::claimed(c),
            None if chan.rendezvous
                && let Some(v) = chan.take_from_selection() =>
            {
                Held::Owned(v)
            }
            None if chan.senders_gone() => {
                Held::claimed(chan.claim().ok_or(TryRecvError::Disconnected)?)
            }
            None => return Err(TryRecvError::Empty),
        };
        Ok(RecvGuard::new(self, held))
    }

    /// A blocking iterator: yields until the channel is empty and disconnected.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }

    /// A non-blocking iterator: yields what is there now.
    pub fn try_iter(&self) -> TryIter<'_, T> {
        TryIter { rx: self }
    }

    /// Elements in the channel now, at most its capacity (always 0 for a rendezvous
    /// channel, as crossbeam's zero-capacity channel).
    pub fn len(&self) -> usize {
        self.chan.len()
    }

    /// Whether a bounded channel is full now (never for an unbounded one; always for a
    /// rendezvous channel, whose capacity is 0).
    pub fn is_full(&self) -> bool {
        self.chan.rendezvous || self.chan.cap.is_some_and(|c| self.len() >= c)
    }

    /// Whether the channel is empty now.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The capacity: `None` if unbounded, `Some(0)` for a rendezvous channel.
    pub fn capacity(&self) -> Option<usize> {
        if self.chan.rendezvous {
            Some(0)
        } else {
            self.chan.cap
        }
    }

    /// Whether both handles belong to the same channel. Every receiver of [`never`](crate::never) is the
    /// same channel as every other (as crossbeam-channel's are).
    ///
    /// ```
    /// let (a, b) = (welltempered_channel::never::<u8>(), welltempered_channel::never::<u8>());
    /// assert!(a.same_channel(&b));
    /// assert!(!a.same_channel(&welltempered_channel::unbounded::<u8>().1));
    /// ```
    pub fn same_channel(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.chan, &other.chan) || (self.chan.is_never() && other.chan.is_never())
    }

    /// Live receivers of this channel.
    pub fn receiver_count(&self) -> usize {
        self.chan.receiver_handles()
    }

    /// Live senders of this channel (as flume's `Receiver::sender_count`).
    ///
    /// ```
    /// let (tx, rx) = welltempered_channel::unbounded::<u8>();
    /// assert_eq!(rx.sender_count(), 1);
    /// drop(tx);
    /// assert_eq!(rx.sender_count(), 0);
    /// ```
    pub fn sender_count(&self) -> usize {
        self.chan.sender_handles()
    }

    /// Counts this handle as a shared one (see `shared.rs`); the caller wraps it in a
    /// `SharedReceiver`.
    #[track_caller]
    pub(crate) fn add_shared_weight(&self) {
        self.chan
            .add_receivers(SHARED - 1, "into_shared", Location::caller());
    }

    /// Takes this handle's shared weight away, all but the one its own drop removes.
    pub(crate) fn remove_shared_weight(&self) {
        self.chan.remove_shared_receiver_weight();
    }

    /// Another handle counted as shared, from a shared one (the consumers are shared
    /// already).
    #[track_caller]
    pub(crate) fn clone_shared(&self) -> Self {
        self.chan.add_receivers(SHARED, "clone", Location::caller());
        Self {
            chan: self.chan.clone(),
            made_at: Location::caller(),
            _not_sync: PhantomData,
        }
    }

    /// Segments the channel holds right now (each `SEG - 1` slots; 256 offsets in normal
    /// builds). A diagnostic for memory give-back: after a burst is drained this returns to a
    /// few segments, however long the burst was.
    pub fn allocated_segments(&self) -> usize {
        self.chan.queue.live_segments()
    }
}

impl<T> Clone for Receiver<T> {
    /// Another receiver on the same channel. Going from one receiver to two switches the
    /// consumers to the shared discipline (remarked with this call's site).
    #[track_caller]
    fn clone(&self) -> Self {
        self.chan.add_receivers(1, "clone", Location::caller());
        Self {
            chan: self.chan.clone(),
            made_at: Location::caller(),
            _not_sync: PhantomData,
        }
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        self.chan.receiver_dropped(self.made_at);
    }
}

/// An element lent in place by [`Receiver::recv_ref`]; dropped with the guard.
pub struct RecvGuard<'a, T> {
    rx: &'a mut Receiver<T>,
    /// `None` only once taken or dropped.
    held: Option<Held<T>>,
}

/// What a guard lends.
enum Held<T> {
    /// An element in its queue slot, claimed (with `claim_shared` if the flag says so).
    Claim(Claim<T>, bool),
    /// A rendezvous element handed over by a sleeping selection, which has no queue slot.
    Owned(T),
}

impl<T> Held<T> {
    /// A claim as `Chan::claim` returns it.
    fn claimed((claim, shared): (Claim<T>, bool)) -> Self {
        Held::Claim(claim, shared)
    }
}

impl<'a, T> RecvGuard<'a, T> {
    fn new(rx: &'a mut Receiver<T>, held: Held<T>) -> Self {
        Self {
            rx,
            held: Some(held),
        }
    }

    /// Moves the element out instead of dropping it in place.
    pub fn take(mut self) -> T {
        match self.held.take() {
            Some(Held::Claim(claim, shared)) => {
                // SAFETY: the claim's value is written and ours; moved out once, and `held`
                // is gone so `drop` will not drop it again.
                let value = unsafe { claim.value_ptr().read() };
                self.rx.chan.finish(claim, shared);
                value
            }
            Some(Held::Owned(value)) => value,
            None => unreachable!("a guard holds its element until dropped"),
        }
    }
}

impl<T> core::ops::Deref for RecvGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        match &self.held {
            // SAFETY: the value is written (the claim saw its stamp) and stays in place,
            // unaliased, until the guard releases it.
            Some(Held::Claim(claim, _)) => unsafe { &*claim.value_ptr() },
            Some(Held::Owned(value)) => value,
            None => unreachable!("a guard holds its element until dropped"),
        }
    }
}

impl<T> core::ops::DerefMut for RecvGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        match &mut self.held {
            // SAFETY: as in `deref`; `&mut self` makes the borrow unique.
            Some(Held::Claim(claim, _)) => unsafe { &mut *claim.value_ptr() },
            Some(Held::Owned(value)) => value,
            None => unreachable!("a guard holds its element until dropped"),
        }
    }
}

impl<T> Drop for RecvGuard<'_, T> {
    fn drop(&mut self) {
        if let Some(Held::Claim(claim, shared)) = self.held.take() {
            // The value is moved out and the claim finished before its drop runs user code,
            // which may panic (the next receive must not see the value again).
            // SAFETY: the value is written and ours; moved out exactly once, here.
            let value = unsafe { claim.value_ptr().read() };
            self.rx.chan.finish(claim, shared);
            drop(value);
        }
    }
}

impl<T: fmt::Debug> fmt::Debug for RecvGuard<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

/// A blocking iterator over a [`Receiver`]'s elements.
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

/// A non-blocking iterator over the elements a [`Receiver`] has now.
pub struct TryIter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for TryIter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.try_recv().ok()
    }
}

/// A blocking iterator that owns its [`Receiver`].
pub struct IntoIter<T> {
    rx: Receiver<T>,
}

// `Iter` and `IntoIter` end only when every sender is gone and the channel is empty, which
// lasts: they are fused. `TryIter` ends whenever the channel is empty now, and may yield again
// later, so it is not.
impl<T> core::iter::FusedIterator for Iter<'_, T> {}
impl<T> core::iter::FusedIterator for IntoIter<T> {}

impl<T> fmt::Debug for Iter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Iter").field("rx", self.rx).finish()
    }
}

impl<T> fmt::Debug for TryIter<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TryIter").field("rx", self.rx).finish()
    }
}

impl<T> fmt::Debug for IntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("IntoIter").field("rx", &self.rx).finish()
    }
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<T> IntoIterator for Receiver<T> {
    type Item = T;
    type IntoIter = IntoIter<T>;
    fn into_iter(self) -> IntoIter<T> {
        IntoIter { rx: self }
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T> fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Sender { .. }")
    }
}

impl<T> fmt::Debug for Receiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Receiver { .. }")
    }
}

impl<T> ProgressGuarantee for Sender<T> {
    /// Blocking: a producer stopped while installing a segment holds up the other producers.
    const PROGRESS: Progress = Progress::Blocking;
}

impl<T> ProgressGuarantee for Receiver<T> {
    /// Blocking: a consumer stopped while moving the head holds up the other consumers.
    const PROGRESS: Progress = Progress::Blocking;
}
