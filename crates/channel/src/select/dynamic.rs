//! The dynamic selection: [`Select`], built at run time from operations added by index, and
//! the [`SelectedOperation`] that completes the chosen one. It runs the protocol of
//! [`super`] over boxed operations.

use super::*;

/// A selection over a set of send and receive operations, built at run time: add operations
/// with [`Select::recv`] and [`Select::send`] (each returns the operation's index), then wait
/// for one with [`Select::select`] (or its `try_`/`_timeout`/`_deadline` forms) and complete
/// it through the [`SelectedOperation`], or ask only which is ready with [`Select::ready`].
///
/// When several operations are ready, one is chosen at random.
///
/// ```
/// use welltempered_channel::{Select, unbounded};
/// let (tx1, rx1) = unbounded::<i32>();
/// let (_tx2, rx2) = unbounded::<&str>();
/// tx1.send(7).unwrap();
///
/// let mut sel = Select::new();
/// let first = sel.recv(&rx1);
/// let second = sel.recv(&rx2);
/// let oper = sel.select();
/// match oper.index() {
///     i if i == first => assert_eq!(oper.recv(&rx1), Ok(7)),
///     i if i == second => panic!("nothing was sent on rx2"),
///     _ => unreachable!(),
/// }
/// ```
///
/// A receive is completed during the selection: its element is held by the `Select` until
/// [`SelectedOperation::recv`] hands it over. If the `SelectedOperation` is dropped instead,
/// the element stays there, and the next selection on the same `Select` chooses that
/// operation again at once; it is dropped with the `Select` otherwise.
pub struct Select<'a> {
    ops: Vec<Entry<'a>>,
    biased: bool,
}

/// An operation of a [`Select`], with what identifies it.
struct Entry<'a> {
    op: Box<dyn Operation + 'a>,
    /// The channel of the handle it was added with (null once removed).
    channel: *const (),
    /// Whether it is a receive.
    is_recv: bool,
}

impl<'a> core::ops::Deref for Entry<'a> {
    type Target = dyn Operation + 'a;
    fn deref(&self) -> &Self::Target {
        &*self.op
    }
}

impl DerefMut for Entry<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut *self.op
    }
}

impl fmt::Debug for Select<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Select")
            .field("operations", &self.ops.len())
            .finish()
    }
}

impl Default for Select<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> Select<'a> {
    /// An empty selection.
    pub fn new() -> Self {
        Self {
            ops: Vec::new(),
            biased: false,
        }
    }

    /// An empty selection that, when several operations are ready, chooses the one added
    /// first.
    pub fn new_biased() -> Self {
        Self {
            ops: Vec::new(),
            biased: true,
        }
    }

    /// Adds a receive on `r`; returns its index.
    pub fn recv<T>(&mut self, r: &'a Receiver<T>) -> usize {
        self.ops.push(Entry {
            op: Box::new(RecvCase::new(r)),
            channel: r.channel_id(),
            is_recv: true,
        });
        self.ops.len() - 1
    }

    /// Adds a send on `s`; returns its index. The value is given to
    /// [`SelectedOperation::send`] once the operation is chosen.
    pub fn send<T>(&mut self, s: &'a Sender<T>) -> usize {
        self.ops.push(Entry {
            op: Box::new(SendReady {
                s,
                slot: None,
                handoff: None,
            }),
            channel: s.channel_id(),
            is_recv: false,
        });
        self.ops.len() - 1
    }

    /// Removes the operation at `index` (indices of the others do not change). A received
    /// element it still held is dropped.
    ///
    /// # Panics
    /// If there is no operation at `index`, or it was already removed.
    pub fn remove(&mut self, index: usize) {
        let entry = self
            .ops
            .get_mut(index)
            .filter(|e| !e.channel.is_null())
            .expect("no operation with this index");
        *entry = Entry {
            op: Box::new(Removed),
            channel: core::ptr::null(),
            is_recv: false,
        };
    }

    fn run(&mut self, mode: Mode, ready_only: bool) -> Option<usize> {
        run(&mut self.ops, mode, ready_only, self.biased)
    }

    /// Completes one operation if one can complete now.
    pub fn try_select(&mut self) -> Result<SelectedOperation<'_, 'a>, TrySelectError> {
        match self.run(Mode::Try, false) {
            Some(index) => Ok(SelectedOperation { sel: self, index }),
            None => Err(TrySelectError),
        }
    }

    /// Waits until one operation completes (or, for a send, is ready).
    ///
    /// # Panics
    /// Never returns if there are no operations (as crossbeam's blocks forever).
    pub fn select(&mut self) -> SelectedOperation<'_, 'a> {
        let index = self
            .run(Mode::Block, false)
            .expect("waited without deadline");
        SelectedOperation { sel: self, index }
    }

    /// Waits at most `timeout` for one operation.
    pub fn select_timeout(
        &mut self,
        timeout: Duration,
    ) -> Result<SelectedOperation<'_, 'a>, SelectTimeoutError> {
        match self.run(Mode::timeout(timeout), false) {
            Some(index) => Ok(SelectedOperation { sel: self, index }),
            None => Err(SelectTimeoutError),
        }
    }

    /// Waits until `deadline` at most for one operation.
    pub fn select_deadline(
        &mut self,
        deadline: Instant,
    ) -> Result<SelectedOperation<'_, 'a>, SelectTimeoutError> {
        match self.run(Mode::Until(deadline), false) {
            Some(index) => Ok(SelectedOperation { sel: self, index }),
            None => Err(SelectTimeoutError),
        }
    }

    /// The index of an operation that would not block now, without performing it. Another
    /// thread may take the opportunity before the caller acts on it.
    pub fn try_ready(&mut self) -> Result<usize, TryReadyError> {
        self.run(Mode::Try, true).ok_or(TryReadyError)
    }

    /// Waits until an operation would not block, and returns its index.
    pub fn ready(&mut self) -> usize {
        self.run(Mode::Block, true)
            .expect("waited without deadline")
    }

    /// Waits at most `timeout` until an operation would not block.
    pub fn ready_timeout(&mut self, timeout: Duration) -> Result<usize, ReadyTimeoutError> {
        self.run(Mode::timeout(timeout), true)
            .ok_or(ReadyTimeoutError)
    }

    /// Waits until `deadline` at most until an operation would not block.
    pub fn ready_deadline(&mut self, deadline: Instant) -> Result<usize, ReadyTimeoutError> {
        self.run(Mode::Until(deadline), true)
            .ok_or(ReadyTimeoutError)
    }
}

