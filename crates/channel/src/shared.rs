//! Shareable handles: [`SharedSender`] and [`SharedReceiver`], which are `Sync`, for code that
//! shares one handle by reference between threads (`&tx` in scoped threads, a handle in an
//! `Arc` or a `static`), as code written for crossbeam-channel or `std::sync::mpsc` does; and
//! [`unbounded`] and [`bounded`], which make a channel with shared handles on both sides (what
//! `cargo welltempered check --fix` writes for a channel whose handles turn out to be shared by
//! reference).
//!
//! **How.** A plain handle is `!Sync` so that the number of handles on a side is the number of
//! threads that can use it: one handle means one thread, and the side runs its single
//! discipline (no read-modify-write). A shared handle gives that up on purpose: while one
//! exists, its side counts it as many handles (more than one), so every operation of
//! every handle on that side takes the shared discipline (compare-and-swap claims), which is
//! safe from any number of threads at once. When the last shared handle of a side is dropped,
//! a remaining plain handle returns to the single discipline at its next operation, by the
//! same acquire/release of the count as after dropping a clone.
//!
//! **Guarantees.** Those of the channel's shared disciplines (see the crate documentation);
//! the count of shared handles lives in the high half of the side's handle count
//! (`chan/topology.rs`).

use crate::chan::{Iter, Receiver, Sender, TryIter};
use core::fmt;
use core::ops::Deref;

/// An unbounded channel whose handles are shareable from the start: what
/// crossbeam-channel's `unbounded` gives (`Sync`, `Clone` handles on both sides), for code that
/// shares a handle by reference and is not worth restructuring. Both sides use the shared
/// disciplines for the channel's whole life; [`crate::unbounded`] with a clone per thread is
/// faster where it fits.
///
/// ```
/// let (tx, rx) = welltempered_channel::shared::unbounded::<u32>();
/// std::thread::scope(|s| {
///     for i in 0..3 {
///         let tx = &tx;
///         s.spawn(move || tx.send(i).unwrap());
///     }
/// });
/// drop(tx);
/// let mut got: Vec<u32> = rx.into_iter().collect();
/// got.sort();
/// assert_eq!(got, [0, 1, 2]);
/// ```
#[track_caller]
pub fn unbounded<T>() -> (SharedSender<T>, SharedReceiver<T>) {
    let (tx, rx) = crate::unbounded();
    (tx.into_shared(), rx.into_shared())
}

/// A channel holding at most `cap` elements (`0`: rendezvous) whose handles are shareable
/// from the start, as crossbeam-channel's `bounded`; see [`unbounded`].
#[track_caller]
pub fn bounded<T>(cap: usize) -> (SharedSender<T>, SharedReceiver<T>) {
    let (tx, rx) = crate::bounded(cap);
    (tx.into_shared(), rx.into_shared())
}

/// A sending handle that can be shared between threads by reference: `Sync`, unlike
/// [`Sender`]. Made by [`Sender::into_shared`]; derefs to [`Sender`], so it has every
/// sending method.
///
/// While a `SharedSender` exists, the channel's producers use the shared discipline
/// (compare-and-swap claims), even if it is the only sender.
///
/// ```
/// let (tx, rx) = welltempered_channel::unbounded::<u32>();
/// let tx = tx.into_shared();
/// std::thread::scope(|s| {
///     for i in 0..4 {
///         let tx = &tx; // shared by reference, as with crossbeam's `Sender`
///         s.spawn(move || tx.send(i).unwrap());
///     }
/// });
/// drop(tx);
/// let mut got: Vec<u32> = rx.iter().collect();
/// got.sort();
/// assert_eq!(got, [0, 1, 2, 3]);
/// ```
pub struct SharedSender<T>(Sender<T>);

/// A receiving handle that can be shared between threads by reference: `Sync`, unlike
/// [`Receiver`]. Made by [`Receiver::into_shared`]; derefs to [`Receiver`] for every
/// receiving method that takes `&self` (the borrowing [`Receiver::recv_ref`] needs a plain
/// handle of one's own).
///
/// ```
/// use std::sync::Arc;
/// let (tx, rx) = welltempered_channel::bounded::<u32>(16);
/// let rx = Arc::new(rx.into_shared());
/// let workers: Vec<_> = (0..2)
///     .map(|_| {
///         let rx = Arc::clone(&rx);
///         std::thread::spawn(move || rx.iter().count())
///     })
///     .collect();
/// for i in 0..100 {
///     tx.send(i).unwrap();
/// }
/// drop(tx);
/// let n: usize = workers.into_iter().map(|w| w.join().unwrap()).sum();
/// assert_eq!(n, 100);
/// ```
pub struct SharedReceiver<T>(Receiver<T>);

