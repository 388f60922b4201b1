//! Loom models of the condition variable's wait and notify protocol.
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-lock --release --test loom_condvar`
//!
//! A waiter checks a flag under a lock and waits on the condition variable until it is set; a
//! notifier sets the flag under the lock and then notifies. The models check that the flag is
//! only ever read under the lock (loom reports a data race otherwise) and that every waiter
//! returns. They cannot catch a lost wake-up: under loom `futex::wait` is a yield and a legal
//! spurious return (loom has no kernel wait queue), so a waiter always re-checks. Lost
//! wake-ups are the stress tests' job (`condvar.rs`: untimed waiters that only a notification
//! ends).

#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use welltempered_lock::{Futex, RawCondvar};

struct Shared {
    lock: Futex,
    flag: UnsafeCell<bool>,
    cv: RawCondvar<Futex>,
}

fn waiter(s: &Shared) {
    s.lock.lock();
    while !s
        .flag
        // SAFETY: `flag` is only accessed under `lock` (loom checks this).
        .with(|f| unsafe { *f })
    {
        s.cv.wait_model(
            // SAFETY: held by this thread (taken above or by the previous re-lock).
            || unsafe { s.lock.unlock() },
            || s.lock.lock(),
        );
    }
    // SAFETY: held.
    unsafe { s.lock.unlock() };
}

fn notifier(s: &Shared, all: bool) {
    s.lock.lock();
    // SAFETY: under the lock.
    s.flag.with_mut(|f| unsafe { *f = true });
    // SAFETY: held by this thread.
    unsafe { s.lock.unlock() };
    if all {
        s.cv.notify_all_model();
    } else {
        s.cv.notify_one_model();
    }
}

fn model(waiters: usize, all: bool) {
    let mut b = loom::model::Builder::new();
    // Three threads that loop on yields branch a lot: one preemption is what fits there.
    b.preemption_bound = Some(if waiters > 1 { 1 } else { 2 });
    b.max_branches = 100_000;
    b.check(move || {
        let s = Arc::new(Shared {
            lock: Futex::new(),
            flag: UnsafeCell::new(false),
            cv: RawCondvar::new(),
        });
        let hs: Vec<_> = (0..waiters)
            .map(|_| {
                let s = Arc::clone(&s);
                thread::spawn(move || waiter(&s))
            })
            .collect();
        notifier(&s, all);
        for h in hs {
            h.join().unwrap();
        }
    });
}

#[test]
fn one_waiter_notify_one() {
    model(1, false);
}

#[test]
fn one_waiter_notify_all() {
    model(1, true);
}

#[test]
fn two_waiters_notify_all() {
    model(2, true);
}
