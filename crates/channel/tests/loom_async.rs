//! Loom models of the futures' registration: a task that waits arms the eventcount (its first
//! registration sets the `TASKS` mark and issues a heavy fence), and its later waits, and a
//! thread's sleep on the same eventcount, pair with the notifiers through `SeqCst` fences.
//! A lost wake-up shows as a deadlock (loom's `block_on` parks until the task is woken), which
//! loom reports.
//!
//! Under loom both sides of the asymmetric fence are `SeqCst` fences, so these models check the
//! counting and marking of the waiter word and the order of each side's steps; the argument
//! for `membarrier` itself is in `eventcount.rs`.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-channel
//! --test loom_async --release`.
#![cfg(loom)]

use loom::future::block_on;
use loom::thread;
use welltempered_channel::{Builder, Wait};

/// Runs a model with a raised branch bound (the eventcount's mutex adds many).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.max_branches = 100_000;
    b.check(f);
}

/// A task receives twice (the first wait arms the eventcount, the second pairs with a `SeqCst`
/// fence), then a thread receives once more with a blocking `recv` on the armed eventcount.
#[test]
fn task_waits_armed_then_a_thread_sleeps() {
    model(|| {
        let (tx, mut rx) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let s = thread::spawn(move || {
            for v in 1..=3 {
                tx.send(v).unwrap();
            }
        });
        block_on(async {
            assert_eq!(rx.recv_async().await, Ok(1));
            assert_eq!(rx.recv_async().await, Ok(2));
        });
        assert_eq!(rx.recv(), Ok(3));
        s.join().unwrap();
    });
}

/// A task sends into a bounded(1) channel and waits for room twice, while a thread receives:
/// the receiver's `notify_one` on the armed eventcount wakes the task each time.
#[test]
fn task_waits_for_room() {
    model(|| {
        let (mut tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(1);
        let r = thread::spawn(move || {
            for v in 1..=3 {
                assert_eq!(rx.recv(), Ok(v));
            }
        });
        block_on(async {
            for v in 1..=3 {
                tx.send_async(v).await.unwrap();
            }
        });
        r.join().unwrap();
    });
}

/// A task's future is dropped while registered (cancelled after one pending poll), then the
/// task waits again: the withdrawn registration leaves the count right, and the next wait is
/// woken.
#[test]
fn cancelled_wait_then_wait_again() {
    use core::future::Future;
    use core::pin::pin;
    use core::task::{Context, Poll};

    model(|| {
        let (tx, mut rx) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let s = thread::spawn(move || tx.send(5).unwrap());
        block_on(async {
            {
                let mut first = pin!(rx.recv_async());
                let polled = core::future::poll_fn(|cx: &mut Context<'_>| {
                    Poll::Ready(first.as_mut().poll(cx))
                })
                .await;
                if let Poll::Ready(v) = polled {
                    assert_eq!(v, Ok(5));
                    return;
                }
            }
            assert_eq!(rx.recv_async().await, Ok(5));
        });
        s.join().unwrap();
    });
}
