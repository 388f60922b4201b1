//! The async side of the channel under two executors (tokio, current-thread and multi-thread,
//! and futures' `block_on`): sends and receives as futures, streams and sinks, mixed with
//! blocking use on other threads, and cancellation (a dropped future loses nothing and leaves
//! nothing registered: the tests check what later operations see).
#![cfg(not(loom))]

#[cfg(feature = "futures")]
use futures_util::{SinkExt, StreamExt};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use welltempered_channel::{Builder, SendError, Wait, bounded, shared, unbounded};

fn messages() -> u64 {
    if cfg!(miri) { 200 } else { 20_000 }
}

fn multi_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap()
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

/// A ping-pong between two tasks over two bounded channels, on each runtime flavour.
#[test]
fn ping_pong_between_tasks() {
    for rt in [current_thread(), multi_thread()] {
        let n = messages() / 10;
        let (mut ping_tx, mut ping_rx) = bounded::<u64>(1);
        let (mut pong_tx, mut pong_rx) = bounded::<u64>(1);
        rt.block_on(async move {
            let echo = tokio::spawn(async move {
                while let Ok(v) = ping_rx.recv_async().await {
                    pong_tx.send_async(v + 1).await.unwrap();
                }
            });
            for i in 0..n {
                ping_tx.send_async(i).await.unwrap();
                assert_eq!(pong_rx.recv_async().await, Ok(i + 1));
            }
            drop(ping_tx);
            echo.await.unwrap();
        });
    }
}

/// Four producer tasks and one consumer task: every message once, each producer's in order.
#[test]
fn fan_in_of_tasks_delivers_everything_in_order() {
    for rt in [current_thread(), multi_thread()] {
        let per = messages() / 4;
        let (tx, mut rx) = bounded::<(usize, u64)>(16);
        rt.block_on(async move {
            let producers: Vec<_> = (0..4)
                .map(|p| {
                    let mut tx = tx.clone();
                    tokio::spawn(async move {
                        for i in 0..per {
                            tx.send_async((p, i)).await.unwrap();
                        }
                    })
                })
                .collect();
            drop(tx);
            let mut next = [0u64; 4];
            while let Ok((p, i)) = rx.recv_async().await {
                assert_eq!(i, next[p]);
                next[p] += 1;
            }
            for h in producers {
                h.await.unwrap();
            }
            assert_eq!(next, [per; 4]);
        });
    }
}

/// A thread sends with the blocking `send` while a task awaits, and a task sends while a
/// thread blocks in `recv`, on one rendezvous and one bounded channel.
#[test]
fn mixed_with_blocking_use() {
    let rt = multi_thread();
    for cap in [0, 1] {
        let n = messages() / 20;
        let (tx, mut rx) = bounded::<u64>(cap);
        let sender = std::thread::spawn(move || {
            for i in 0..n {
                tx.send(i).unwrap();
            }
        });
        let sum = rt.block_on(async move {
            let mut sum = 0;
            while let Ok(v) = rx.recv_async().await {
                sum += v;
            }
            sum
        });
        sender.join().unwrap();
        assert_eq!(sum, n * (n - 1) / 2);

        let (mut tx, rx) = bounded::<u64>(cap);
        let receiver = std::thread::spawn(move || rx.iter().sum::<u64>());
        rt.block_on(async move {
            for i in 0..n {
                tx.send_async(i).await.unwrap();
            }
        });
        assert_eq!(receiver.join().unwrap(), n * (n - 1) / 2);
    }
}

/// On a current-thread runtime, a rendezvous between two tasks: the sending task must not
/// block the only thread while it waits for the receiving task.
#[test]
fn rendezvous_between_tasks_on_one_thread() {
    let rt = current_thread();
    let (mut tx, mut rx) = bounded::<u32>(0);
    rt.block_on(async move {
        let r = tokio::spawn(async move {
            let mut got = Vec::new();
            while let Ok(v) = rx.recv_async().await {
                got.push(v);
            }
            got
        });
        for i in 0..50 {
            tx.send_async(i).await.unwrap();
        }
        drop(tx);
        assert_eq!(r.await.unwrap(), (0..50).collect::<Vec<_>>());
    });
}

/// A receive cancelled by `tokio::time::timeout` takes nothing and stays registered nowhere:
/// a message sent afterwards goes to the next receive, and a blocking receive on another
/// thread is still woken.
#[test]
fn cancelled_receive_loses_nothing() {
    let rt = current_thread();
    let (tx, mut rx) = unbounded::<u32>();
    rt.block_on(async {
        let t = tokio::time::timeout(Duration::from_millis(10), rx.recv_async()).await;
        assert!(t.is_err(), "nothing was sent");
    });
    tx.send(1).unwrap();
    rt.block_on(async {
        assert_eq!(rx.recv_async().await, Ok(1));
    });
    // The dropped future's registration is gone: a thread's blocking receive still wakes.
    let h = std::thread::spawn(move || rx.recv());
    std::thread::sleep(Duration::from_millis(10));
    tx.send(2).unwrap();
    assert_eq!(h.join().unwrap(), Ok(2));
}

