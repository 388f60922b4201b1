//! An eventcount: lets a thread sleep until a condition may have changed, while the thread
//! that changes it pays only a fence and a load when nobody sleeps.
//!
//! **Algorithm.** The eventcount of WTC's `runtime/waiter.hpp` (after Vyukov's), over a mutex
//! and a condition variable. A waiter announces itself (`waiters += 1`), reads the epoch,
//! re-checks its condition, and sleeps only while the epoch is unchanged. A notifier publishes
//! its change, issues a fence (the light side of an asymmetric pair, `fence.rs`, whose heavy side the
//! waiter issues), and only if `waiters > 0` bumps the epoch (under the
//! mutex) and wakes everyone. The announcement and the notifier's fence are a Dekker pair: either
//! the notifier sees the waiter, or the waiter's re-check sees the change. No lost wake-ups;
//! spurious ones are possible and callers loop.
//!
//! **Guarantees.** Blocking by nature. Three words, a mutex and a condition variable per
//! eventcount; nothing per thread.

use crate::fence;
use crate::sync::{AtomicUsize, Condvar, Mutex, Ordering};
use std::time::Instant;

/// See the module documentation.
pub(crate) struct EventCount {
    waiters: AtomicUsize,
    epoch: AtomicUsize,
    lock: Mutex<()>,
    cv: Condvar,
}

/// The epoch a waiter saw when it announced itself, and whether its heavy fence was ordered
/// (if not, a notifier may have missed the announcement: the wait is kept short).
#[derive(Clone, Copy)]
pub(crate) struct Key(usize, bool);

/// The longest sleep of a waiter whose heavy fence failed (see `fence.rs`): by the time it
/// re-checks, the notifiers that skipped their hardware fence are long done.
const UNORDERED_NAP: std::time::Duration = std::time::Duration::from_millis(1);

impl EventCount {
    /// An eventcount with no waiters.
    pub(crate) fn new() -> Self {
        Self {
            waiters: AtomicUsize::new(0),
            epoch: AtomicUsize::new(0),
            lock: Mutex::new(()),
            cv: Condvar::new(),
        }
    }

    /// Announces a waiter. Re-check the condition afterwards, then [`EventCount::wait`] or
    /// [`EventCount::cancel`].
    pub(crate) fn prepare(&self) -> Key {
        // The process starts its registration for the heavy fence at its first heavy fence,
        // not on its first channel, and on a helper thread (see `fence.rs`: a program that
        // neither sleeps nor sends long streams never pays it, and no thread waits for it).
        // Until it is done, light fences are full fences.
        fence::init();
        self.waiters.fetch_add(1, Ordering::SeqCst);
        // The waiter's half of the Dekker pair: the announcement before the re-check. The
        // heavy side of an asymmetric fence (`fence.rs`): a waiter has already spun.
        let ordered = fence::heavy();
        Key(self.epoch.load(Ordering::SeqCst), ordered)
    }

    /// Withdraws an announcement without sleeping.
    pub(crate) fn cancel(&self) {
        self.waiters.fetch_sub(1, Ordering::SeqCst);
    }

    /// Sleeps until notified after `key` was taken, or until `deadline`; withdraws the
    /// announcement. Returns `false` if the deadline passed.
    pub(crate) fn wait(&self, key: Key, deadline: Option<Instant>) -> bool {
        let mut timed_out = false;
        let nap = (!key.1).then(|| Instant::now() + UNORDERED_NAP);
        let (deadline, napping) = match (deadline, nap) {
            (Some(d), Some(n)) if n < d => (Some(n), true),
            (None, Some(n)) => (Some(n), true),
            (d, _) => (d, false),
        };
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        while self.epoch.load(Ordering::SeqCst) == key.0 {
            match deadline {
                None => guard = self.cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
                Some(d) => {
                    let now = Instant::now();
                    if now >= d {
                        timed_out = true;
                        break;
                    }
                    guard = self
                        .cv
                        .wait_timeout(guard, d - now)
                        .unwrap_or_else(|e| e.into_inner())
                        .0;
                }
            }
        }
        drop(guard);
        self.waiters.fetch_sub(1, Ordering::SeqCst);
        // The end of a nap is a spurious wake-up, not a timeout.
        napping || !timed_out
    }

    /// Wakes every sleeper if there is one. Call after publishing the change.
    #[inline]
    pub(crate) fn notify(&self) {
        // The notifier's half of the Dekker pair: the change before the check for waiters; the
        // light side of the asymmetric fence.
        fence::light();
        if self.waiters.load(Ordering::Relaxed) > 0 {
            self.notify_all();
        }
    }

    /// Wakes one sleeper if there is one: for a change that one waiter can use (one slot of
    /// room), where every sleeper waits for the same kind of change. A woken waiter always
    /// re-checks before it leaves (even at its deadline), so the change is used or was
    /// already taken by someone awake; other sleepers need not stampede for it.
    #[inline]
    pub(crate) fn notify_one(&self) {
        // As in `notify`.
        fence::light();
        if self.waiters.load(Ordering::Relaxed) > 0 {
            self.wake_one();
        }
    }

    #[cold]
    fn wake_one(&self) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // The epoch moves for everyone: a waiter between its announcement and its sleep sees
        // it and re-checks instead of sleeping; of those asleep, one is woken.
        self.epoch.fetch_add(1, Ordering::SeqCst);
        drop(guard);
        self.cv.notify_one();
    }

    /// Wakes every sleeper unconditionally (disconnection).
    pub(crate) fn notify_all(&self) {
        let guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.epoch.fetch_add(1, Ordering::SeqCst);
        drop(guard);
        self.cv.notify_all();
    }
}
