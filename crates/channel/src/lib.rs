//! A channel whose implementation follows its topology: WTC's specialisation by proved
//! topology, done in Rust with the handle counts the type system already keeps exact.
//!
//! ```
//! let (tx, rx) = welltempered_channel::unbounded();
//! let producer = std::thread::spawn(move || {
//!     for i in 0..1000u64 {
//!         tx.send(i).unwrap();
//!     }
//! });
//! let sum: u64 = rx.iter().sum(); // ends when the sender is dropped
//! producer.join().unwrap();
//! assert_eq!(sum, 999 * 1000 / 2);
//! ```
//!
//! The API is the one users know from crossbeam-channel and `std::sync::mpsc`: [`unbounded`],
//! [`bounded`] (`bounded(0)` is a rendezvous channel), [`Sender`] and [`Receiver`] with
//! `send`/`try_send`/`send_timeout`, `recv`/`try_recv`/`recv_timeout`/`recv_deadline`,
//! `iter`/`try_iter`, and the error types of [`error`]. Beyond it:
//!
//! * **Each side follows its handles.** While a side has one handle it claims slots with a
//!   private index (no read-modify-write); after a `clone` it claims with compare-and-swap on a
//!   shared index, and returns to the private index when the clones are dropped. This is exact,
//!   not a guess, because the handles are `Send` but not `Sync`: the number of live senders is
//!   the number of threads that can send. Share a handle by **cloning** it, not by reference.
//! * [`spsc`]: handles that are not `Clone`, so a second producer is a compile error.
//! * [`select!`], [`Select`] and the timer channels [`after`], [`at`], [`tick`], [`never`](fn@never).
//! * Batches ([`Sender::send_iter`], [`Receiver::recv_many`]) and a borrowing receive
//!   ([`Receiver::recv_ref`]).
//! * Waiting chosen per channel with [`Builder`] ([`Wait::Spin`], [`Wait::Park`],
//!   [`Wait::SpinThenPark`]), over an eventcount: a send wakes a receiver only when one sleeps.
//! * [`progress`]: each handle's progress guarantee as an associated constant.
//! * Remarks: with `WELLTEMPERED_REMARKS=1`, each channel prints on stderr where it was built,
//!   its implementation, and every change with the site that caused it:
//!   `remark: channel at src/main.rs:12:14: spsc (senders: 1, receivers: 1)`. Its last line,
//!   when it is dropped, gives the most handles of each side alive at once (`dropped; at most
//!   1 senders and 1 receivers at once (spsc by its handles)`): for a channel made with shared
//!   handles, which runs the shared disciplines from the start, it says whether a second
//!   handle was ever made, as does a remark at the clone that makes one.
//! * Memory goes back after a burst: drained segments beyond a small free list are freed
//!   ([`Receiver::allocated_segments`] shows it).
//!
//! # Porting from crossbeam-channel or `std::sync::mpsc`
//!
//! Most code compiles after changing the path: the constructors ([`unbounded`], [`bounded`],
//! and std's names [`channel`] and [`sync_channel`]), the methods and the error types are the
//! same. The one difference is on purpose: **handles are `Send` but not `Sync`**, because the
//! channel counts its handles to know how many threads use each side. Code that shares one
//! handle *by reference* then fails to compile, with a note naming
//! `NotSyncCloneOrCallIntoShared`. Two fixes:
//!
//! * **Clone the handle for each thread** (fastest: a side with one handle runs without
//!   read-modify-write, and returns to that after its clones are dropped).
//! * **Make it shareable** with [`Sender::into_shared`] / [`Receiver::into_shared`]: a
//!   [`SharedSender`] or [`SharedReceiver`] is `Sync` and derefs to the plain handle, so
//!   `&tx` in scoped threads, `Arc<SharedSender<T>>` and `static`s work unchanged; its side
//!   then always uses the shared discipline. [`shared::unbounded`] and [`shared::bounded`]
//!   make a channel with shareable handles on both sides from the start (crossbeam's
//!   handles, in effect; `cargo welltempered check --fix` writes them where it must).
//!
//! ```
//! // crossbeam style: one sender shared by reference between scoped threads.
//! let (tx, rx) = welltempered_channel::channel::<usize>();
//! let tx = tx.into_shared();
//! std::thread::scope(|s| {
//!     for i in 0..3 {
//!         let tx = &tx;
//!         s.spawn(move || tx.send(i).unwrap());
//!     }
//! });
//! drop(tx);
//! assert_eq!(rx.iter().sum::<usize>(), 3);
//! ```
//!
//! Other differences: [`Receiver::recv_ref`] (a borrowing receive) needs a plain handle; the
//! last receiver's drop drops the elements left in the channel, as crossbeam's current version
//! does; in [`select!`] a `send` case's message is evaluated once that send is chosen, as
//! crossbeam's is, except in a selection with a send on a rendezvous channel, which evaluates
//! every send's message before it starts (see the macro); a send chosen by the dynamic [`Select`] was ready
//! when chosen, and [`SelectedOperation::send`] waits for room if other senders took it since.
//!
//! # Select and timers
//!
//! [`select!`] (and [`select_biased!`]) wait on several operations at once, with crossbeam's
//! syntax; [`Select`] builds the same selection at run time. [`after`], [`at`], [`tick`] and
//! [`never`](fn@never) are receivers of `Instant`s for timeouts and periodic work, in a select or alone.
//! Selecting costs nothing to channels nobody selects on: a selector that must sleep registers
//! with the same eventcounts blocked receives use, so a send still pays only a fence and a load
//! when nobody waits. On a rendezvous channel a sleeping selection is committed by the thread
//! that meets it (a send, a receive, their `try_` forms, another selection), so a selecting
//! sender and a selecting receiver meet as crossbeam's do.
//!
//! ```
//! use std::time::Duration;
//! use welltempered_channel::{select, tick, unbounded};
//! let (tx, rx) = unbounded::<u32>();
//! let ticker = tick(Duration::from_millis(1));
//! std::thread::spawn(move || (0..3).for_each(|i| tx.send(i).unwrap()));
//! let (mut got, mut ticks) = (Vec::new(), 0);
//! loop {
//!     select! {
//!         recv(rx) -> v => match v {
//!             Ok(v) => got.push(v),
//!             Err(_) => break, // the sender is gone
//!         },
//!         recv(ticker) -> _ => ticks += 1,
//!     }
//! }
//! assert_eq!(got, [0, 1, 2]);
//! # let _ = ticks;
//! ```

