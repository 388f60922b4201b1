//! flume's tests of its async API, ported to the channel's shareable handles
//! (`welltempered_channel::shared`, which, like flume's, are `Clone` and `Sync` and take `&self`).
//!
//! Source: flume 0.12.0, `tests/async.rs` (<https://github.com/zesterer/flume>,
//! `tests/async.rs`; the crate as published on crates.io).
//! Copyright (c) Joshua Barretto and the flume contributors.
//! Licensed under the Apache License, Version 2.0 or the MIT license, at your option
//! (flume is Apache-2.0/MIT; this project is MIT OR Apache-2.0).
//!
//! Changes from the original:
//!
//! - Imports: `welltempered_channel::shared::{bounded, unbounded}` and the channel's errors
//!   instead of `flume::*`; `RecvError::Disconnected` is the channel's `RecvError` (a unit
//!   struct, as crossbeam's).
//! - Executors: async-std is not a dependency. `async_std::task::block_on` is
//!   `futures_executor::block_on`; `#[async_std::test]` is a tokio multi-thread runtime with two
//!   workers (`#[tokio::test(flavor = "multi_thread", worker_threads = 2)]`) and
//!   `async_std::task::spawn` is `tokio::spawn`; `async_std::future::timeout` and async-std's
//!   `FutureExt::timeout` are `tokio::time::timeout` (inside a tokio runtime where the original
//!   had none). `waker_fn::waker_fn` is a `std::task::Wake` implementation;
//!   `futures::pin_mut!` is `std::pin::pin!`.
//! - Timing: `parallel_async_receivers`'s two 5 s guards against a hang are 60 s (a liveness
//!   check on a loaded 2-CPU machine and a debug build, not a speed limit). The 250 ms and
//!   500 ms sleeps that order threads are kept.
//! - `change_waker` makes its channel with `Wait::Park`. On a channel that spins before it
//!   parks (the default), a pending future first yields to its executor, waking its own
//!   waker, before it registers; the original's first poll would then be such a yield, and
//!   its counts of wake-ups would check the yield, not the registration it is about.
//!   Its first half then polls the woken send future once more, to completion, before the
//!   second half receives the element it sent: flume's receive moves a waiting sender's
//!   message into the channel itself, so the original's second `rx.recv()` finds it though the
//!   future is never polled again; here a send future's message stays in the future until it
//!   is polled (dropping the future unpolled sends nothing, as with tokio's channels), and the
//!   unchanged test would wait forever in that `recv`.
//! - The `#[cfg(all(feature = "async", not(target_os = "unknown")))]` on each item is
//!   `#![cfg(not(loom))]`: the channel's futures have no feature gate.
#![cfg(not(loom))]

use std::{
    future::Future,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    task::{Context, Poll, Wake, Waker},
    time::Duration,
};

use futures_util::{StreamExt, stream::FuturesUnordered};
use welltempered_channel::{
    Builder, RecvError, SendError, Wait,
    shared::{bounded, unbounded},
};

#[test]
fn r#async_recv() {
    let (tx, rx) = unbounded();

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        tx.send(42u32).unwrap();
    });

    futures_executor::block_on(async {
        assert_eq!(rx.recv_async().await.unwrap(), 42);
    });

    t.join().unwrap();
}

#[test]
fn r#async_send() {
    let (tx, rx) = bounded(1);

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        assert_eq!(rx.recv(), Ok(42));
    });

    futures_executor::block_on(async {
        tx.send_async(42u32).await.unwrap();
    });

    t.join().unwrap();
}

#[test]
fn r#async_recv_disconnect() {
    let (tx, rx) = bounded::<i32>(0);

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        drop(tx)
    });

    futures_executor::block_on(async {
        // welltempered: `RecvError::Disconnected` in flume
        assert_eq!(rx.recv_async().await, Err(RecvError));
    });

    t.join().unwrap();
}

#[test]
fn r#async_send_disconnect() {
    let (tx, rx) = bounded(0);

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        drop(rx)
    });

    futures_executor::block_on(async {
        assert_eq!(tx.send_async(42u32).await, Err(SendError(42)));
    });

    t.join().unwrap();
}

