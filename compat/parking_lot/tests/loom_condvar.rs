//! Loom models of the condition variable's waiting protocol (`src/wait_queue.rs`): a FIFO
//! queue of waiters under a lock, each waiter's own word set by the notifier that takes it out.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p parking_lot --release --test loom_condvar`
//!
//! The user's mutex is welltempered's `Futex` lock. Under loom the futex wait is a yield (a
//! spurious return), so a waiter spins on its own word: a waiter that is never notified never
//! returns, and loom reports the model as unfinished. So these models catch a lost wake-up in
//! the queue's protocol (a notification that finds no node, or a node whose word is never
//! set), as well as data races on the predicate and wrong counts.

#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::sync::atomic::{AtomicBool, Ordering};
use loom::thread;
use parking_lot::wait_queue::{OtherMutex, WaitQueue};
use std::time::Instant;
use welltempered_lock::Futex;

struct Shared {
    lock: Futex,
    flag: UnsafeCell<bool>,
    queue: WaitQueue,
}

impl Shared {
    fn new() -> Self {
        Self {
            lock: Futex::new(),
            flag: UnsafeCell::new(false),
            queue: WaitQueue::new(),
        }
    }

    fn id(&self) -> usize {
        core::ptr::from_ref(&self.lock) as usize
    }

    /// Waits until the flag is set; returns whether it saw the flag set.
    fn waiter(&self) -> bool {
        self.lock.lock();
        while !self
            .flag
            // SAFETY: `flag` is only accessed under `lock` (loom checks this).
            .with(|f| unsafe { *f })
        {
            let waited = self.queue.wait(
                self.id(),
                // SAFETY: held by this thread (taken above or by the previous re-lock).
                || unsafe { self.lock.unlock() },
                || self.lock.lock(),
                None,
            );
            match waited {
                Ok(timed_out) => assert!(!timed_out, "an untimed wait never times out"),
                // Another waiter uses another mutex (the last model): nothing changed, the
                // lock is still held; look again once it has gone.
                Err(OtherMutex) => thread::yield_now(),
            }
        }
        // SAFETY: under the lock.
        let seen = self.flag.with(|f| unsafe { *f });
        // SAFETY: held.
        unsafe { self.lock.unlock() };
        seen
    }

    /// Sets the flag under the lock, then notifies: the count of waiters it woke.
    fn notifier(&self, all: bool) -> usize {
        self.lock.lock();
        // SAFETY: under the lock.
        self.flag.with_mut(|f| unsafe { *f = true });
        // SAFETY: held by this thread.
        unsafe { self.lock.unlock() };
        if all {
            self.queue.notify_all()
        } else {
            usize::from(self.queue.notify_one())
        }
    }
}

fn builder(preemptions: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    b.preemption_bound = Some(preemptions);
    b.max_branches = 100_000;
    b
}

#[test]
fn one_waiter_is_woken_by_notify_one() {
    builder(2).check(|| {
        let s = Arc::new(Shared::new());
        let w = {
            let s = Arc::clone(&s);
            thread::spawn(move || s.waiter())
        };
        let woke = s.notifier(false);
        assert!(w.join().unwrap());
        // Woken by the notification, or never queued (it saw the flag first).
        assert!(woke <= 1);
        assert!(
            !s.queue.notify_one(),
            "no waiter is left behind in the queue"
        );
    });
}

#[test]
fn two_waiters_are_woken_by_notify_all() {
    builder(1).check(|| {
        let s = Arc::new(Shared::new());
        let ws: Vec<_> = (0..2)
            .map(|_| {
                let s = Arc::clone(&s);
                thread::spawn(move || s.waiter())
            })
            .collect();
        let woke = s.notifier(true);
        for w in ws {
            assert!(w.join().unwrap());
        }
        assert!(woke <= 2);
        assert_eq!(s.queue.notify_all(), 0);
    });
}

#[test]
fn a_timeout_and_a_notification_count_the_waiter_once() {
    builder(2).check(|| {
        let s = Arc::new(Shared::new());
        let w = {
            let s = Arc::clone(&s);
            thread::spawn(move || {
                s.lock.lock();
                // A deadline already past: the waiter gives up at its first look, racing the
                // notifier for its node.
                let timed_out = s
                    .queue
                    .wait(
                        s.id(),
                        // SAFETY: held by this thread.
                        || unsafe { s.lock.unlock() },
                        || s.lock.lock(),
                        Some(Instant::now()),
                    )
                    .expect("one mutex");
                // SAFETY: held (re-locked by the wait).
                unsafe { s.lock.unlock() };
                timed_out
            })
        };
        let woke = s.queue.notify_one();
        let timed_out = w.join().unwrap();
        // Exactly one of them counts the waiter: the notifier took its node (and the waiter
        // returns notified), or the notifier found nobody (the waiter had not queued yet, or
        // had left by timing out).
        assert_eq!(woke, !timed_out);
        assert!(!s.queue.notify_one());
    });
}

#[test]
fn a_second_mutex_is_refused_before_anything_changes() {
    builder(2).check(|| {
        let s = Arc::new(Shared::new());
        let w = {
            let s = Arc::clone(&s);
            thread::spawn(move || s.waiter())
        };
        let other = Futex::new();
        let released = AtomicBool::new(false);
        other.lock();
        let r = s.queue.wait(
            core::ptr::from_ref(&other) as usize,
            || {
                released.store(true, Ordering::Relaxed);
                // SAFETY: held by this thread.
                unsafe { other.unlock() }
            },
            || other.lock(),
            Some(Instant::now()),
        );
        match r {
            // The waiter was queued with the first mutex: nothing was released.
            Err(OtherMutex) => assert!(!released.load(Ordering::Relaxed)),
            // The queue was empty: the wait went through, and timed out or was woken.
            Ok(_) => assert!(released.load(Ordering::Relaxed)),
        }
        // Held either way (never released, or re-locked by the wait).
        // SAFETY: held by this thread.
        unsafe { other.unlock() };
        s.notifier(true);
        assert!(w.join().unwrap());
    });
}