/// The operation a [`Select`] chose: complete it with [`SelectedOperation::recv`] or
/// [`SelectedOperation::send`], passing the handle it was added with (or a clone of it).
#[must_use = "a chosen receive holds its element until `recv` takes it"]
pub struct SelectedOperation<'s, 'a> {
    sel: &'s mut Select<'a>,
    index: usize,
}

impl fmt::Debug for SelectedOperation<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SelectedOperation")
            .field("index", &self.index)
            .finish()
    }
}

impl SelectedOperation<'_, '_> {
    /// The index [`Select::recv`] or [`Select::send`] returned for this operation.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The outcome of the chosen receive: the element, or `RecvError` if the channel was
    /// over.
    ///
    /// # Panics
    /// If `r` is not a receiver of the chosen operation's channel (the one it was added
    /// with, or a clone of it).
    pub fn recv<T>(self, r: &Receiver<T>) -> Result<T, RecvError> {
        let entry = &mut self.sel.ops[self.index];
        if !entry.is_recv || !core::ptr::eq(entry.channel, r.channel_id()) {
            panic!("passed a receiver that wasn't selected");
        }
        let outcome = entry.op.outcome().cast::<Option<Result<T, RecvError>>>();
        // The entry was added by `Select::recv` with a receiver of this very channel: the
        // same shared state, kept alive by that receiver (borrowed for the `Select`'s
        // lifetime), so no other channel can have its address, and its element type is this
        // `T`. Its operation is a `RecvCase<'_, T>`, whose `outcome` points to its
        // `Option<Result<T, RecvError>>`, derived from the `&mut` we hold (`&mut self.sel`).
        // SAFETY: so `outcome` is a valid, aligned pointer to that slot, and this is its only access.
        let got = unsafe { &mut *outcome };
        got.take().expect("the chosen receive holds its outcome")
    }

    /// Sends `value` on the chosen send's channel. It was ready when chosen; if other senders
    /// took the room since, this waits for room (see the module documentation). On a
    /// rendezvous channel whose receive was committed to this send during the selection, the
    /// value goes to that receive, which waits for it: complete the operation promptly.
    ///
    /// # Panics
    /// If `s` is not a sender of the chosen operation's channel.
    pub fn send<T>(self, s: &Sender<T>, value: T) -> Result<(), SendError<T>> {
        let entry = &mut self.sel.ops[self.index];
        if entry.is_recv || !core::ptr::eq(entry.channel, s.channel_id()) {
            panic!("passed a sender that wasn't selected");
        }
        let handoff = entry.op.handoff().cast::<Option<Handoff<T>>>();
        // The entry was added by `Select::send` with a sender of this very channel (same
        // shared state, kept alive by that sender, so its element type is this `T`); its
        // operation is a `SendReady<'_, T>`, whose `handoff` points to its
        // `Option<Handoff<T>>`, derived from the `&mut` we hold.
        // SAFETY: so `handoff` is a valid, aligned pointer to that field, and this is its only access.
        let handoff = unsafe { &mut *handoff }.take();
        match handoff {
            Some(handoff) => {
                handoff.complete(value);
                Ok(())
            }
            None => s.send(value),
        }
    }
}

impl Drop for SelectedOperation<'_, '_> {
    /// A chosen send not completed releases the rendezvous receive committed to it (that
    /// receive goes on waiting for another sender). A chosen receive keeps its element in the
    /// `Select` (see [`Select`]).
    fn drop(&mut self) {
        self.sel.ops[self.index].op.forfeit();
    }
}