/// `tokio::select!` between a receive and a timer, with messages in flight: whichever wins,
/// every message is received exactly once.
#[test]
fn tokio_select_with_messages_in_flight() {
    let rt = multi_thread();
    let n = messages() / 10;
    let (tx, mut rx) = unbounded::<u64>();
    let sender = std::thread::spawn(move || {
        for i in 0..n {
            tx.send(i).unwrap();
            if i % 64 == 0 {
                std::thread::sleep(Duration::from_micros(50));
            }
        }
    });
    let (got, timeouts) = rt.block_on(async move {
        let (mut got, mut timeouts) = (Vec::new(), 0);
        loop {
            tokio::select! {
                v = rx.recv_async() => match v {
                    Ok(v) => got.push(v),
                    Err(_) => break,
                },
                _ = tokio::time::sleep(Duration::from_micros(20)) => timeouts += 1,
            }
        }
        (got, timeouts)
    });
    sender.join().unwrap();
    assert_eq!(got, (0..n).collect::<Vec<_>>());
    let _ = timeouts;
}

/// A rendezvous send cancelled while its element waits in the channel: the element is either
/// delivered or dropped, exactly once.
#[test]
fn cancelled_rendezvous_send_delivers_or_drops_once() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    struct Counted;
    impl Drop for Counted {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }
    let rt = multi_thread();
    let rounds = if cfg!(miri) { 10 } else { 200 };
    let received = Arc::new(AtomicUsize::new(0));
    for _ in 0..rounds {
        let (mut tx, rx) = bounded::<Counted>(0);
        let rec = received.clone();
        let receiver = std::thread::spawn(move || {
            if rx.recv_timeout(Duration::from_micros(200)).is_ok() {
                rec.fetch_add(1, Ordering::SeqCst);
            }
        });
        rt.block_on(async {
            let _ = tokio::time::timeout(Duration::from_micros(100), tx.send_async(Counted)).await;
        });
        receiver.join().unwrap();
    }
    // Every element is dropped once: received ones by the receiver, the others by the
    // cancelled future or the send that gave up.
    assert_eq!(DROPS.load(Ordering::SeqCst), rounds);
    assert!(received.load(Ordering::SeqCst) <= rounds);
}

/// An async send to a channel whose receivers are gone fails with the element.
#[test]
fn disconnection_is_seen_by_futures() {
    futures_executor::block_on(async {
        let (mut tx, rx) = bounded::<u8>(1);
        drop(rx);
        assert_eq!(tx.send_async(3).await, Err(SendError(3)));
        let (tx, mut rx) = unbounded::<u8>();
        tx.send(1).unwrap();
        drop(tx);
        assert_eq!(rx.recv_async().await, Ok(1));
        assert!(rx.recv_async().await.is_err());
    });
}

/// Streams and sinks (feature `futures`) under futures' executor; shared handles lend `&`
/// futures; a spinning channel is polled.
#[test]
fn streams_sinks_and_shared_handles() {
    #[cfg(feature = "futures")]
    {
        let (tx, rx) = bounded::<u64>(4);
        let n = messages() / 10;
        let h = std::thread::spawn(move || {
            futures_executor::block_on(async move {
                let mut sink = tx.into_sink();
                for i in 0..n {
                    sink.send(i).await.unwrap();
                }
                sink.close().await.unwrap();
            })
        });
        let sum: u64 =
            futures_executor::block_on(rx.into_stream().fold(0, |a, v| async move { a + v }));
        h.join().unwrap();
        assert_eq!(sum, n * (n - 1) / 2);
    }
    let (tx, rx) = shared::unbounded::<u32>();
    futures_executor::block_on(async {
        tx.send_async(5).await.unwrap();
        assert_eq!(rx.recv_async().await, Ok(5));
    });

    let (tx, mut rx) = Builder::new().wait(Wait::Spin).bounded::<u32>(1);
    let h = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(5));
        tx.send(8).unwrap();
    });
    assert_eq!(futures_executor::block_on(rx.recv_async()), Ok(8));
    h.join().unwrap();
}

/// The futures are `Send` (so tasks holding them can move between threads).
#[test]
fn futures_are_send() {
    fn is_send<F: Send>(_: &F) {}
    let (mut tx, mut rx) = unbounded::<String>();
    is_send(&rx.recv_async());
    is_send(&tx.send_async(String::new()));
    #[cfg(feature = "futures")]
    {
        is_send(&rx.stream());
        is_send(&tx.sink());
    }
}

/// The `spsc` handles as futures, a stream and a sink: a ping-pong between two tasks and a
/// producer thread feeding a task's stream, on each runtime flavour; every message once, in
/// order, and the end of the channel seen.
#[cfg(feature = "futures")]
#[test]
fn spsc_handles_as_futures_streams_and_sinks() {
    use welltempered_channel::spsc;
    for rt in [current_thread(), multi_thread()] {
        let n = messages() / 10;
        let (mut ping_tx, mut ping_rx) = spsc::bounded::<u64>(1);
        let (pong_tx, pong_rx) = spsc::bounded::<u64>(1);
        let (feed_tx, feed_rx) = spsc::bounded::<u64>(4);
        rt.block_on(async move {
            // The echo task answers through a sink; the main task reads answers as a stream.
            let echo = tokio::spawn(async move {
                let mut sink = pong_tx.into_sink();
                while let Ok(v) = ping_rx.recv_async().await {
                    sink.send(v + 1).await.unwrap();
                }
            });
            let mut answers = pong_rx.into_stream();
            for i in 0..n {
                ping_tx.send_async(i).await.unwrap();
                assert_eq!(answers.next().await, Some(i + 1));
            }
            drop(ping_tx);
            echo.await.unwrap();
            assert_eq!(answers.next().await, None);

            // A blocking producer thread and a task's stream.
            let feeder = std::thread::spawn(move || {
                for i in 0..n {
                    feed_tx.send(i).unwrap();
                }
            });
            let got: Vec<u64> = feed_rx.into_stream().collect().await;
            feeder.join().unwrap();
            assert_eq!(got, (0..n).collect::<Vec<_>>());
        });
    }
}