// SAFETY: while a `SharedSender` exists, its `SHARED` share of the sender count keeps the
// count above one, so every operation through any sender takes the shared discipline, whose
// claims are compare-and-swaps that any number of threads may run at once; no `Sender` method
// relies on being the only thread other than through that count. `T: Send` because values
// sent from one thread are received on another.
unsafe impl<T: Send> Sync for SharedSender<T> {}

// SAFETY: as for `SharedSender`, for the receiver count and the consumers' shared discipline;
// the one method that needs exclusive access (`recv_ref`, the borrowing receive) takes
// `&mut Receiver`, which `Deref` does not give.
unsafe impl<T: Send> Sync for SharedReceiver<T> {}

impl<T> Sender<T> {
    /// Turns this handle into a [`SharedSender`], which is `Sync`: for code that shares one
    /// sender by reference between threads. The producers then use the shared discipline
    /// until every shared sender is gone (remarked with this call's site). Cloning a plain
    /// handle per thread keeps a lone sender on the faster single discipline.
    #[track_caller]
    pub fn into_shared(self) -> SharedSender<T> {
        self.add_shared_weight();
        SharedSender(self)
    }
}

impl<T> Receiver<T> {
    /// Turns this handle into a [`SharedReceiver`], which is `Sync`: for code that shares one
    /// receiver by reference between threads. The consumers then use the shared discipline
    /// until every shared receiver is gone (remarked with this call's site).
    #[track_caller]
    pub fn into_shared(self) -> SharedReceiver<T> {
        self.add_shared_weight();
        SharedReceiver(self)
    }
}

impl<T> Deref for SharedSender<T> {
    type Target = Sender<T>;
    fn deref(&self) -> &Sender<T> {
        &self.0
    }
}

impl<T> Deref for SharedReceiver<T> {
    type Target = Receiver<T>;
    fn deref(&self) -> &Receiver<T> {
        &self.0
    }
}

impl<T> Clone for SharedSender<T> {
    /// Another shared sender.
    #[track_caller]
    fn clone(&self) -> Self {
        Self(self.0.clone_shared())
    }
}

impl<T> Clone for SharedReceiver<T> {
    /// Another shared receiver.
    #[track_caller]
    fn clone(&self) -> Self {
        Self(self.0.clone_shared())
    }
}

impl<T> Drop for SharedSender<T> {
    fn drop(&mut self) {
        // The inner `Sender`'s own drop then takes away the last one of its count.
        self.0.remove_shared_weight();
    }
}

impl<T> Drop for SharedReceiver<T> {
    fn drop(&mut self) {
        // The inner `Receiver`'s own drop then takes away the last one (and, if it was the
        // last receiver, drops what is left in the channel).
        self.0.remove_shared_weight();
    }
}

impl<'a, T> IntoIterator for &'a SharedReceiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.0.iter()
    }
}

/// The consuming iterator of a [`SharedReceiver`]: it receives until every sender is gone and
/// the channel is empty, as [`crate::IntoIter`] does for a plain receiver.
pub struct SharedIntoIter<T> {
    rx: SharedReceiver<T>,
}

impl<T> Iterator for SharedIntoIter<T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<T> core::iter::FusedIterator for SharedIntoIter<T> {}

impl<T> fmt::Debug for SharedIntoIter<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SharedIntoIter")
            .field("rx", &self.rx)
            .finish()
    }
}

impl<T> IntoIterator for SharedReceiver<T> {
    type Item = T;
    type IntoIter = SharedIntoIter<T>;
    fn into_iter(self) -> SharedIntoIter<T> {
        SharedIntoIter { rx: self }
    }
}

impl<T> SharedReceiver<T> {
    /// The elements available now, as [`Receiver::try_iter`].
    pub fn try_iter(&self) -> TryIter<'_, T> {
        self.0.try_iter()
    }
}

impl<T> fmt::Debug for SharedSender<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SharedSender").field(&self.0).finish()
    }
}

