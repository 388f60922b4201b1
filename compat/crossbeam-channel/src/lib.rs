//! crossbeam-channel's API on welltempered's channel: a drop-in replacement that a program
//! selects with `[patch.crates-io]`, without changing a line of its source.
//!
//! ```toml
//! # The program's Cargo.toml (or its workspace root's):
//! [patch.crates-io]
//! crossbeam-channel = { path = "/path/to/welltempered/compat/crossbeam-channel" }
//! ```
//!
//! Cargo then builds every crate of the program that depends on crossbeam-channel 0.5 (the
//! program's own, and its dependencies') against this crate, which has crossbeam-channel's name
//! and the version of its current 0.5 release, and forwards to `welltempered-channel`.
//!
//! **What it maps to.** crossbeam's handles are `Sync`, and programs written for them share a
//! handle by reference between threads (`&tx` in a scope, an `Arc<Sender<T>>`, a `static`). A
//! plain welltempered handle is `Send` but not `Sync`, because the channel counts its handles to
//! know how many threads use a side; a program that shares a handle by reference would not
//! compile against it. So [`Sender`] and [`Receiver`] here are the channel's shareable handles,
//! [`welltempered_channel::SharedSender`] and [`welltempered_channel::SharedReceiver`], and
//! every channel made through this crate runs the channel's shared disciplines on both sides
//! (compare-and-swap claims), as crossbeam's own channels do. A channel whose sides each keep
//! one handle runs the single-producer/single-consumer ring only when it is made with
//! `welltempered_channel` directly (or `cargo welltempered check --fix`, which proves where that
//! is safe). With `WELLTEMPERED_REMARKS=1`, each channel made here says so, naming the
//! program's call site (here `unbounded()` at `src/main.rs:2:20`):
//!
//! ```text
//! remark: channel at src/main.rs:2:20: spsc (senders: 1, receivers: 1)
//! remark: channel at src/main.rs:2:20: mpsc (senders: 1, receivers: 1) after into_shared at src/main.rs:2:20
//! remark: channel at src/main.rs:2:20: mpmc (senders: 1, receivers: 1) after into_shared at src/main.rs:2:20
//! remark: channel at src/main.rs:2:20: dropped; at most 1 senders and 1 receivers at once (spsc by its handles)
//! ```
//!
//! The last line, when the channel is dropped, says how many handles each side really had at
//! once (here one each: a channel whose shareable handles were never cloned), and a clone that
//! makes a second handle on a side is remarked with its site.
//!
//! **Differences from crossbeam-channel 0.5.17** (each one is the channel's, documented there):
//! - In [`select!`], a `send` case's message is evaluated once that send is chosen, as in
//!   crossbeam, but in a selection with a send on a rendezvous (`bounded(0)`) channel every
//!   send's message is evaluated before the selection starts.
//! - A `send` chosen by the dynamic [`Select`] was ready when chosen; if other senders took the
//!   room since, [`SelectedOperation::send`] waits for room. On a rendezvous channel it is
//!   committed with its receiver as in crossbeam, except when chosen for a thread blocked in
//!   `recv`: if that receiver's `recv_timeout` ran out meanwhile, the send waits for the next.
//! - [`never`](fn@never) is not a `const fn`.
//! - The `internal` module that crossbeam's macros expand to is not provided; the macros here
//!   are the channel's own, with crossbeam's syntax.
//!
//! ```
//! use crossbeam_channel::{select, unbounded};
//! use std::time::Duration;
//!
//! let (tx, rx) = unbounded::<u32>();
//! std::thread::scope(|s| {
//!     for i in 0..3 {
//!         let tx = &tx; // shared by reference, as crossbeam's handles allow
//!         s.spawn(move || tx.send(i).unwrap());
//!     }
//! });
//! let mut got = Vec::new();
//! while got.len() < 3 {
//!     select! {
//!         recv(rx) -> v => got.push(v.unwrap()),
//!         default(Duration::from_secs(10)) => panic!("timed out"),
//!     }
//! }
//! got.sort();
//! assert_eq!(got, [0, 1, 2]);
//! ```

use std::time::{Duration, Instant};

mod select;

pub use select::Select;
pub use welltempered_channel::{
    Iter, ReadyTimeoutError, RecvError, RecvTimeoutError, SelectTimeoutError, SelectedOperation,
    SendError, SendTimeoutError, TryIter, TryReadyError, TryRecvError, TrySelectError,
    TrySendError,
};

/// What the macros expand to; not public API.
#[doc(hidden)]
pub use welltempered_channel as __welltempered_channel;

/// Waits on several channel operations at once: crossbeam's `select!`, the channel's
/// [`welltempered_channel::select!`] (the same syntax: `recv(r) -> msg => ...`,
/// `send(s, v) -> res => ...`, `default => ...`, `default(timeout) => ...`).
#[macro_export]
macro_rules! select {
    ($($tokens:tt)*) => {
        $crate::__welltempered_channel::select!($($tokens)*)
    };
}

/// [`select!`] that, when several operations are ready, chooses the first listed.
#[macro_export]
macro_rules! select_biased {
    ($($tokens:tt)*) => {
        $crate::__welltempered_channel::select_biased!($($tokens)*)
    };
}

/// The entry of crossbeam's internal macro, for code that calls it as crossbeam's own tests do
/// (a list of `select!` cases); it selects as [`select!`] does. Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! crossbeam_channel_internal {
    ($($tokens:tt)*) => {
        $crate::__welltempered_channel::select!($($tokens)*)
    };
}

/// The sending side of a channel: crossbeam's `Sender`, `Clone`, `Send` and `Sync`; see
/// [`welltempered_channel::SharedSender`].
pub type Sender<T> = welltempered_channel::SharedSender<T>;

