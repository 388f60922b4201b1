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
//! **Tasks.** A heavy fence (`membarrier`) costs a system call, which an async task would pay
//! at every wait: a ping-pong of tasks waits on every receive. So the first task that
//! registers with an eventcount sets its `TASKS` mark, and from then on every notifier of that
//! eventcount that finds its waiter word non-zero issues a `SeqCst` fence before it reads the
//! count again. The task issues one heavy fence after setting the mark, as any waiter does, and
//! once one has returned ordered it sets `ARMED`. A waiter that finds `ARMED` (read by its own
//! announcement) pairs with the notifiers through a `SeqCst` fence of its own instead of a
//! heavy one. Why no notifier can miss it: a notifier whose read of the waiter word comes after
//! the arming heavy fence reads the mark (the heavy fence made it visible, or, before the
//! process is registered with `membarrier`, the release sequence of `fence.rs` orders the mark
//! before every light fence that skips the hardware fence), so the two `SeqCst` fences order the
//! pair; a notifier that read before it made its change visible to everything the heavy
//! fence's caller and its successors read afterwards. The marks are never cleared: on a
//! channel once awaited, every notification issues a `SeqCst` fence besides its light fence (a
//! fence, not a lock: less than the async peers pay).
//!
//! **Sleepers.** The mutex also guards a count of the threads inside [`EventCount::wait`], so a
//! notifier signals the condition variable only when one may sleep on it: std's futex-based
//! `Condvar` makes a system call at every notification, sleeper or not.
//!
//! **Guarantees.** Blocking by nature. Three words, a mutex guarding the registrations and the
//! sleepers' count, and a condition variable per eventcount; nothing per thread.

use crate::fence;
use crate::sync::{Arc, AtomicBool, AtomicUsize, Condvar, Mutex, Ordering, fence as atomic_fence};
#[cfg(not(loom))]
use std::thread::Thread;
use std::time::Instant;

/// See the module documentation.
pub(crate) struct EventCount {
    /// The number of waiters (sleepers and registrations) in the low bits, and the marks
    /// `TASKS` and `ARMED` (see the module documentation).
    waiters: AtomicUsize,
    epoch: AtomicUsize,
    /// The registrations, and the threads asleep on `cv`.
    lock: Mutex<Waiters>,
    cv: Condvar,
}

/// What the eventcount's mutex guards.
struct Waiters {
    /// The signals registered by waiters that do not sleep on `cv`.
    signals: Vec<Arc<Signal>>,
    /// Threads between their check of the epoch and their return from `cv`'s wait: a
    /// notifier that finds none skips the condition variable, whose notification is a system
    /// call whether or not anyone sleeps (std's futex-based `Condvar` keeps no count).
    sleepers: usize,
}

/// The registrations a notification took, woken after the mutex is released. The first is
/// apart so that taking one registration leaves the list's buffer in place (no allocation per
/// wait when one task or selector waits at a time).
struct Taken {
    first: Option<Arc<Signal>>,
    rest: Vec<Arc<Signal>>,
    /// Whether a thread sleeps on the condition variable.
    sleepers: bool,
}