mod chan;
pub mod error;
mod eventcount;
mod fence;
pub mod progress;
mod queue;
mod remark;
#[doc(hidden)]
pub mod select;
pub mod shared;
pub mod spsc;
mod sync;
#[cfg(not(loom))]
mod trim;

pub use chan::{
    Builder, IntoIter, Iter, Receiver, RecvFut, RecvGuard, SendFut, Sender, TryIter, Wait, after,
    at, never, tick,
};
#[cfg(feature = "futures")]
pub use chan::{RecvStream, SendSink};
pub use error::{
    ReadyTimeoutError, RecvError, RecvTimeoutError, SelectTimeoutError, SendError,
    SendTimeoutError, TryReadyError, TryRecvError, TrySelectError, TrySendError,
};
pub use select::{Select, SelectedOperation};
pub use shared::{SharedIntoIter, SharedReceiver, SharedSender};

/// An unbounded channel (default waiting: spin, then park).
#[track_caller]
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    Builder::new().unbounded()
}

/// A channel holding at most `cap` elements; `bounded(0)` is a rendezvous channel, whose
/// `send` returns once a receiver has taken the element.
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    Builder::new().bounded(cap)
}

/// An unbounded channel under `std::sync::mpsc`'s name: the same as [`unbounded`].
///
/// ```
/// let (tx, rx) = welltempered_channel::channel();
/// tx.send("hello").unwrap();
/// assert_eq!(rx.recv(), Ok("hello"));
/// ```
#[track_caller]
pub fn channel<T>() -> (Sender<T>, Receiver<T>) {
    Builder::new().unbounded()
}

/// A bounded channel under `std::sync::mpsc`'s name: the same as [`bounded`]
/// (`sync_channel(0)` is a rendezvous channel, as in std).
#[track_caller]
pub fn sync_channel<T>(bound: usize) -> (Sender<T>, Receiver<T>) {
    Builder::new().bounded(bound)
}
