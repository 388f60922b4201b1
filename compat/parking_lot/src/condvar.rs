//! parking_lot's `Condvar`: a condition variable for [`crate::Mutex`], with parking_lot's API.
//!
//! **Algorithm.** The waiting protocol is [`crate::wait_queue`]'s: a FIFO queue of waiters,
//! each sleeping on a futex word of its own (parking_lot's queue-per-condition-variable
//! design). This file adds the mutex: a wait unlocks the guard's raw mutex after queueing and
//! locks it again before returning.
//!
//! **Guarantees.** No spurious wake-ups: a wait returns only when notified or timed out.
//! `notify_one` returns whether it woke a waiter and `notify_all` how many, exactly (a waiter
//! counts from the moment it queued, under the mutex). Waiters are woken in the order they
//! queued. Using the condition variable with two mutexes at once panics, before the wait
//! changes anything (as parking_lot's). Unlike welltempered's own `Condvar`, `notify_all` wakes
//! every waiter at once rather than moving them onto the mutex: each waiter has its own word.
//! The predicate of `wait_while` (user code) runs only with the mutex held, between waits.
//!
//! Memory: the queue (a `VecDeque` behind welltempered's 8-byte mutex) and one allocation per
//! wait.

use crate::RawMutex;
use crate::lock_api::MutexGuard;
use crate::wait_queue::WaitQueue;
use core::ops::DerefMut;
use std::time::{Duration, Instant};

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
    queue: WaitQueue,
}

impl Condvar {
    /// A condition variable nobody waits on.
    #[inline]
    pub const fn new() -> Condvar {
        Condvar {
            queue: WaitQueue::new(),
        }
    }

    /// Wakes the waiter that queued first, if any; returns whether there was one.
    #[inline]
    pub fn notify_one(&self) -> bool {
        self.queue.notify_one()
    }

    /// Wakes every waiter; returns how many there were.
    #[inline]
    pub fn notify_all(&self) -> usize {
        self.queue.notify_all()
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
        let waited = self.queue.wait(
            core::ptr::from_ref(mutex) as usize,
            // SAFETY: the guard borrowed above holds the mutex; `reacquire` locks it again
            // before the guard is given back, and nothing between can unwind.
            || unsafe { mutex.release() },
            || mutex.reacquire(),
            deadline,
        );
        match waited {
            Ok(timed_out) => WaitTimeoutResult(timed_out),
            // Nothing has changed: the mutex is still held, the queue untouched.
            Err(_) => panic!("attempted to use a condition variable with more than one mutex"),
        }
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