/// The receiving side of a channel: crossbeam's `Receiver`, `Clone`, `Send` and `Sync`; see
/// [`welltempered_channel::SharedReceiver`].
pub type Receiver<T> = welltempered_channel::SharedReceiver<T>;

/// The iterator of an owned [`Receiver`] (`for v in rx`).
pub type IntoIter<T> = welltempered_channel::SharedIntoIter<T>;

/// Creates a channel of unbounded capacity.
///
/// ```
/// let (s, r) = crossbeam_channel::unbounded();
/// s.send(1).unwrap();
/// assert_eq!(r.recv(), Ok(1));
/// ```
#[track_caller]
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    welltempered_channel::shared::unbounded()
}

/// Creates a channel of bounded capacity; `bounded(0)` is a rendezvous channel, whose `send`
/// waits for a receiver to take the message.
///
/// ```
/// let (s, r) = crossbeam_channel::bounded(1);
/// s.send(1).unwrap();
/// assert!(s.try_send(2).unwrap_err().is_full());
/// assert_eq!(r.recv(), Ok(1));
/// ```
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    welltempered_channel::shared::bounded(cap)
}

/// A receiver that delivers one message, the time of delivery, after `duration`.
///
/// ```
/// use std::time::{Duration, Instant};
/// let start = Instant::now();
/// let at = crossbeam_channel::after(Duration::from_millis(1)).recv().unwrap();
/// assert!(at >= start + Duration::from_millis(1));
/// ```
#[track_caller]
pub fn after(duration: Duration) -> Receiver<Instant> {
    welltempered_channel::after(duration).into_shared()
}

/// A receiver that delivers one message, the time of delivery, at `when`.
#[track_caller]
pub fn at(when: Instant) -> Receiver<Instant> {
    welltempered_channel::at(when).into_shared()
}

/// A receiver that never delivers a message and is never disconnected (a `select!` case that
/// is never chosen).
///
/// ```
/// use std::time::Duration;
/// let r = crossbeam_channel::never::<u8>();
/// assert!(r.recv_timeout(Duration::from_millis(1)).unwrap_err().is_timeout());
/// ```
#[track_caller]
pub fn never<T>() -> Receiver<T> {
    welltempered_channel::never().into_shared()
}

/// A receiver that delivers the time every `duration`, dropping ticks nobody received in time.
#[track_caller]
pub fn tick(duration: Duration) -> Receiver<Instant> {
    welltempered_channel::tick(duration).into_shared()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sync_and_send<T: Sync + Send>(_: &T) {}

    #[test]
    fn handles_are_sync_and_clone_as_crossbeams() {
        let (s, r) = bounded::<u8>(2);
        sync_and_send(&s);
        sync_and_send(&r);
        let s2 = s.clone();
        assert!(s.same_channel(&s2));
        s2.send(7).unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(r.capacity(), Some(2));
        assert_eq!(r.clone().recv(), Ok(7));
        drop((s, s2));
        assert_eq!(r.recv(), Err(RecvError));
    }

    #[test]
    fn shared_by_reference_nothing_lost_or_repeated() {
        let (s, r) = unbounded::<u64>();
        const PER: u64 = if cfg!(miri) { 200 } else { 10_000 };
        std::thread::scope(|sc| {
            for p in 0..3u64 {
                let s = &s;
                sc.spawn(move || {
                    for i in 0..PER {
                        s.send(p * PER + i).unwrap();
                    }
                });
            }
        });
        drop(s);
        let mut last = [None::<u64>; 3];
        let mut n = 0;
        for v in r {
            let p = (v / PER) as usize;
            assert!(last[p].is_none_or(|l| l < v), "per-producer order");
            last[p] = Some(v);
            n += 1;
        }
        assert_eq!(n, 3 * PER);
    }

    #[test]
    fn select_macro_and_timers_take_these_handles() {
        let (s, r) = unbounded::<u8>();
        let n = never::<u8>();
        s.send(1).unwrap();
        select! {
            recv(n) -> _ => panic!("never delivers"),
            recv(r) -> v => assert_eq!(v, Ok(1)),
        }
        let t = after(Duration::from_millis(1));
        select! {
            recv(r) -> _ => panic!("nothing was sent"),
            recv(t) -> v => assert!(v.is_ok()),
        }
        let mut sel = Select::new();
        let i = sel.send(&s);
        let op = sel.select();
        assert_eq!(op.index(), i);
        op.send(&s, 2).unwrap();
        assert_eq!(r.try_recv(), Ok(2));
    }

    #[test]
    fn a_select_is_cloned_and_used_on_other_threads() {
        const THREADS: usize = 8;
        // Room for every send, so no chosen send waits.
        let (s, r) = bounded::<usize>(2 * THREADS);
        for i in 0..THREADS / 2 {
            s.send(i).unwrap();
        }
        let mut sel = Select::new();
        let recv = sel.recv(&r);
        let send = sel.send(&s);
        let removed = sel.recv(&r);
        sel.remove(removed);
        let sel = &sel;
        let (sent, received) = std::thread::scope(|sc| {
            let handles: Vec<_> = (0..THREADS)
                .map(|i| {
                    let (s, r) = (&s, &r);
                    sc.spawn(move || {
                        let mut sel = sel.clone();
                        let oper = sel.select();
                        match oper.index() {
                            ix if ix == recv => oper.recv(r).map(|_| (0, 1)).unwrap(),
                            ix if ix == send => oper.send(s, i).map(|()| (1, 0)).unwrap(),
                            ix => panic!("chose {ix}, removed in the original"),
                        }
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap())
                .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
        });
        assert_eq!(sent + received, THREADS);
        assert_eq!(r.len(), THREADS / 2 + sent - received);
    }
}