impl Taken {
    /// Wakes every registration taken. A task's waker is user code and may panic: the others
    /// are woken all the same (they are no longer registered, so nothing else would wake
    /// them), and the first panic is resumed afterwards.
    fn wake(self) {
        let mut panic = None;
        for s in self.first.iter().chain(&self.rest) {
            let woken = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| s.wake()));
            if let Err(payload) = woken {
                panic.get_or_insert(payload);
            }
        }
        if let Some(payload) = panic {
            std::panic::resume_unwind(payload);
        }
    }
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
    pub(crate) fn wake(&self) {
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

/// The mark of an eventcount a task has registered with: notifiers that find it fence fully
/// before they read the count.
const TASKS: usize = 1 << (usize::BITS - 1);
/// The mark of an eventcount whose `TASKS` mark a heavy fence has made visible to every
/// notifier: its waiters may pair with them through a `SeqCst` fence.
const ARMED: usize = 1 << (usize::BITS - 2);
/// The waiter count's bits.
const COUNT: usize = !(TASKS | ARMED);

/// The longest sleep of a waiter whose heavy fence failed (see `fence.rs`): by the time it
/// re-checks, the notifiers that skipped their hardware fence are long done.
const UNORDERED_NAP: std::time::Duration = std::time::Duration::from_millis(1);

impl EventCount {
    /// An eventcount with no waiters.
    pub(crate) fn new() -> Self {
        Self {
            waiters: AtomicUsize::new(0),
            epoch: AtomicUsize::new(0),
            lock: Mutex::new(Waiters {
                signals: Vec::new(),
                sleepers: 0,
            }),
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
        let before = self.waiters.fetch_add(1, Ordering::SeqCst);
        // The waiter's half of the Dekker pair: the announcement before the re-check. The
        // heavy side of an asymmetric fence (`fence.rs`): a waiter has already spun. Where a
        // task armed the eventcount, notifiers fence fully and a `SeqCst` fence pairs with
        // theirs.
        let ordered = if before & ARMED != 0 {
            atomic_fence(Ordering::SeqCst);
            true
        } else {
            fence::heavy()
        };
        Key(self.epoch.load(Ordering::SeqCst), ordered)
    }

    /// Registers `signal` to be woken by the next notification, counted as a waiter. After
    /// registering with every eventcount it waits on, the caller issues one heavy fence
    /// ([`fence::heavy`]) and re-checks its conditions; then sleeps on the signal (with a
    /// short nap if the fence was not ordered) and [`EventCount::unregister`]s.
    pub(crate) fn register(&self, signal: &Arc<Signal>) {
        fence::init();
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        guard.signals.push(signal.clone());
        drop(guard);
        // After the push: a notifier that sees the count takes the mutex after us and finds
        // the signal. SeqCst: the announcement of the Dekker pair, as in `prepare`.
        self.waiters.fetch_add(1, Ordering::SeqCst);
    }

    /// Registers a task's `signal` as [`EventCount::register`] does, and issues the waiter's
    /// fence: a `SeqCst` fence once the eventcount is armed for tasks, else (the first time,
    /// or until a heavy fence has been ordered) it sets the `TASKS` mark, issues a heavy
    /// fence and, if that was ordered, sets `ARMED` (see the module documentation). The
    /// caller re-checks its condition afterwards. Returns whether the fence was ordered, as
    /// [`fence::heavy`] does.
    pub(crate) fn register_task(&self, signal: &Arc<Signal>) -> bool {
        fence::init();
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        guard.signals.push(signal.clone());
        drop(guard);
        // SeqCst: the announcement, as in `register`; it also reads the marks.
        let before = self.waiters.fetch_add(1, Ordering::SeqCst);
        self.order_task(before)
    }

    /// The fence of a task that re-checks after its registration (already counted: `before` is
    /// the waiter word as its announcement found it, or as read now).
    pub(crate) fn order_task(&self, before: usize) -> bool {
        if before & ARMED != 0 {
            // Notifiers that can miss this waiter's announcement fence fully (see the module
            // documentation): the other half of that pair.
            atomic_fence(Ordering::SeqCst);
            return true;
        }
        if before & TASKS == 0 {
            // SeqCst: ordered before the heavy fence below, which publishes it.
            self.waiters.fetch_or(TASKS, Ordering::SeqCst);
        }
        let ordered = fence::heavy();
        if ordered {
            // Relaxed: only waiters read `ARMED`, through their announcements, and they only
            // need the heavy fence above to have been issued, which it has (in real time, for
            // `membarrier`; see the module documentation for the fallback).
            self.waiters.fetch_or(ARMED, Ordering::Relaxed);
        }
        ordered
    }

    /// The waiter word now, for a task already registered that must fence again.
    pub(crate) fn marks(&self) -> usize {
        self.waiters.load(Ordering::SeqCst)
    }

    /// Withdraws `signal` if no notification has taken it yet.
    pub(crate) fn unregister(&self, signal: &Arc<Signal>) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let found = guard.signals.iter().position(|s| Arc::ptr_eq(s, signal));
        if let Some(i) = found {
            guard.signals.swap_remove(i);
        }
        drop(guard);
        if found.is_some() {
            // Whoever takes a registration out of the list withdraws its count.
            self.waiters.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Moves the epoch and takes every registration out (under the mutex, which the caller
    /// holds through `guard`), withdrawing their counts; the caller wakes them, and the
    /// sleepers if there are any, after unlocking.
    fn take_registered(&self, guard: &mut Waiters) -> Taken {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let first = guard.signals.pop();
        let rest = if guard.signals.is_empty() {
            Vec::new()
        } else {
            core::mem::take(&mut guard.signals)
        };
        let n = usize::from(first.is_some()) + rest.len();
        if n != 0 {
            self.waiters.fetch_sub(n, Ordering::SeqCst);
        }
        Taken {
            first,
            rest,
            sleepers: guard.sleepers != 0,
        }
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
        // Counted while it may wait on `cv` (see `Waiters::sleepers`); a notifier reads the
        // count under the mutex after moving the epoch.
        guard.sleepers += 1;
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
        guard.sleepers -= 1;
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
        let w = self.waiters.load(Ordering::Relaxed);
        if w != 0 && self.has_waiters(w) {
            self.notify_all();
        }
    }

    /// Whether the waiter word `w` (non-zero, read after the light fence) counts a waiter; on
    /// an eventcount tasks wait on, after a `SeqCst` fence (see the module documentation).
    #[inline]
    fn has_waiters(&self, w: usize) -> bool {
        if w & TASKS == 0 {
            return true;
        }
        atomic_fence(Ordering::SeqCst);
        self.waiters.load(Ordering::Relaxed) & COUNT != 0
    }

    /// Wakes one sleeper if there is one: for a change that one waiter can use (one slot of
    /// room), where every sleeper waits for the same kind of change. A woken waiter always
    /// re-checks before it leaves (even at its deadline), so the change is used or was
    /// already taken by someone awake; other sleepers need not stampede for it.
    #[inline]
    pub(crate) fn notify_one(&self) {
        // As in `notify`.
        fence::light();
        let w = self.waiters.load(Ordering::Relaxed);
        if w != 0 && self.has_waiters(w) {
            self.wake_one();
        }
    }

    #[cold]
    fn wake_one(&self) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        // The epoch moves for everyone: a waiter between its announcement and its sleep sees
        // it and re-checks instead of sleeping; of those asleep, one is woken. Registered
        // waiters (selectors) are all woken: one of them may be the only one who can use it.
        let taken = self.take_registered(&mut guard);
        drop(guard);
        if taken.sleepers {
            self.cv.notify_one();
        }
        taken.wake();
    }

    /// Wakes every sleeper unconditionally (disconnection).
    pub(crate) fn notify_all(&self) {
        let mut guard = self.lock.lock().unwrap_or_else(|e| e.into_inner());
        let taken = self.take_registered(&mut guard);
        drop(guard);
        if taken.sleepers {
            self.cv.notify_all();
        }
        taken.wake();
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::time::Duration;

    fn waiters(ec: &EventCount) -> usize {
        ec.waiters.load(Ordering::SeqCst) & COUNT
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

    /// A task waker that counts its wake-ups, or panics in them.
    struct CountingWaker {
        woken: std::sync::atomic::AtomicUsize,
        panics: bool,
    }

    impl std::task::Wake for CountingWaker {
        fn wake(self: std::sync::Arc<Self>) {
            self.wake_by_ref();
        }
        fn wake_by_ref(self: &std::sync::Arc<Self>) {
            self.woken.fetch_add(1, Ordering::SeqCst);
            assert!(!self.panics, "a waker that panics");
        }
    }

    fn task_signal(panics: bool) -> (Arc<Signal>, std::sync::Arc<CountingWaker>) {
        let counter = std::sync::Arc::new(CountingWaker {
            woken: std::sync::atomic::AtomicUsize::new(0),
            panics,
        });
        let signal = Signal::for_task();
        signal.set_waker(&std::task::Waker::from(counter.clone()));
        (signal, counter)
    }

    /// A task's first registration marks the eventcount for tasks and, once its heavy fence is
    /// ordered, arms it; the marks outlive the registrations, are not counted as waiters, and
    /// a notifier that finds only the marks wakes nobody. A registration on an armed
    /// eventcount is woken like the first.
    #[test]
    fn a_task_registration_arms_the_eventcount() {
        let ec = EventCount::new();
        let (signal, counter) = task_signal(false);
        ec.notify();
        assert_eq!(ec.marks(), 0, "no marks before a task waits");
        signal.reset();
        assert!(ec.register_task(&signal), "the heavy fence is ordered");
        assert_eq!(ec.marks(), TASKS | ARMED | 1);
        ec.notify();
        assert_eq!(counter.woken.load(Ordering::SeqCst), 1);
        assert!(signal.take_woken());
        assert_eq!(
            ec.marks(),
            TASKS | ARMED,
            "the marks stay, the count is withdrawn"
        );
        ec.notify_one();
        assert_eq!(counter.woken.load(Ordering::SeqCst), 1, "nobody waits");

        // A poll sets its waker again before it registers (a wake-up consumes it).
        signal.set_waker(&std::task::Waker::from(counter.clone()));
        signal.reset();
        assert!(ec.register_task(&signal));
        assert!(
            ec.order_task(ec.marks()),
            "a second fence on an armed eventcount"
        );
        assert_eq!(waiters(&ec), 1);
        ec.notify_one();
        assert_eq!(counter.woken.load(Ordering::SeqCst), 2);
        assert_eq!(waiters(&ec), 0);
    }

    /// A waker that panics does not keep the other registrations asleep: they were taken out
    /// of the list, so the notifier wakes them all before it resumes the panic.
    #[test]
    fn a_panicking_waker_does_not_keep_others_asleep() {
        let ec = EventCount::new();
        let (boom, boom_count) = task_signal(true);
        let (other, other_count) = task_signal(false);
        for s in [&boom, &other, &boom] {
            s.reset();
        }
        ec.register_task(&boom);
        ec.register_task(&other);
        let thread = Signal::for_current_thread();
        thread.reset();
        ec.register(&thread);
        let notified = std::panic::catch_unwind(|| ec.notify());
        assert!(notified.is_err(), "the waker's panic reaches the notifier");
        assert_eq!(boom_count.woken.load(Ordering::SeqCst), 1);
        assert_eq!(other_count.woken.load(Ordering::SeqCst), 1);
        assert!(
            thread.park(Some(Instant::now())),
            "the thread was woken too"
        );
        assert_eq!(waiters(&ec), 0);
        ec.notify();
        assert_eq!(
            boom_count.woken.load(Ordering::SeqCst),
            1,
            "nothing left registered"
        );
    }

    /// A waker whose `wake` re-enters the same eventcount (registers its signal again and
    /// notifies) runs after the notifier released the mutex: no deadlock, and the nested
    /// notification takes the new registration.
    #[test]
    fn a_waker_may_re_enter_the_eventcount() {
        struct Reenter {
            ec: std::sync::Arc<EventCount>,
            signal: std::sync::Mutex<Option<Arc<Signal>>>,
            woken: std::sync::atomic::AtomicUsize,
        }
        impl std::task::Wake for Reenter {
            fn wake(self: std::sync::Arc<Self>) {
                self.wake_by_ref();
            }
            fn wake_by_ref(self: &std::sync::Arc<Self>) {
                if self.woken.fetch_add(1, Ordering::SeqCst) == 0 {
                    let signal = self.signal.lock().unwrap().clone().unwrap();
                    signal.set_waker(&std::task::Waker::from(self.clone()));
                    signal.reset();
                    self.ec.register_task(&signal);
                    self.ec.notify();
                }
            }
        }
        let ec = std::sync::Arc::new(EventCount::new());
        let signal = Signal::for_task();
        let reenter = std::sync::Arc::new(Reenter {
            ec: ec.clone(),
            signal: std::sync::Mutex::new(Some(signal.clone())),
            woken: std::sync::atomic::AtomicUsize::new(0),
        });
        signal.set_waker(&std::task::Waker::from(reenter.clone()));
        signal.reset();
        ec.register_task(&signal);
        ec.notify_one();
        assert_eq!(
            reenter.woken.load(Ordering::SeqCst),
            2,
            "woken, then woken again"
        );
        assert_eq!(waiters(&ec), 0, "both registrations taken");
        // The waker holds the signal, which holds the waker: break the cycle.
        reenter.signal.lock().unwrap().take();
    }

    /// A thread asleep in `wait` is counted as a sleeper until it returns, so a notification
    /// signals the condition variable while it sleeps; the count is back to 0 afterwards (and
    /// notifications then skip the condition variable).
    #[test]
    fn sleepers_are_counted_while_they_wait() {
        let ec = std::sync::Arc::new(EventCount::new());
        let ec2 = ec.clone();
        let sleeper = std::thread::spawn(move || {
            let key = ec2.prepare();
            ec2.wait(key, None)
        });
        while ec.lock.lock().unwrap().sleepers == 0 {
            std::thread::yield_now();
        }
        ec.notify();
        assert!(sleeper.join().unwrap(), "woken, not timed out");
        assert_eq!(ec.lock.lock().unwrap().sleepers, 0);
        assert_eq!(waiters(&ec), 0);
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
