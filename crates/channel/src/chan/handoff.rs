//! The commitment of a sleeping selection on a rendezvous channel: how a selection's send and
//! a receive (or a selection's receive and a send) meet when neither can wait for the other.
//!
//! **Algorithm.** The selection context of crossbeam-channel (`Context` and `Selected` in its
//! `context.rs`, and the zero-capacity flavour's `Packet`, in `flavors/zero.rs`:
//! <https://github.com/crossbeam-rs/crossbeam/tree/master/crossbeam-channel/src>), itself
//! after Go's `select`, whose sleeping goroutine is queued on each channel and claimed by one
//! CAS (`selectDone`, <https://go.dev/src/runtime/select.go>). A selection that goes to sleep
//! makes one [`Context`] whose state is *waiting*, and enters each of its operations on a
//! rendezvous channel in that channel's [`Registry`]: a receive with an empty [`Slot`], a send
//! with a slot holding its message (the macro's) or an empty one (the dynamic `Select`'s,
//! whose message comes after the selection). Another thread's send or receive commits such an
//! entry by moving its context from *waiting* to *chosen, operation i* with a CAS, under the
//! registry's lock; one CAS succeeds per sleep, so a selection completes one operation. The
//! sender then fills the receive's slot, or the receiver waits for the send's slot to be filled
//! and empties it, and the selection is woken. A selection that wakes for any other reason
//! moves its own context to *aborted* first; if that CAS fails, it was chosen, and it completes
//! the chosen operation instead of any other.
//!
//! **Why under the lock.** The committer's CAS runs while the entry is still listed, and the
//! selection removes its entries (taking the same lock) before it resets its context for the
//! next sleep: a committer never moves a context of a later sleep with an entry of an earlier
//! one.
//!
//! **Guarantees.** Exactly one of the selection's operations completes per sleep, or none (it
//! aborted first). A filled slot's message is taken exactly once (by its receiver, or back by
//! its sender after an abort); a slot committed for a message that never comes (a
//! `SelectedOperation` dropped, or a panic, before its send) is marked abandoned, and the
//! receiver that waits on it goes back to its receive. Nothing runs user code while the lock
//! is held: the entries hold `Arc`s, and messages move through the slot's own mutex.

use crate::eventcount::Signal;
use crate::sync::{Arc, AtomicUsize, Backoff, Mutex, Ordering};

/// A context's state: waiting to be chosen.
const WAITING: usize = 0;
/// A context's state: the selection woke and withdrew; no operation may be chosen.
const ABORTED: usize = 1;
/// A context's state from this value up: operation `state - CHOSEN` was chosen.
const CHOSEN: usize = 2;

/// The state of one sleeping selection, shared by its entries in every registry. Public (and
/// unnameable) only because the hidden `select::Operation` trait names it.
#[doc(hidden)]
pub struct Context {
    state: AtomicUsize,
    signal: Arc<Signal>,
}

impl Context {
    /// A context that wakes `signal`'s thread.
    pub(crate) fn new(signal: Arc<Signal>) -> Arc<Self> {
        Arc::new(Self {
            state: AtomicUsize::new(WAITING),
            signal,
        })
    }

    /// Makes the context waiting again, before the selection registers for its next sleep.
    pub(crate) fn reset(&self) {
        // Relaxed: committers read the state only through entries registered after this, under
        // the registry's mutex, which orders it.
        self.state.store(WAITING, Ordering::Relaxed);
    }

