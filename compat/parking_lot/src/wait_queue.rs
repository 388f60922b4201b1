//! The waiting protocol of this crate's [`crate::Condvar`]: a FIFO queue of waiters, each
//! sleeping on a futex word of its own, with exact notification counts.
//!
//! **Algorithm.** The queue-per-condition-variable design of parking_lot's `Condvar`
//! (Amanieu d'Antras, <https://github.com/Amanieu/parking_lot>, after WebKit's `ParkingLot`,
//! Filip Pizlo, "Locking in WebKit", 2016, <https://webkit.org/blog/6161/locking-in-webkit/>),
//! with the queue held by the condition variable itself rather than a global hash table:
//! - A waiter puts a node of its own (a reference-counted futex word) at the back of the queue
//!   while it still holds the mutex, then releases the mutex and sleeps until its word is set.
//!   Any notification that comes after the release therefore finds it in the queue.
//! - `notify_one` takes the front node out under the queue's lock, sets its word there, and
//!   wakes it after releasing the queue; `notify_all` does the same for every node.
//! - A timed waiter whose deadline passes takes its node out under the queue's lock: if the
//!   node is gone, a notifier took it first (and set its word under that lock), and the wait
//!   counts as notified.
//!
//! **Guarantees.** No spurious wake-ups: a wait returns only when notified or timed out; a
//! notification counts a waiter exactly when that waiter returns notified. Waiters are woken
//! in the order they queued. A notifier touches a waiter's word only through its own
//! reference to the node, so a waiter that returns and drops its reference never leaves a
//! notifier with a dangling word. No user code runs under the queue's lock.
//!
//! The same text runs under loom (`RUSTFLAGS="--cfg loom"`, `tests/loom_condvar.rs`), with
//! loom's mutex, `Arc` and atomics; its futex wait is then a yield.

#[cfg(not(loom))]
use core::sync::atomic::AtomicU32;
#[cfg(loom)]
use loom::sync::atomic::AtomicU32;

#[cfg(loom)]
use loom::sync::Arc;
#[cfg(not(loom))]
use std::sync::Arc;

use core::sync::atomic::Ordering;
use std::collections::VecDeque;
use std::time::Instant;
use welltempered_lock::futex;

/// One waiter's node: its futex word, 0 while it waits, 1 once notified.
#[derive(Debug)]
struct Waiter {
    notified: AtomicU32,
}

/// The waiters, in the order they queued, and the mutex they use.
#[derive(Debug)]
struct Queue {
    waiters: VecDeque<Arc<Waiter>>,
    /// The identity (address) of the mutex of the waiters in the queue (meaningful while it is
    /// not empty).
    mutex: usize,
}

/// The queue's lock: welltempered's default mutex (loom's under loom).
#[cfg(not(loom))]
type QueueLock = welltempered_lock::Mutex<Queue>;
#[cfg(loom)]
type QueueLock = loom::sync::Mutex<Queue>;

/// A wait was refused: another waiter in the queue uses a different mutex.
#[derive(Debug, PartialEq, Eq)]
pub struct OtherMutex;

/// The waiters of one condition variable.
#[derive(Debug)]
pub struct WaitQueue {
    queue: QueueLock,
}

impl Default for WaitQueue {
    fn default() -> Self {
        Self::new()
    }
}

impl WaitQueue {
    /// A queue nobody waits in.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            queue: welltempered_lock::Mutex::new(Queue {
                waiters: VecDeque::new(),
                mutex: 0,
            }),
        }
    }

    /// A queue nobody waits in.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            queue: loom::sync::Mutex::new(Queue {
                waiters: VecDeque::new(),
                mutex: 0,
            }),
        }
    }

    #[cfg(not(loom))]
    fn lock(&self) -> welltempered_lock::MutexGuard<'_, Queue> {
        self.queue.lock()
    }

    #[cfg(loom)]
    fn lock(&self) -> loom::sync::MutexGuard<'_, Queue> {
        self.queue
            .lock()
            .expect("the queue's lock is never poisoned")
    }

    /// Wakes the waiter that queued first, if any; returns whether there was one.
    pub fn notify_one(&self) -> bool {
        let waiter = {
            let mut q = self.lock();
            let Some(waiter) = q.waiters.pop_front() else {
                return false;
            };
            // Release: the waiter's Acquire load of its word sees this; set under the queue's
            // lock so that a waiter timing out, which looks for its node under the same lock,
            // finds either its node or its word set.
            waiter.notified.store(1, Ordering::Release);
            waiter
        };
        futex::wake(&waiter.notified, 1);
        true
    }

    /// Wakes every waiter; returns how many there were.
    pub fn notify_all(&self) -> usize {
        let waiters: Vec<Arc<Waiter>> = {
            let mut q = self.lock();
            for w in &q.waiters {
                // Release, under the queue's lock: as in `notify_one`.
                w.notified.store(1, Ordering::Release);
            }
            q.waiters.drain(..).collect()
        };
        for w in &waiters {
            futex::wake(&w.notified, 1);
        }
        waiters.len()
    }

    /// Waits for a notification or `deadline`: queues the caller (whose mutex is `mutex`, an
    /// identity), calls `release` (which unlocks the caller's mutex), sleeps, and calls
    /// `reacquire` (which locks it again) before it returns whether the wait timed out.
    ///
    /// Refused, with neither closure called, when another waiter uses a different mutex.
    /// `release` and `reacquire` must not unwind (the caller's lock would be left
    /// half-released); nothing else between them can.
    pub fn wait(
        &self,
        mutex: usize,
        release: impl FnOnce(),
        reacquire: impl FnOnce(),
        deadline: Option<Instant>,
    ) -> Result<bool, OtherMutex> {
        let me = Arc::new(Waiter {
            notified: AtomicU32::new(0),
        });
        {
            let mut q = self.lock();
            if q.waiters.is_empty() {
                q.mutex = mutex;
            } else if q.mutex != mutex {
                return Err(OtherMutex);
            }
            q.waiters.push_back(Arc::clone(&me));
        }
        release();
        let timed_out = loop {
            // Acquire: pairs with the notifier's Release store.
            if me.notified.load(Ordering::Acquire) != 0 {
                break false;
            }
            let timeout = match deadline {
                None => None,
                Some(deadline) => {
                    let now = Instant::now();
                    if now >= deadline {
                        let mut q = self.lock();
                        match q.waiters.iter().position(|w| Arc::ptr_eq(w, &me)) {
                            Some(i) => {
                                q.waiters.remove(i);
                                break true;
                            }
                            // A notifier took the node, and set its word, under this lock.
                            None => break false,
                        }
                    }
                    Some(deadline - now)
                }
            };
            futex::wait(&me.notified, 0, timeout);
        };
        reacquire();
        Ok(timed_out)
    }
}
