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
//! * Batches ([`Sender::send_iter`], [`Receiver::recv_many`]) and a borrowing receive
//!   ([`Receiver::recv_ref`]).
//! * Waiting chosen per channel with [`Builder`] ([`Wait::Spin`], [`Wait::Park`],
//!   [`Wait::SpinThenPark`]), over an eventcount: a send wakes a receiver only when one sleeps.
//! * [`progress`]: each handle's progress guarantee as an associated constant.
//! * Remarks: with `WELLTEMPERED_REMARKS=1`, each channel prints on stderr where it was built,
//!   its implementation, and every change with the site that caused it:
//!   `remark: channel at src/main.rs:12:14: spsc (senders: 1, receivers: 1)`.
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
//! Other differences: `select!` and the timer channels (`after`, `tick`, `never`) of
//! crossbeam are not provided; [`Receiver::recv_ref`] (a borrowing receive) needs a plain
//! handle; the last receiver's drop drops the elements left in the channel, as crossbeam's
//! current version does.

mod chan;
pub mod error;
mod eventcount;
mod fence;
pub mod progress;
mod queue;
mod remark;
pub mod shared;
pub mod spsc;
mod sync;
mod trim;

pub use chan::{Builder, IntoIter, Iter, Receiver, RecvGuard, Sender, TryIter, Wait};
pub use error::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};
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
