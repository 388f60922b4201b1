//! An eventcount: lets a thread sleep until a condition may have changed, while the thread
//! that changes it pays only a fence and a load when nobody sleeps.
//!
//! **Algorithm.** Dmitry Vyukov's eventcount
//! (<https://www.1024cores.net/home/lock-free-algorithms/eventcounts>), over a mutex and a
//! condition variable. A waiter announces itself (`waiters += 1`), reads the epoch,
//! re-checks its condition, and sleeps only while the epoch is unchanged. A notifier publishes
//! its change, issues a fence (the light side of an asymmetric pair, `fence.rs`, whose heavy side the
//! waiter issues), and only if `waiters > 0` bumps the epoch (under the
//! mutex) and wakes everyone. The announcement and the notifier's fence are a Dekker pair: either
//! the notifier sees the waiter, or the waiter's re-check sees the change. No lost wake-ups;
//! spurious ones are possible and callers loop.
//!
//! **Registrations.** A thread that waits on several eventcounts at once (a `select`) cannot
//! sleep on each condition variable; it registers a [`Signal`] with each instead
//! ([`EventCount::register`]), counted among the waiters, then issues one heavy fence and
//! re-checks, as a sleeper does. A notifier that finds waiters takes the whole list of
//! registrations out under the mutex (they are consumed: a woken selector registers again if
//! it sleeps again) and wakes them after releasing it, so nothing a wake-up does runs under the
//! eventcount's mutex.
//!
//! **Guarantees.** Blocking by nature. Three words, a mutex guarding the registrations and a
//! condition variable per eventcount; nothing per thread.

use crate::fence;
use crate::sync::{Arc, AtomicBool, AtomicUsize, Condvar, Mutex, Ordering};
#[cfg(not(loom))]
use std::thread::Thread;
use std::time::Instant;

/// See the module documentation.
pub(crate) struct EventCount {
    waiters: AtomicUsize,
    epoch: AtomicUsize,
    /// The signals registered by waiters that do not sleep on `cv`.
    lock: Mutex<Vec<Arc<Signal>>>,
    cv: Condvar,
}

/// How a registered waiter is woken: a flag, and the thread to unpark or the task's waker.
///
/// Under loom a thread's wake-up is a mutex and condition variable instead of `park`/`unpark`:
/// loom's `unpark` also resumes a thread blocked on something else (a mutex), which std's does
/// not (it only leaves a token for the next `park`), and a late `unpark` from an earlier round
/// is normal here (<https://github.com/tokio-rs/loom/issues/249>).
pub(crate) struct Signal {
    woken: AtomicBool,
    how: How,
}

enum How {
    #[cfg(not(loom))]
    Thread(Thread),
    #[cfg(loom)]
    Thread { lock: Mutex<()>, cv: Condvar },
    /// A task: the waker of its latest poll. `AtomicWaker` lets the notifier take and wake it
    /// while a poll replaces it, without a lock around either (a waker's `wake` and `clone`
    /// are user code).
    Task(atomic_waker::AtomicWaker),
}

impl Signal {
    /// A signal that wakes the calling thread.
    pub(crate) fn for_current_thread() -> Arc<Self> {
        Arc::new(Self {
            woken: AtomicBool::new(false),
            #[cfg(not(loom))]
            how: How::Thread(std::thread::current()),
            #[cfg(loom)]
            how: How::Thread {
                lock: Mutex::new(()),
                cv: Condvar::new(),
            },
        })
    }

    /// A signal that wakes a task (set its waker with [`Signal::set_waker`] at each poll).
    pub(crate) fn for_task() -> Arc<Self> {
        Arc::new(Self {
            woken: AtomicBool::new(false),
            how: How::Task(atomic_waker::AtomicWaker::new()),
        })
    }

    /// Sets the waker a task's signal wakes (a task signal only).
    pub(crate) fn set_waker(&self, waker: &std::task::Waker) {
        if let How::Task(w) = &self.how {
            w.register(waker);
        }
    }

    /// Forgets earlier wake-ups; call before registering.
    pub(crate) fn reset(&self) {
        // Relaxed: the registration that follows is ordered by the eventcount's mutex and
        // the heavy fence; a late wake-up from an earlier round only costs a spurious wake.
        self.woken.store(false, Ordering::Relaxed);
    }

    /// Whether a notification woke this signal since its last reset (and so took its
    /// registrations: it must register again to be woken again); clears the flag.
    pub(crate) fn take_woken(&self) -> bool {
        // Acquire: pairs with `wake`.
        self.woken.swap(false, Ordering::Acquire)
    }

    /// Wakes the waiter.
    fn wake(&self) {
        match &self.how {
            #[cfg(not(loom))]
            How::Thread(thread) => {
                // Release: what the notifier published before is visible to the waiter that
                // sees the flag (it re-checks anyway).
                self.woken.store(true, Ordering::Release);
                thread.unpark();
            }
            #[cfg(loom)]
            How::Thread { lock, cv } => {
                let guard = lock.lock().unwrap_or_else(|e| e.into_inner());
                self.woken.store(true, Ordering::Release);
                drop(guard);
                cv.notify_one();
            }
            How::Task(waker) => {
                // Release: as for a thread.
                self.woken.store(true, Ordering::Release);
                waker.wake();
            }
        }
    }