    /// Chooses operation `op` for the selection, if it still waits.
    fn try_choose(&self, op: usize) -> bool {
        // AcqRel: the winner acquires the selection's registration (its slot) and releases its
        // own earlier writes to the selection, which acquires the state on waking.
        self.state
            .compare_exchange(WAITING, CHOSEN + op, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    /// Withdraws the waiting selection: `None` once aborted (nothing can be chosen now), or
    /// the operation another thread chose.
    pub(crate) fn try_abort(&self) -> Option<usize> {
        // Acquire on failure: the chooser's writes (a filled slot) happen before what the
        // selection does with its chosen operation.
        match self
            .state
            .compare_exchange(WAITING, ABORTED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => None,
            Err(state) => {
                debug_assert!(state >= CHOSEN, "a context aborted twice");
                Some(state - CHOSEN)
            }
        }
    }

    /// Wakes the selection's thread.
    fn wake(&self) {
        self.signal.wake();
    }
}

/// A slot's state: no message yet.
const EMPTY: usize = 0;
/// A slot's state: its message is there (or was taken).
const FULL: usize = 1;
/// A slot's state: the message will never come.
const ABANDONED: usize = 2;

/// Where one committed pair's message passes: filled by the sender, emptied by the receiver.
pub(crate) struct Slot<T> {
    state: AtomicUsize,
    value: Mutex<Option<T>>,
}

impl<T> Slot<T> {
    /// A slot for a message to come.
    pub(crate) fn empty() -> Arc<Self> {
        Arc::new(Self {
            state: AtomicUsize::new(EMPTY),
            value: Mutex::new(None),
        })
    }

    /// A slot holding `value` already.
    pub(crate) fn full(value: T) -> Arc<Self> {
        Arc::new(Self {
            state: AtomicUsize::new(FULL),
            value: Mutex::new(Some(value)),
        })
    }

    /// Runs `f` on the message under the slot's mutex (which no user code runs under, so it is
    /// never poisoned; a poisoned one is used as is).
    fn with<R>(&self, f: impl FnOnce(&mut Option<T>) -> R) -> R {
        f(&mut self.value.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Puts the message in and publishes it.
    fn fill(&self, value: T) {
        self.with(|v| *v = Some(value));
        // Release: the message is in before the receiver sees the slot full.
        self.state.store(FULL, Ordering::Release);
    }

    /// Tells the waiting receiver that no message will come.
    fn abandon(&self) {
        // Release: pairs with the receiver's acquire in `wait`.
        self.state.store(ABANDONED, Ordering::Release);
    }

    /// Takes the message back from a slot nobody committed (a send's own, after an abort).
    pub(crate) fn take_back(&self) -> Option<T> {
        self.with(Option::take)
    }

    /// Waits until the slot is filled or abandoned: the message, or `None` if abandoned.
    pub(crate) fn wait(&self) -> Option<T> {
        let backoff = Backoff::new();
        loop {
            // Acquire: pairs with `fill` and `abandon`.
            match self.state.load(Ordering::Acquire) {
                FULL => return self.with(Option::take),
                ABANDONED => return None,
                // The sender runs (it was woken, or fills right after its CAS); a dynamic
                // selection's sender runs the caller's code first, as crossbeam's does.
                _ => backoff.snooze(),
            }
        }
    }
}

/// A committed receive of a sleeping selection, whose message the caller gives later: filled
/// with [`Handoff::complete`], or abandoned when dropped without it (the receiver then goes back
/// to its receive).
pub(crate) struct Handoff<T> {
    /// The receiving selection to wake once its slot is filled or abandoned; `None` when the
    /// receiver is a thread waiting on the slot already.
    cx: Option<Arc<Context>>,
    slot: Arc<Slot<T>>,
    done: bool,
}

impl<T> Handoff<T> {
    /// A handoff to a receiver waiting on `slot` (it committed the caller's own send entry).
    pub(crate) fn to_waiting(slot: Arc<Slot<T>>) -> Self {
        Self {
            cx: None,
            slot,
            done: false,
        }
    }

    /// Gives the receiver its message.
    pub(crate) fn complete(mut self, value: T) {
        self.done = true;
        self.slot.fill(value);
        if let Some(cx) = &self.cx {
            cx.wake();
        }
    }
}

impl<T> Drop for Handoff<T> {
    fn drop(&mut self) {
        if !self.done {
            self.slot.abandon();
            if let Some(cx) = &self.cx {
                cx.wake();
            }
        }
    }
}

/// Which list of a registry.
#[derive(Clone, Copy)]
pub(crate) enum Side {
    /// Selections receiving.
    Receivers,
    /// Selections sending.
    Senders,
}

/// One registered operation of a sleeping selection.
struct Entry<T> {
    cx: Arc<Context>,
    /// The operation's index in its selection.
    op: usize,
    slot: Arc<Slot<T>>,
}

/// The sleeping selections of one rendezvous channel, per side.
pub(crate) struct Registry<T> {
    lists: Mutex<[Vec<Entry<T>>; 2]>,
    /// Entries per side, readable without the lock (a hint for the fast paths, and the
    /// condition a notified thread re-checks).
    counts: [AtomicUsize; 2],
}

impl<T> Registry<T> {
    pub(crate) fn new() -> Self {
        Self {
            lists: Mutex::new([Vec::new(), Vec::new()]),
            counts: [AtomicUsize::new(0), AtomicUsize::new(0)],
        }
    }

    fn lock(&self) -> crate::sync::MutexGuard<'_, [Vec<Entry<T>>; 2]> {
        // No user code runs under this mutex (entries hold `Arc`s of our own types), so it is
        // never poisoned; a poisoned one is used as is.
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `side` may have an entry (a hint: it may be taken or withdrawn right after).
    #[inline]
    pub(crate) fn any(&self, side: Side) -> bool {
        // SeqCst: the registering selection's increment and a notified thread's read are the
        // condition of an eventcount's Dekker pair (the selection notifies after registering).
        self.counts[side as usize].load(Ordering::SeqCst) > 0
    }

    /// Whether `side` has an entry of a selection other than `cx`.
    pub(crate) fn any_besides(&self, side: Side, cx: Option<&Context>) -> bool {
        if !self.any(side) {
            return false;
        }
        self.lock()[side as usize]
            .iter()
            .any(|e| cx.is_none_or(|cx| !core::ptr::eq(&*e.cx, cx)))
    }

    /// Enters operation `op` of the sleeping selection `cx`, with its slot.
    pub(crate) fn register(&self, side: Side, cx: &Arc<Context>, op: usize, slot: Arc<Slot<T>>) {
        let mut lists = self.lock();
        lists[side as usize].push(Entry {
            cx: cx.clone(),
            op,
            slot,
        });
        self.counts[side as usize].fetch_add(1, Ordering::SeqCst);
    }

    /// Withdraws the entries of `cx` on `side` (none, if a committer took them).
    pub(crate) fn unregister(&self, side: Side, cx: &Context) {
        let removed = {
            let mut lists = self.lock();
            let list = &mut lists[side as usize];
            let before = list.len();
            let mut gone = Vec::new();
            let mut i = 0;
            while i < list.len() {
                if core::ptr::eq(&*list[i].cx, cx) {
                    gone.push(list.remove(i));
                } else {
                    i += 1;
                }
            }
            self.counts[side as usize].fetch_sub(before - list.len(), Ordering::SeqCst);
            gone
        };
        // The entries' `Arc`s are released after the lock.
        drop(removed);
    }

    /// Commits the oldest entry of `side` whose selection still waits: its context now names
    /// its operation, and it is out of the list. Entries of selections that woke meanwhile
    /// stay for their owners to withdraw.
    fn commit(&self, side: Side) -> Option<(Arc<Context>, Arc<Slot<T>>)> {
        if !self.any(side) {
            return None;
        }
        let mut lists = self.lock();
        let list = &mut lists[side as usize];
        let i = list.iter().position(|e| e.cx.try_choose(e.op))?;
        let entry = list.remove(i);
        self.counts[side as usize].fetch_sub(1, Ordering::SeqCst);
        drop(lists);
        Some((entry.cx, entry.slot))
    }

    /// A send: gives `value` to a sleeping selection's receive, if one waits (`Err` gives it
    /// back otherwise).
    pub(crate) fn give(&self, value: T) -> Result<(), T> {
        let Some((cx, slot)) = self.commit(Side::Receivers) else {
            return Err(value);
        };
        slot.fill(value);
        // The context is ours (an `Arc`): waking it after the selection may have returned only
        // unparks its thread once more, which its next park absorbs.
        cx.wake();
        Ok(())
    }

    /// A send of a dynamic selection: commits a sleeping selection's receive, whose message
    /// the caller gives later through the handoff.
    pub(crate) fn reserve(&self) -> Option<Handoff<T>> {
        let (cx, slot) = self.commit(Side::Receivers)?;
        Some(Handoff {
            cx: Some(cx),
            slot,
            done: false,
        })
    }

    /// A receive: takes the message of a sleeping selection's send, if one waits (waiting for a
    /// dynamic selection's caller to give it; another entry is tried if that caller abandons).
    pub(crate) fn take(&self) -> Option<T> {
        loop {
            let (cx, slot) = self.commit(Side::Senders)?;
            cx.wake();
            if let Some(v) = slot.wait() {
                return Some(v);
            }
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn one_commit_per_sleep() {
        let reg = Registry::<u32>::new();
        let cx = Context::new(Signal::for_current_thread());
        let (a, b) = (Slot::empty(), Slot::empty());
        reg.register(Side::Receivers, &cx, 0, a.clone());
        reg.register(Side::Receivers, &cx, 1, b.clone());
        assert_eq!(reg.give(7), Ok(()));
        // The second entry's selection is chosen already: not committed again.
        assert_eq!(reg.give(8), Err(8));
        assert_eq!(cx.try_abort(), Some(0));
        assert_eq!(a.wait(), Some(7));
        reg.unregister(Side::Receivers, &cx);
        assert!(!reg.any(Side::Receivers));
    }

    #[test]
    fn aborted_context_is_not_chosen() {
        let reg = Registry::<u32>::new();
        let cx = Context::new(Signal::for_current_thread());
        let slot = Slot::full(5);
        reg.register(Side::Senders, &cx, 3, slot.clone());
        assert_eq!(cx.try_abort(), None);
        assert_eq!(reg.take(), None);
        assert_eq!(slot.take_back(), Some(5));
        reg.unregister(Side::Senders, &cx);
        assert!(!reg.any_besides(Side::Senders, None));
    }

    #[test]
    fn abandoned_handoff_releases_the_receiver() {
        let reg = Registry::<String>::new();
        let cx = Context::new(Signal::for_current_thread());
        let slot = Slot::empty();
        reg.register(Side::Receivers, &cx, 0, slot.clone());
        let handoff = reg.reserve().expect("a waiting receive");
        assert!(reg.reserve().is_none());
        drop(handoff);
        assert_eq!(cx.try_abort(), Some(0));
        assert_eq!(slot.wait(), None);
        assert!(cx.signal.take_woken());
    }

    #[test]
    fn completed_handoff_delivers() {
        let reg = Registry::<String>::new();
        let cx = Context::new(Signal::for_current_thread());
        let slot = Slot::empty();
        reg.register(Side::Receivers, &cx, 2, slot.clone());
        reg.reserve()
            .expect("a waiting receive")
            .complete("hi".into());
        assert_eq!(cx.try_abort(), Some(2));
        assert_eq!(slot.wait().as_deref(), Some("hi"));
        assert!(cx.signal.take_woken());
    }
}
