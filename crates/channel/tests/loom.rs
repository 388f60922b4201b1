//! Loom models of both claiming disciplines on each side and of the transitions between them.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-channel
//! --test loom --release`. Segments have 3 slots under loom, so every model crosses a segment
//! boundary (installation, `next` links, recycling or retirement).
#![cfg(loom)]

use loom::thread;
use welltempered_channel::{Builder, TryRecvError, Wait};

/// Spinning channels: loom explores spin loops through its yields, and parking would add the
/// eventcount's mutex to every model (one model below covers it).
fn chan() -> (
    welltempered_channel::Sender<usize>,
    welltempered_channel::Receiver<usize>,
) {
    Builder::new().wait(Wait::Spin).unbounded()
}

/// Runs a model; spin-waiting receivers take many branches, so the bound is raised.
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.max_branches = 100_000;
    b.check(f);
}

/// Drains with `try_recv` until disconnected, checking the values come in order.
fn drain_in_order(rx: &welltempered_channel::Receiver<usize>, expect: &mut Vec<usize>) {
    loop {
        match rx.try_recv() {
            Ok(v) => expect.push(v),
            Err(TryRecvError::Empty) => thread::yield_now(),
            Err(TryRecvError::Disconnected) => return,
        }
    }
}

/// Single producer, single consumer, across a segment boundary.
#[test]
fn single_single() {
    model(|| {
        let (tx, rx) = chan();
        let p = thread::spawn(move || {
            for i in 0..4 {
                tx.send(i).unwrap();
            }
        });
        let mut got = Vec::new();
        drain_in_order(&rx, &mut got);
        p.join().unwrap();
        assert_eq!(got, vec![0, 1, 2, 3]);
    });
}

/// Two shared producers, one single consumer: per-producer order, nothing lost.
#[test]
fn shared_producers() {
    model(|| {
        let (tx, rx) = chan();
        let tx2 = tx.clone();
        let a = thread::spawn(move || {
            tx.send(0).unwrap();
            tx.send(1).unwrap();
        });
        let b = thread::spawn(move || {
            tx2.send(10).unwrap();
            tx2.send(11).unwrap();
        });
        let mut got = Vec::new();
        drain_in_order(&rx, &mut got);
        a.join().unwrap();
        b.join().unwrap();
        let mine: Vec<_> = got.iter().copied().filter(|v| *v < 10).collect();
        let theirs: Vec<_> = got.iter().copied().filter(|v| *v >= 10).collect();
        assert_eq!(mine, vec![0, 1]);
        assert_eq!(theirs, vec![10, 11]);
    });
}

/// Takes what is there with at most `tries` attempts (no spinning: keeps the model finite).
fn take_some(rx: &welltempered_channel::Receiver<usize>, tries: usize) -> Vec<usize> {
    (0..tries).filter_map(|_| rx.try_recv().ok()).collect()
}

/// One single producer, two shared consumers across a segment boundary (the head's move,
/// retirement and the grace period): each element taken once, in order per consumer.
#[test]
fn shared_consumers() {
    model(|| {
        let (tx, rx) = chan();
        let rx2 = rx.clone();
        let p = thread::spawn(move || {
            for i in 0..3 {
                tx.send(i).unwrap();
            }
        });
        let c = thread::spawn(move || take_some(&rx2, 2));
        let mut got = take_some(&rx, 2);
        let theirs = c.join().unwrap();
        p.join().unwrap();
        assert!(got.windows(2).all(|w| w[0] < w[1]));
        assert!(theirs.windows(2).all(|w| w[0] < w[1]));
        got.extend(theirs);
        // Back to one consumer: the rest is there, in order.
        drain_in_order(&rx, &mut got);
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2]);
    });
}

/// Two shared consumers racing over elements already sent, across a segment boundary.
#[test]
fn shared_consumers_race_over_a_boundary() {
    model(|| {
        let (tx, rx) = chan();
        for i in 0..4 {
            tx.send(i).unwrap();
        }
        drop(tx);
        let rx2 = rx.clone();
        let c = thread::spawn(move || take_some(&rx2, 2));
        let mut got = take_some(&rx, 2);
        got.extend(c.join().unwrap());
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2, 3]);
        assert!(rx.try_recv().unwrap_err().is_disconnected());
    });
}

/// A producer clones its sender while the consumer is receiving (single to shared), then the
/// clone is dropped and the survivor goes on (shared to single).
#[test]
fn producer_transitions_during_traffic() {
    model(|| {
        let (tx, rx) = chan();
        let p = thread::spawn(move || {
            tx.send(0).unwrap();
            let tx2 = tx.clone();
            let q = thread::spawn(move || {
                tx2.send(10).unwrap();
            });
            tx.send(1).unwrap();
            q.join().unwrap();
            tx.send(2).unwrap();
        });
        let mut got = Vec::new();
        drain_in_order(&rx, &mut got);
        p.join().unwrap();
        let mine: Vec<_> = got.iter().copied().filter(|v| *v < 10).collect();
        assert_eq!(mine, vec![0, 1, 2]);
        assert_eq!(got.len(), 4);
    });
}