#[test]
fn r#async_recv_drop_recv() {
    let (tx, rx) = bounded::<i32>(10);

    let recv_fut = rx.recv_async();

    // welltempered: a tokio runtime for `tokio::time::timeout` (async-std's needs none)
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(async {
            let res =
                tokio::time::timeout(std::time::Duration::from_millis(500), rx.recv_async()).await;
            assert!(res.is_err());
        });

    let rx2 = rx.clone();
    let t =
        std::thread::spawn(move || futures_executor::block_on(async { rx2.recv_async().await }));

    std::thread::sleep(std::time::Duration::from_millis(500));

    tx.send(42).unwrap();

    drop(recv_fut);

    assert_eq!(t.join().unwrap(), Ok(42))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn r#async_send_1_million_no_drop_or_reorder() {
    #[derive(Debug)]
    enum Message {
        Increment { old: u64 },
        ReturnCount,
    }

    let (tx, rx) = unbounded();

    let t = tokio::spawn(async move {
        let mut count = 0u64;

        while let Ok(Message::Increment { old }) = rx.recv_async().await {
            assert_eq!(old, count);
            count += 1;
        }

        count
    });

    for next in 0..1_000_000 {
        tx.send(Message::Increment { old: next }).unwrap();
    }

    tx.send(Message::ReturnCount).unwrap();

    let count = t.await.unwrap();
    assert_eq!(count, 1_000_000)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parallel_async_receivers() {
    let (tx, rx) = unbounded();
    let send_fut = async move {
        let n_sends: usize = 100000;
        for _ in 0..n_sends {
            tx.send_async(()).await.unwrap();
        }
    };

    // welltempered: 60 s, not 5 s (see the module documentation)
    tokio::spawn(async {
        tokio::time::timeout(Duration::from_secs(60), send_fut)
            .await
            .unwrap_or_else(|_| panic!("Send timed out!"))
    });

    let mut futures_unordered = (0..250)
        .map(|_| async {
            while let Ok(()) = rx.recv_async().await
            /* rx.recv() is OK */
            {}
        })
        .collect::<FuturesUnordered<_>>();

    let recv_fut = async { while futures_unordered.next().await.is_some() {} };

    tokio::time::timeout(Duration::from_secs(60), recv_fut)
        .await
        .unwrap_or_else(|_| panic!("Receive timed out!"));

    println!("recv end");
}

#[test]
fn change_waker() {
    // welltempered: a channel that parks at once (`Wait::Park`); see the module documentation
    let (tx, rx) = Builder::new().wait(Wait::Park).bounded(1);
    let (tx, rx) = (tx.into_shared(), rx.into_shared());
    tx.send(()).unwrap();

    // welltempered: `waker_fn::waker_fn(move || ..)` in flume
    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    struct DebugWaker(Arc<Count>, Waker);

    impl DebugWaker {
        fn new() -> Self {
            let woken = Arc::new(Count(AtomicUsize::new(0)));
            let waker = Waker::from(woken.clone());
            DebugWaker(woken, waker)
        }

        fn woken(&self) -> usize {
            self.0.0.load(Ordering::SeqCst)
        }

        fn ctx(&self) -> Context<'_> {
            Context::from_waker(&self.1)
        }
    }

    // Check that the waker is correctly updated when sending tasks change their wakers
    {
        let send_fut = tx.send_async(());
        let mut send_fut = std::pin::pin!(send_fut);

        let (waker1, waker2) = (DebugWaker::new(), DebugWaker::new());

        // Set the waker to waker1
        assert_eq!(send_fut.as_mut().poll(&mut waker1.ctx()), Poll::Pending);

        // Change the waker to waker2
        assert_eq!(send_fut.as_mut().poll(&mut waker2.ctx()), Poll::Pending);

        // Wake the future
        rx.recv().unwrap();

        // Check that waker2 was woken and waker1 was not
        assert_eq!(waker1.woken(), 0);
        assert_eq!(waker2.woken(), 1);

        // welltempered: the woken future is polled again, and sends (see the module
        // documentation)
        assert_eq!(send_fut.poll(&mut waker2.ctx()), Poll::Ready(Ok(())));
    }

    // Check that the waker is correctly updated when receiving tasks change their wakers
    {
        rx.recv().unwrap();
        let recv_fut = rx.recv_async();
        let mut recv_fut = std::pin::pin!(recv_fut);

        let (waker1, waker2) = (DebugWaker::new(), DebugWaker::new());

        // Set the waker to waker1
        assert_eq!(recv_fut.as_mut().poll(&mut waker1.ctx()), Poll::Pending);

        // Change the waker to waker2
        assert_eq!(recv_fut.poll(&mut waker2.ctx()), Poll::Pending);

        // Wake the future
        tx.send(()).unwrap();

        // Check that waker2 was woken and waker1 was not
        assert_eq!(waker1.woken(), 0);
        assert_eq!(waker2.woken(), 1);
    }
}

#[test]
fn spsc_single_threaded_value_ordering() {
    async fn test() {
        let (tx, rx) = bounded(4);
        tokio::select! {
            _ = producer(tx) => {},
            _ = consumer(rx) => {},
        }
    }

    async fn producer(tx: welltempered_channel::SharedSender<usize>) {
        for i in 0..100 {
            tx.send_async(i).await.unwrap();
        }
    }

    async fn consumer(rx: welltempered_channel::SharedReceiver<usize>) {
        let mut expected = 0;
        while let Ok(value) = rx.recv_async().await {
            assert_eq!(value, expected);
            expected += 1;
        }
    }

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(test());
}
