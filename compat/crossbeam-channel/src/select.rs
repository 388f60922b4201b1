//! crossbeam's dynamic `Select`: the channel's [`welltempered_channel::Select`] over shareable
//! handles, with what crossbeam's adds: `Clone`, `Send` and `Sync`.
//!
//! The channel's own `Select` is neither `Send` nor `Sync`: it may hold plain handles (one
//! thread's each) and a received element. Here every operation is added through a shareable
//! handle ([`crate::Sender`], [`crate::Receiver`]) of an element type that is `Send`, so the
//! selection may move to, or be cloned on, another thread. A clone has the same operations at
//! the same indices (removed ones stay removed) and none of the original's held elements.

use crate::{Receiver, Sender};
use core::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};
use welltempered_channel::{
    ReadyTimeoutError, SelectTimeoutError, SelectedOperation, TryReadyError, TrySelectError,
};

/// How to add one operation again, to a fresh selection (for `Clone`).
type Add<'a> = Arc<dyn Fn(&mut welltempered_channel::Select<'a>) -> usize + Send + Sync + 'a>;

/// A selection over a set of send and receive operations, built at run time: crossbeam's
/// `Select` (see [`welltempered_channel::Select`] for the operations).
///
/// ```
/// use crossbeam_channel::{Select, unbounded};
/// let (s1, r1) = unbounded::<i32>();
/// let (_s2, r2) = unbounded::<i32>();
/// s1.send(7).unwrap();
/// let mut sel = Select::new();
/// let first = sel.recv(&r1);
/// sel.recv(&r2);
/// assert_eq!(sel.clone().ready(), first); // a clone has the same operations
/// let oper = sel.select();
/// assert_eq!(oper.index(), first);
/// assert_eq!(oper.recv(&r1), Ok(7));
/// ```
pub struct Select<'a> {
    inner: welltempered_channel::Select<'a>,
    /// Each operation, in index order, and whether it was removed.
    adds: Vec<(Add<'a>, bool)>,
    biased: bool,
}

// SAFETY: the inner selection holds references to the channel's handles and the elements its
// receives took. Every handle was added through a `Receiver<T>` or `Sender<T>` of this crate,
// that is a `SharedReceiver<T>`/`SharedSender<T>`, with `T: Send` (the bounds of `recv` and
// `send`): such a handle is `Sync` (its side runs the shared discipline, safe from any number of
// threads), so the plain handle it derefs to may be used from the thread the selection moves
// to, and a held `T` may be handed over or dropped there.
unsafe impl Send for Select<'_> {}
// SAFETY: through `&Select` only `clone` and `Debug` run: `clone` calls the `Add` closures
// (`Send + Sync`, they capture `&` shareable handles) to build a new selection, and `Debug`
// reads the number of operations. Neither touches the inner selection's operations or held
// elements.
unsafe impl Sync for Select<'_> {}

impl<'a> Select<'a> {
    /// An empty selection; when several operations are ready, one is chosen at random.
    pub fn new() -> Self {
        Self {
            inner: welltempered_channel::Select::new(),
            adds: Vec::new(),
            biased: false,
        }
    }

    /// An empty selection that, when several operations are ready, chooses the one added first.
    pub fn new_biased() -> Self {
        Self {
            inner: welltempered_channel::Select::new_biased(),
            adds: Vec::new(),
            biased: true,
        }
    }

    /// Adds a receive on `r`; returns its index.
    pub fn recv<T: Send>(&mut self, r: &'a Receiver<T>) -> usize {
        let add: Add<'a> = Arc::new(move |sel| sel.recv(r));
        self.push(add)
    }

    /// Adds a send on `s`; returns its index. The value is given to
    /// [`SelectedOperation::send`] once the operation is chosen.
    pub fn send<T: Send>(&mut self, s: &'a Sender<T>) -> usize {
        let add: Add<'a> = Arc::new(move |sel| sel.send(s));
        self.push(add)
    }

    fn push(&mut self, add: Add<'a>) -> usize {
        let index = add(&mut self.inner);
        debug_assert_eq!(index, self.adds.len());
        self.adds.push((add, false));
        index
    }

    /// Removes the operation at `index` (indices of the others do not change).
    ///
    /// # Panics
    /// If there is no operation at `index`, or it was already removed.
    pub fn remove(&mut self, index: usize) {
        self.inner.remove(index);
        self.adds[index].1 = true;
    }

    /// Chooses a ready operation, if there is one, without blocking.
    pub fn try_select(&mut self) -> Result<SelectedOperation<'_, 'a>, TrySelectError> {
        self.inner.try_select()
    }

    /// Blocks until an operation is ready and chooses it.
    pub fn select(&mut self) -> SelectedOperation<'_, 'a> {
        self.inner.select()
    }

    /// [`Select::select`] for at most `timeout`.
    pub fn select_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<SelectedOperation<'_, 'a>, SelectTimeoutError> {
        self.inner.select_timeout(timeout)
    }

    /// [`Select::select`] until `deadline`.
    pub fn select_deadline(
        &mut self,
        deadline: Instant,
    ) -> Result<SelectedOperation<'_, 'a>, SelectTimeoutError> {
        self.inner.select_deadline(deadline)
    }

    /// The index of an operation that is ready now, if any.
    pub fn try_ready(&mut self) -> Result<usize, TryReadyError> {
        self.inner.try_ready()
    }

    /// Blocks until an operation is ready; returns its index.
    pub fn ready(&mut self) -> usize {
        self.inner.ready()
    }

    /// [`Select::ready`] for at most `timeout`.
    pub fn ready_timeout(&mut self, timeout: Duration) -> Result<usize, ReadyTimeoutError> {
        self.inner.ready_timeout(timeout)
    }

    /// [`Select::ready`] until `deadline`.
    pub fn ready_deadline(&mut self, deadline: Instant) -> Result<usize, ReadyTimeoutError> {
        self.inner.ready_deadline(deadline)
    }
}

impl<'a> Clone for Select<'a> {
    fn clone(&self) -> Self {
        let mut inner = if self.biased {
            welltempered_channel::Select::new_biased()
        } else {
            welltempered_channel::Select::new()
        };
        for (add, removed) in &self.adds {
            let index = add(&mut inner);
            if *removed {
                inner.remove(index);
            }
        }
        Self {
            inner,
            adds: self.adds.clone(),
            biased: self.biased,
        }
    }
}

impl Default for Select<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for Select<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