/// A consumer clones its receiver during traffic, the clone takes some and is dropped, and the
/// survivor returns to the single discipline and recycles what was retired.
#[test]
fn consumer_transitions_during_traffic() {
    model(|| {
        let (tx, rx) = chan();
        let p = thread::spawn(move || {
            for i in 0..3 {
                tx.send(i).unwrap();
            }
        });
        let rx2 = rx.clone();
        let c = thread::spawn(move || take_some(&rx2, 2));
        let mut got = take_some(&rx, 1);
        got.extend(c.join().unwrap());
        p.join().unwrap();
        drain_in_order(&rx, &mut got);
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2]);
    });
}

/// Parking: the eventcount never loses the wake-up of a sleeping receiver.
#[test]
fn parked_receiver_is_woken() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).unbounded::<usize>();
        let p = thread::spawn(move || {
            tx.send(7).unwrap();
        });
        assert_eq!(rx.recv(), Ok(7));
        p.join().unwrap();
    });
}

/// Batches: a single sender's elements published one by one (its iterator is user code), a
/// single receiver's run taken and published once.
#[test]
fn batches() {
    model(|| {
        let (tx, rx) = chan();
        let p = thread::spawn(move || {
            assert_eq!(tx.send_iter(0..4), Ok(4));
        });
        let mut got = Vec::new();
        while got.len() < 4 {
            if rx.recv_many(&mut got, 4).is_err() {
                break;
            }
        }
        p.join().unwrap();
        assert_eq!(got, vec![0, 1, 2, 3]);
    });
}

/// A bounded channel with parking on both sides: the sender sleeps on a full channel and the
/// receiver's take wakes it; nothing exceeds the bound.
#[test]
fn bounded_parking_both_sides() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<usize>(1);
        let p = thread::spawn(move || {
            tx.send(0).unwrap();
            tx.send(1).unwrap();
        });
        assert!(rx.len() <= 1);
        assert_eq!(rx.recv(), Ok(0));
        assert_eq!(rx.recv(), Ok(1));
        p.join().unwrap();
    });
}

/// Two senders asleep on a full bounded(1) channel, woken one per receive: no wake-up is
/// lost when each take wakes one sleeper instead of all of them.
/// Three threads that park: explored with one preemption (two take minutes).
#[test]
fn two_parked_senders_are_woken_one_per_take() {
    let mut b = loom::model::Builder::new();
    b.max_branches = 100_000;
    b.preemption_bound = Some(1);
    b.check(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<usize>(1);
        tx.send(0).unwrap();
        let tx2 = tx.clone();
        let a = thread::spawn(move || tx.send(1).unwrap());
        let b = thread::spawn(move || tx2.send(2).unwrap());
        let mut got = vec![rx.recv().unwrap(), rx.recv().unwrap(), rx.recv().unwrap()];
        a.join().unwrap();
        b.join().unwrap();
        got.sort_unstable();
        assert_eq!(got, vec![0, 1, 2]);
    });
}

/// Many to many, with a consumer switch mid-segment: shared consumers count the slots they
/// read, the last reader recycles the segment, and the producer reuses it while the other
/// consumer may still be in its neighbour. Loom flags any access to a recycled slot.
#[test]
fn recycled_segment_reused_under_shared_consumers() {
    model(|| {
        let (tx, rx) = chan();
        for i in 0..3 {
            tx.send(i).unwrap();
        }
        assert_eq!(rx.try_recv(), Ok(0));
        let rx2 = rx.clone(); // mid-segment: one slot already read
        let tx2 = tx.clone();
        let c = thread::spawn(move || take_some(&rx2, 2));
        let p = thread::spawn(move || {
            for i in 3..6 {
                tx2.send(i).unwrap();
            }
        });
        let mut got = take_some(&rx, 2);
        got.extend(c.join().unwrap());
        p.join().unwrap();
        drop(tx);
        drain_in_order(&rx, &mut got);
        got.sort_unstable();
        assert_eq!(got, vec![1, 2, 3, 4, 5]);
    });
}

/// A rendezvous `try_send` against a blocked receiver: the sender either hands the element
/// over (`Ok`, and the receiver has it) or takes it back when the receiver is not waiting
/// (`Full`); the compare-and-swap on the head decides, never both, never neither.
#[test]
fn rendezvous_try_send_delivers_or_takes_back() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Spin).bounded::<usize>(0);
        let c = thread::spawn(move || rx.recv().ok());
        let sent = tx.try_send(1).is_ok();
        // Disconnects the receiver if it is still waiting.
        drop(tx);
        let got = c.join().unwrap();
        assert_eq!(sent, got == Some(1));
    });
}

/// A rendezvous `send` whose receiver may leave without receiving: `Ok` exactly when the
/// receiver took the element, else the element comes back in the error.
#[test]
fn rendezvous_send_delivers_or_takes_back_on_disconnect() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Spin).bounded::<usize>(0);
        let p = thread::spawn(move || tx.send(5));
        let got = rx.try_recv().ok();
        drop(rx);
        let r = p.join().unwrap();
        match got {
            Some(v) => {
                assert_eq!(v, 5);
                assert_eq!(r, Ok(()));
            }
            None => assert_eq!(r.unwrap_err().0, 5),
        }
    });
}