    /// Parks the calling thread (the one a thread signal was made on) until woken or until
    /// `deadline`. Returns whether it was woken.
    pub(crate) fn park(&self, deadline: Option<Instant>) -> bool {
        #[cfg(loom)]
        let How::Thread { lock, cv } = &self.how else {
            unreachable!("a task's signal is not parked on");
        };
        #[cfg(loom)]
        let mut guard = lock.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            // Acquire: pairs with `wake`.
            if self.woken.load(Ordering::Acquire) {
                return true;
            }
            match deadline {
                Some(d) if Instant::now() >= d => return false,
                #[cfg(not(loom))]
                Some(d) => std::thread::park_timeout(d - Instant::now()),
                #[cfg(not(loom))]
                None => std::thread::park(),
                // Loom has no time: models use no deadlines.
                #[cfg(loom)]
                _ => guard = cv.wait(guard).unwrap_or_else(|e| e.into_inner()),
            }
        }
    }
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
            lock: Mutex::new(Vec::new()),
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

    /// Registers `signal` to be woken by the next notification, counted as a waiter. After
    /// registering with every eventcount it waits on, the caller issues one heavy fence
    /// ([`fence::heavy`]) and re-checks its conditions; then sleeps on the signal (with a
    /// short nap if the fence was not ordered) and [`EventCount::unregister`]s.
    pub(crate) fn register(&self, signal: &Arc<Signal>) {
        fence::init();
        let mut list = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        list.push(signal.clone());
        drop(list);
        // After the push: a notifier that sees the count takes the mutex after us and finds
        // the signal. SeqCst: the announcement of the Dekker pair, as in `prepare`.
        self.waiters.fetch_add(1, Ordering::SeqCst);
    }

    /// Withdraws `signal` if no notification has taken it yet.
    pub(crate) fn unregister(&self, signal: &Arc<Signal>) {
        let mut list = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let found = list.iter().position(|s| Arc::ptr_eq(s, signal));
        if let Some(i) = found {
            list.swap_remove(i);
        }
        drop(list);
        if found.is_some() {
            // Whoever takes a registration out of the list withdraws its count.
            self.waiters.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Takes every registration out (under the mutex, which the caller holds through
    /// `list`) and withdraws their counts; the caller wakes them after unlocking.
    fn take_registered(&self, list: &mut Vec<Arc<Signal>>) -> Vec<Arc<Signal>> {
        let taken = core::mem::take(list);
        if !taken.is_empty() {
            self.waiters.fetch_sub(taken.len(), Ordering::SeqCst);
        }
        taken
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
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // The epoch moves for everyone: a waiter between its announcement and its sleep sees
        // it and re-checks instead of sleeping; of those asleep, one is woken. Registered
        // waiters (selectors) are all woken: one of them may be the only one who can use it.
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let registered = self.take_registered(&mut guard);
        drop(guard);
        self.cv.notify_one();
        for s in &registered {
            s.wake();
        }
    }

    /// Wakes every sleeper unconditionally (disconnection).
    pub(crate) fn notify_all(&self) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let registered = self.take_registered(&mut guard);
        drop(guard);
        self.cv.notify_all();
        for s in &registered {
            s.wake();
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn waiters(ec: &EventCount) -> usize {
        ec.waiters.load(Ordering::SeqCst)
    }

    /// A registration counts as a waiter until a notification takes it or it is withdrawn;
    /// both notifications wake it, and a withdrawal after a notification changes nothing.
    #[test]
    fn registrations_are_counted_woken_and_withdrawn_once() {
        let ec = EventCount::new();
        let signal = Signal::for_current_thread();
        signal.reset();
        ec.register(&signal);
        assert_eq!(waiters(&ec), 1);
        ec.notify_one();
        assert_eq!(waiters(&ec), 0, "the notification took the registration");
        assert!(signal.park(Some(Instant::now())), "woken");
        ec.unregister(&signal);
        assert_eq!(waiters(&ec), 0, "withdrawn once only");

        signal.reset();
        ec.register(&signal);
        ec.register(&Signal::for_current_thread());
        assert_eq!(waiters(&ec), 2);
        ec.unregister(&signal);
        assert_eq!(waiters(&ec), 1);
        ec.notify();
        assert_eq!(waiters(&ec), 0);
        assert!(
            !signal.park(Some(Instant::now())),
            "withdrawn before the notification"
        );
    }

    /// A signal parked on another thread is woken by a notification of an eventcount it is
    /// registered with; one that is not woken returns at its deadline.
    #[test]
    fn a_registered_thread_is_woken() {
        let ec = std::sync::Arc::new(EventCount::new());
        let (tx, rx) = std::sync::mpsc::channel();
        let ec2 = ec.clone();
        let waiter = std::thread::spawn(move || {
            let signal = Signal::for_current_thread();
            signal.reset();
            ec2.register(&signal);
            tx.send(()).unwrap();
            let woken = signal.park(None);
            ec2.unregister(&signal);
            woken
        });
        rx.recv().unwrap();
        ec.notify_all();
        assert!(waiter.join().unwrap());
        let signal = Signal::for_current_thread();
        signal.reset();
        assert!(!signal.park(Some(Instant::now() + Duration::from_millis(1))));
    }
}