impl<T> fmt::Debug for SharedReceiver<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("SharedReceiver").field(&self.0).finish()
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use crate::{TryRecvError, bounded, unbounded};
    use std::collections::HashSet;
    use std::sync::Arc;

    fn assert_sync<T: Sync>(_: &T) {}

    #[test]
    fn shared_constructors_give_sync_handles_and_a_consuming_iterator() {
        // Room for every element: the senders never wait for the iterator below.
        let (tx, rx) = super::bounded::<u64>(300);
        assert_sync(&tx);
        assert_sync(&rx);
        let drained = std::thread::scope(|s| {
            for i in 0..3 {
                let tx = &tx;
                s.spawn(move || {
                    for j in 0..100 {
                        tx.send(i * 1000 + j).unwrap();
                    }
                });
            }
            // A receiver shared by reference takes some while the senders run.
            let rx = &rx;
            s.spawn(move || (0..50).map(|_| rx.recv().unwrap()).collect::<Vec<_>>())
                .join()
                .unwrap()
        });
        drop(tx);
        // Every sender is gone: the iterator drains what is left, then ends (and stays ended).
        let mut it = rx.into_iter();
        let mut got: Vec<u64> = it.by_ref().collect();
        assert_eq!(it.next(), None);
        got.extend(drained);
        got.sort_unstable();
        let want: Vec<u64> = (0..3)
            .flat_map(|i| (0..100).map(move |j| i * 1000 + j))
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn shared_handles_are_sync_and_counted() {
        let (tx, rx) = unbounded::<u64>();
        let tx2 = tx.clone();
        let stx = tx.into_shared();
        let srx = rx.into_shared();
        assert_sync(&stx);
        assert_sync(&srx);
        assert_eq!(stx.sender_count(), 2);
        let stx2 = stx.clone();
        assert_eq!(stx.sender_count(), 3);
        assert_eq!(srx.receiver_count(), 1);
        drop(stx2);
        drop(tx2);
        assert_eq!(stx.sender_count(), 1);
        stx.send(7).unwrap();
        assert_eq!(srx.recv(), Ok(7));
        drop(stx);
        assert!(
            srx.recv().is_err(),
            "disconnected once every sender is gone"
        );
    }

    /// Many threads send through one `&SharedSender` and receive through one
    /// `&SharedReceiver`: every element arrives exactly once, in order per producer.
    #[test]
    fn one_handle_shared_by_reference() {
        let per = if cfg!(miri) { 50 } else { 20_000 };
        let (tx, rx) = bounded::<(u64, u64)>(8);
        let (tx, rx) = (tx.into_shared(), rx.into_shared());
        let got = std::sync::Mutex::new(Vec::new());
        let taken = std::sync::atomic::AtomicUsize::new(0);
        let total = 3 * per as usize;
        std::thread::scope(|s| {
            for p in 0..3u64 {
                let tx = &tx;
                s.spawn(move || {
                    for i in 0..per {
                        tx.send((p, i)).unwrap();
                    }
                });
            }
            for _ in 0..2 {
                let (rx, got, taken) = (&rx, &got, &taken);
                s.spawn(move || {
                    use std::sync::atomic::Ordering::SeqCst;
                    let mut mine = Vec::new();
                    let mut last = [None::<u64>; 3];
                    // Until every element is taken (by either receiver); the timeout only
                    // makes a receiver look again.
                    while taken.load(SeqCst) < total {
                        if let Ok((p, i)) = rx.recv_timeout(std::time::Duration::from_millis(10)) {
                            assert!(last[p as usize] < Some(i), "order per producer");
                            last[p as usize] = Some(i);
                            mine.push((p, i));
                            taken.fetch_add(1, SeqCst);
                        }
                    }
                    got.lock().unwrap().extend(mine);
                });
            }
        });
        let got = got.into_inner().unwrap();
        let set: HashSet<_> = got.iter().copied().collect();
        assert_eq!(got.len(), total);
        assert_eq!(set.len(), got.len(), "no element twice");
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }

    /// After the shared handles are gone, a plain handle returns to the single discipline
    /// and keeps the order.
    #[test]
    fn back_to_single_after_the_shared_handles() {
        let (tx, rx) = unbounded::<u32>();
        let tx1 = tx.clone();
        let rx1 = rx.clone();
        let (stx, srx) = (tx.into_shared(), rx.into_shared());
        for i in 0..100 {
            stx.send(i).unwrap();
        }
        for i in 0..50 {
            assert_eq!(srx.recv(), Ok(i));
        }
        drop((stx, srx));
        assert_eq!(tx1.sender_count(), 1);
        for i in 100..200 {
            tx1.send(i).unwrap();
        }
        for i in 50..200 {
            assert_eq!(rx1.recv(), Ok(i));
        }
    }

    /// The last shared receiver drops what is left, as the last plain one does.
    #[test]
    fn last_shared_receiver_drops_what_is_left() {
        let item = Arc::new(());
        let (tx, rx) = unbounded();
        for _ in 0..10 {
            tx.send(Arc::clone(&item)).unwrap();
        }
        let srx = rx.into_shared();
        let srx2 = srx.clone();
        drop(srx);
        assert_eq!(Arc::strong_count(&item), 11);
        drop(srx2);
        assert_eq!(Arc::strong_count(&item), 1);
        assert!(tx.send(Arc::clone(&item)).is_err());
    }
}
