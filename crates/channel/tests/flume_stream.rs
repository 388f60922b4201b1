//! flume's tests of its `Stream` and `Sink` API, ported to the channel's shareable handles
//! (`welltempered_channel::shared`, which, like flume's, are `Clone` and `Sync` and take `&self`).
//!
//! Source: flume 0.12.0, `tests/stream.rs` (<https://github.com/zesterer/flume>,
//! `tests/stream.rs`; the crate as published on crates.io).
//! Copyright (c) Joshua Barretto and the flume contributors.
//! Licensed under the Apache License, Version 2.0 or the MIT license, at your option
//! (flume is Apache-2.0/MIT; this project is MIT OR Apache-2.0).
//!
//! Changes from the original:
//!
//! - Imports: `welltempered_channel::shared::{bounded, unbounded}` instead of `flume::*`;
//!   `futures_util` instead of `futures`.
//! - Executors: async-std is not a dependency. `async_std::task::block_on` is
//!   `futures_executor::block_on`; `#[async_std::test]` is a tokio multi-thread runtime with two
//!   workers and `async_std::task::spawn` is `tokio::spawn`; `async_std::future::timeout` and
//!   async-std's `FutureExt::timeout` are `tokio::time::timeout` (inside a tokio runtime where
//!   the original had none).
//! - Timing: `parallel_streams_and_async_recv`'s two 5 s guards against a hang are 60 s (a
//!   liveness check on a loaded 2-CPU machine and a debug build, not a speed limit). The
//!   250 ms and 500 ms sleeps that order threads are kept.
//! - The `#[cfg(all(feature = "async", not(target_os = "unknown")))]` on each item is the
//!   channel's `futures` feature (which gives `Stream` and `Sink`), with `not(loom)`.
#![cfg(all(not(loom), feature = "futures"))]

use futures_util::{Stream, stream};
use {
    futures_util::{StreamExt, stream::FuturesUnordered},
    std::time::Duration,
    welltempered_channel::shared::{bounded, unbounded},
};

#[test]
fn stream_recv() {
    let (tx, rx) = unbounded();

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        tx.send(42u32).unwrap();
        println!("sent");
    });

    futures_executor::block_on(async {
        println!("receiving...");
        let x = rx.stream().next().await;
        println!("received");
        assert_eq!(x, Some(42));
    });

    t.join().unwrap();
}

#[test]
fn stream_recv_disconnect() {
    let (tx, rx) = bounded::<i32>(0);

    let t = std::thread::spawn(move || {
        let _ = tx.send(42);
        std::thread::sleep(std::time::Duration::from_millis(250));
        drop(tx)
    });

    futures_executor::block_on(async {
        let mut stream = rx.into_stream();
        assert_eq!(stream.next().await, Some(42));
        assert_eq!(stream.next().await, None);
    });

    t.join().unwrap();
}

#[test]
fn stream_recv_drop_recv() {
    let (tx, rx) = bounded::<i32>(10);

    let rx2 = rx.clone();
    let mut stream = rx.into_stream();

    // welltempered: a tokio runtime for `tokio::time::timeout` (async-std's needs none)
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
        .block_on(async {
            let res =
                tokio::time::timeout(std::time::Duration::from_millis(500), stream.next()).await;

            assert!(res.is_err());
        });

    let t =
        std::thread::spawn(move || futures_executor::block_on(async { rx2.stream().next().await }));

    std::thread::sleep(std::time::Duration::from_millis(500));

    tx.send(42).unwrap();

    drop(stream);

    assert_eq!(t.join().unwrap(), Some(42))
}

#[test]
fn r#stream_drop_send_disconnect() {
    let (tx, rx) = bounded::<i32>(1);

    let t = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(250));
        drop(tx);
    });

    futures_executor::block_on(async {
        let mut stream = rx.into_stream();
        assert_eq!(stream.next().await, None);
    });

    t.join().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_send_1_million_no_drop_or_reorder() {
    #[derive(Debug)]
    enum Message {
        Increment { old: u64 },
        ReturnCount,
    }

    let (tx, rx) = unbounded();

    let t = tokio::spawn(async move {
        let mut count = 0u64;
        let mut stream = rx.into_stream();

        while let Some(Message::Increment { old }) = stream.next().await {
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
async fn parallel_streams_and_async_recv() {
    let (tx, rx) = unbounded();
    let rx = &rx;
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
        .map(|n| async move {
            if n % 2 == 0 {
                let mut stream = rx.stream();
                while let Some(()) = stream.next().await {}
            } else {
                while let Ok(()) = rx.recv_async().await {}
            }
        })
        .collect::<FuturesUnordered<_>>();

    let recv_fut = async { while futures_unordered.next().await.is_some() {} };

    tokio::time::timeout(Duration::from_secs(60), recv_fut)
        .await
        .unwrap_or_else(|_| panic!("Receive timed out!"));
}

#[test]
fn stream_no_double_wake() {
    use futures_util::task::{ArcWake, waker};
    use std::pin::Pin;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Context;

    let count = Arc::new(AtomicUsize::new(0));

    // all this waker does is count how many times it is called
    struct CounterWaker {
        count: Arc<AtomicUsize>,
    }

    impl ArcWake for CounterWaker {
        fn wake_by_ref(arc_self: &Arc<Self>) {
            arc_self.count.fetch_add(1, Ordering::SeqCst);
        }
    }

    // create waker and context
    let w = CounterWaker {
        count: count.clone(),
    };
    let w = waker(Arc::new(w));
    let cx = &mut Context::from_waker(&w);

    // create unbounded channel
    let (tx, rx) = unbounded::<()>();
    let mut stream = rx.stream();

    // register waker with stream
    let _ = Pin::new(&mut stream).poll_next(cx);

    // send multiple items
    tx.send(()).unwrap();
    tx.send(()).unwrap();
    tx.send(()).unwrap();

    // verify that stream is only woken up once.
    assert_eq!(count.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_forward_issue_55() {
    // https://github.com/zesterer/flume/issues/55
    fn dummy_stream() -> impl Stream<Item = usize> {
        stream::unfold(0, |count| async move {
            if count < 1000 {
                Some((count, count + 1))
            } else {
                None
            }
        })
    }

    let (send_task, recv_task) = {
        use futures_util::SinkExt;
        let (tx, rx) = bounded(100);

        let send_task = dummy_stream().map(Ok).forward(
            tx.into_sink()
                .sink_map_err(|e| panic!("send error:{:#?}", e)),
        );

        let recv_task = rx.into_stream().for_each(|_item| async move {});
        (send_task, recv_task)
    };

    let jh = tokio::spawn(send_task);
    // welltempered: awaited on the runtime (async-std's `block_on` inside its test)
    recv_task.await;
    jh.await.unwrap().unwrap();
}
