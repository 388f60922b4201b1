//! parking_lot's `Condvar`: a condition variable for [`crate::Mutex`], as a FIFO queue of
//! waiters, each sleeping on a futex word of its own.
//!
//! **Algorithm.** The queue-per-condition-variable design of parking_lot's `Condvar`
//! (Amanieu d'Antras, <https://github.com/Amanieu/parking_lot>, after WebKit's `ParkingLot`,
//! Filip Pizlo, "Locking in WebKit", 2016, <https://webkit.org/blog/6161/locking-in-webkit/>),
//! with the queue held by the condition variable itself rather than a global hash table:
//! - A waiter puts a node of its own (a reference-counted futex word) at the back of the queue
//!   while it still holds the mutex, then unlocks the mutex and sleeps until its word is set.
//!   Any notification that comes after the unlock therefore finds it in the queue.
//! - `notify_one` takes the front node out under the queue's lock, sets its word there, and
//!   wakes it after releasing the queue; `notify_all` does the same for every node.
//! - A timed waiter whose deadline passes takes its node out under the queue's lock: if the
//!   node is gone, a notifier took it first (and set its word under that lock), and the wait
//!   counts as notified.
//!
//! **Guarantees.** No spurious wake-ups: a wait returns only when notified or timed out.
//! `notify_one` returns whether it woke a waiter and `notify_all` how many, exactly (a waiter
//! counts from the moment it queued, under the mutex). Waiters are woken in the order they
//! queued. Using the condition variable with two mutexes at once panics, before the wait
//! changes anything (as parking_lot's). Unlike welltempered's own `Condvar`, `notify_all` wakes
//! every waiter at once rather than moving them onto the mutex: each node has its own word.
//! A notifier touches a waiter's word only through its own reference to the node, so a waiter
//! that returns and drops its reference never leaves a notifier with a dangling word.
//!
//! Memory: the queue (a `VecDeque` behind welltempered's 8-byte mutex) and one allocation per
//! wait.

use crate::RawMutex;
use crate::lock_api::MutexGuard;
use core::ops::DerefMut;
use core::sync::atomic::{AtomicU32, Ordering};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};
use welltempered_lock::futex;

/// Whether a timed wait on a [`Condvar`] ended by its timeout.
#[derive(Debug, PartialEq, Eq, Copy, Clone)]
pub struct WaitTimeoutResult(bool);

impl WaitTimeoutResult {
    /// Whether the wait timed out (rather than being notified).
    #[inline]
    pub fn timed_out(self) -> bool {
        self.0
    }
}

/// One waiter's node: its futex word, 0 while it waits, 1 once notified.
#[derive(Debug)]
struct Waiter {
    notified: AtomicU32,
}

/// The waiters, in the order they queued, and the mutex they use.
#[derive(Debug)]
struct Queue {
    waiters: VecDeque<Arc<Waiter>>,
    /// The address of the mutex of the waiters in the queue (meaningful while it is not
    /// empty).
    mutex: usize,
}

/// A condition variable for [`crate::Mutex`], with parking_lot's API.
///
/// ```
/// use parking_lot::{Condvar, Mutex};
/// use std::time::Duration;
///
/// let m = Mutex::new(0);
/// let c = Condvar::new();
/// let mut g = m.lock();
/// // Nobody notifies: the wait times out, and nobody was woken by a later notification.
/// assert!(c.wait_for(&mut g, Duration::from_millis(1)).timed_out());
/// assert!(!c.notify_one());
/// ```
pub struct Condvar {
    queue: welltempered_lock::Mutex<Queue>,
}

impl Condvar {
    /// A condition variable nobody waits on.
    #[inline]
    pub const fn new() -> Condvar {
        Condvar {
            queue: welltempered_lock::Mutex::new(Queue {
                waiters: VecDeque::new(),
                mutex: 0,
            }),
        }
    }

    /// Wakes the waiter that queued first, if any; returns whether there was one.
    #[inline]
    pub fn notify_one(&self) -> bool {
        let waiter = {
            let mut q = self.queue.lock();
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
    #[inline]
    pub fn notify_all(&self) -> usize {
        let waiters: Vec<Arc<Waiter>> = {
            let mut q = self.queue.lock();
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

    /// Unlocks the guard's mutex, waits for a notification, and locks it again.
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait<T: ?Sized>(&self, mutex_guard: &mut MutexGuard<'_, RawMutex, T>) {
        self.wait_until_internal(mutex_guard, None);
    }

    /// As [`Self::wait`], giving up at `timeout`.
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait_until<T: ?Sized>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        timeout: Instant,
    ) -> WaitTimeoutResult {
        self.wait_until_internal(mutex_guard, Some(timeout))
    }

    /// As [`Self::wait`], giving up after `timeout` (a timeout beyond the clock's range waits
    /// for a notification only).
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait_for<T: ?Sized>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        timeout: Duration,
    ) -> WaitTimeoutResult {
        self.wait_until_internal(mutex_guard, Instant::now().checked_add(timeout))
    }

    /// Waits while `condition` holds of the protected data (checked first, and after every
    /// wake-up).
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait_while<T, F>(&self, mutex_guard: &mut MutexGuard<'_, RawMutex, T>, condition: F)
    where
        T: ?Sized,
        F: FnMut(&mut T) -> bool,
    {
        self.wait_while_until_internal(mutex_guard, condition, None);
    }

    /// As [`Self::wait_while`], giving up at `timeout`; the result says whether it timed out
    /// (the condition may still hold).
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait_while_until<T, F>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        condition: F,
        timeout: Instant,
    ) -> WaitTimeoutResult
    where
        T: ?Sized,
        F: FnMut(&mut T) -> bool,
    {
        self.wait_while_until_internal(mutex_guard, condition, Some(timeout))
    }

    /// As [`Self::wait_while`], giving up after `timeout`.
    ///
    /// # Panics
    /// If another thread waits on this condition variable with a different mutex.
    #[inline]
    pub fn wait_while_for<T: ?Sized, F>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        condition: F,
        timeout: Duration,
    ) -> WaitTimeoutResult
    where
        F: FnMut(&mut T) -> bool,
    {
        self.wait_while_until_internal(mutex_guard, condition, Instant::now().checked_add(timeout))
    }

    fn wait_while_until_internal<T, F>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        mut condition: F,
        timeout: Option<Instant>,
    ) -> WaitTimeoutResult
    where
        T: ?Sized,
        F: FnMut(&mut T) -> bool,
    {
        let mut result = WaitTimeoutResult(false);
        // The condition (user code) runs only while the mutex is held, between waits.
        while !result.timed_out() && condition(mutex_guard.deref_mut()) {
            result = self.wait_until_internal(mutex_guard, timeout);
        }
        result
    }

    fn wait_until_internal<T: ?Sized>(
        &self,
        mutex_guard: &mut MutexGuard<'_, RawMutex, T>,
        deadline: Option<Instant>,
    ) -> WaitTimeoutResult {
        // SAFETY: only the raw mutex is used, to unlock and relock it for the guard that the
        // caller lends us for the whole call; the data is not touched meanwhile.
        let mutex: &RawMutex = unsafe { MutexGuard::mutex(mutex_guard).raw() };
        let me = Arc::new(Waiter {
            notified: AtomicU32::new(0),
        });
        {
            let mut q = self.queue.lock();
            let address = core::ptr::from_ref(mutex) as usize;
            if q.waiters.is_empty() {
                q.mutex = address;
            } else if q.mutex != address {
                drop(q);
                // Nothing has changed yet: the mutex is still held, the queue untouched.
                panic!("attempted to use a condition variable with more than one mutex");
            }
            q.waiters.push_back(Arc::clone(&me));
        }
        // SAFETY: the guard borrowed above holds the mutex; it is locked again below before
        // the guard is given back, and nothing between can unwind.
        unsafe { mutex.release() };
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
                        let mut q = self.queue.lock();
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
        mutex.reacquire();
        WaitTimeoutResult(timed_out)
    }
}

impl Default for Condvar {
    #[inline]
    fn default() -> Condvar {
        Condvar::new()
    }
}

impl core::fmt::Debug for Condvar {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.pad("Condvar { .. }")
    }
}

#[cfg(test)]
mod tests {
    use super::Condvar;
    use crate::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn counts_are_exact() {
        let m = Mutex::new(0usize);
        let c = Condvar::new();
        let queued = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..3 {
                s.spawn(|| {
                    let mut g = m.lock();
                    queued.fetch_add(1, Ordering::Relaxed);
                    c.wait_while(&mut g, |go| *go == 0);
                    *g += 1;
                });
            }
            // A waiter counts once it queued, which it does before it lets go of the mutex.
            loop {
                let mut g = m.lock();
                if queued.load(Ordering::Relaxed) == 3 {
                    *g = 1;
                    assert_eq!(c.notify_all(), 3);
                    break;
                }
            }
        });
        assert_eq!(*m.lock(), 4);
        assert_eq!(c.notify_all(), 0);
        assert!(!c.notify_one());
    }

    #[test]
    fn notify_one_wakes_in_queue_order() {
        let m = Mutex::new(Vec::new());
        let c = Condvar::new();
        std::thread::scope(|s| {
            for i in 0..4 {
                // Each waiter queues before the next starts.
                let g = m.lock();
                let started = g.len();
                drop(g);
                let (m, c) = (&m, &c);
                s.spawn(move || {
                    let mut g = m.lock();
                    g.push(i);
                    c.wait(&mut g);
                    g.push(10 + i);
                });
                while m.lock().len() == started {
                    std::thread::yield_now();
                }
            }
            for i in 0..4 {
                loop {
                    let g = m.lock();
                    if g.len() == 4 + i {
                        assert!(c.notify_one());
                        break;
                    }
                    drop(g);
                    std::thread::yield_now();
                }
            }
        });
        assert_eq!(*m.lock(), [0, 1, 2, 3, 10, 11, 12, 13]);
    }

    #[test]
    fn a_timed_out_waiter_leaves_the_queue() {
        let m = Mutex::new(());
        let c = Condvar::new();
        let mut g = m.lock();
        assert!(c.wait_for(&mut g, Duration::from_millis(2)).timed_out());
        assert!(!c.notify_one());
        let r = c.wait_while_for(&mut g, |_| true, Duration::from_millis(1));
        assert!(r.timed_out());
    }

    #[test]
    fn two_mutexes_panic_before_waiting() {
        let m1 = Mutex::new(false);
        let m2 = Mutex::new(());
        let c = Condvar::new();
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut g1 = m1.lock();
                *g1 = true;
                c.wait(&mut g1);
            });
            // Once the flag is seen under m1, the waiter has queued (it queues before it lets
            // go of m1): waiting with m2 now panics, with m2 still held and nothing queued.
            while !*m1.lock() {
                std::thread::yield_now();
            }
            let mut g2 = m2.lock();
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| c.wait(&mut g2)));
            assert!(r.is_err());
            assert!(m2.is_locked());
            drop(g2);
            assert!(c.notify_one());
            assert!(!c.notify_one());
        });
    }
}
