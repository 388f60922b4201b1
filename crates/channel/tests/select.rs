//! The channel's own tests of selection (`select!`, `Select`) and timer channels, beside the
//! ported crossbeam suites: a stress run with checksums over every kind of channel, selecting
//! senders against selecting receivers, a side that switches discipline while a select
//! waits, channels that never notify, and what happens to a chosen receive nobody takes.
//!
//! Sizes: 200 000 messages per stress run (a fraction of a second in a debug build), a few
//! hundred under Miri.
#![cfg(not(loom))]

use std::thread;
use std::time::{Duration, Instant};
use welltempered_channel::{
    Builder, Receiver, RecvError, Select, Sender, Wait, after, bounded, never, select, tick,
    unbounded,
};

fn messages() -> u64 {
    if cfg!(miri) { 300 } else { 200_000 }
}

/// One channel of each kind the stress run mixes.
fn kinds() -> Vec<(Sender<u64>, Receiver<u64>)> {
    vec![
        Builder::new().unbounded(),
        Builder::new().wait(Wait::Park).bounded(1),
        Builder::new().bounded(0),
        Builder::new().wait(Wait::Park).bounded(16),
    ]
}

/// Producers (one per channel, two on the first, one of them a short-lived clone) send
/// `(producer, sequence)` numbers; one selector receives from all the channels with `select!`.
/// Every message arrives exactly once and each producer's arrive in order.
#[test]
fn stress_select_receives_everything_once_in_order() {
    let per_producer = messages() / 5;
    let mut chans = kinds();
    let (rxs, txs): (Vec<_>, Vec<_>) = chans.drain(..).map(|(tx, rx)| (rx, tx)).unzip();
    let mut handles = Vec::new();
    let mut producer = 0u64;
    for tx in txs {
        let extra = (producer == 0).then(|| tx.clone());
        for tx in std::iter::once(tx).chain(extra) {
            let id = producer;
            producer += 1;
            handles.push(thread::spawn(move || {
                for seq in 0..per_producer {
                    tx.send(id << 32 | seq).unwrap();
                }
            }));
        }
    }
    let producers = producer as usize;
    let mut next = vec![0u64; producers];
    let mut open = [true; 4];
    let [r0, r1, r2, r3] = <[Receiver<u64>; 4]>::try_from(rxs).ok().unwrap();
    let mut got = 0u64;
    // Returns whether the channel is still open.
    let mut take = |v: Result<u64, RecvError>| match v {
        Ok(v) => {
            let (id, seq) = ((v >> 32) as usize, v & 0xffff_ffff);
            assert_eq!(seq, next[id], "producer {id}: out of order or duplicated");
            next[id] += 1;
            got += 1;
            true
        }
        Err(RecvError) => false,
    };
    let never = never::<u64>();
    let pick = |open: bool, r: &Receiver<u64>| if open { r.clone() } else { never.clone() };
    while open.iter().any(|&o| o) {
        let (a, b, c, d) = (
            pick(open[0], &r0),
            pick(open[1], &r1),
            pick(open[2], &r2),
            pick(open[3], &r3),
        );
        select! {
            recv(a) -> v => open[0] = take(v),
            recv(b) -> v => open[1] = take(v),
            recv(c) -> v => open[2] = take(v),
            recv(d) -> v => open[3] = take(v),
        }
    }
    for h in handles {
        h.join().unwrap();
    }
    assert_eq!(got, per_producer * producers as u64);
    assert!(next.iter().all(|&n| n == per_producer));
}

/// A selecting sender against a selecting receiver, on a bounded and a rendezvous channel at
/// once: each value goes through exactly once.
#[test]
fn selecting_senders_meet_selecting_receivers() {
    let n = messages() / 10;
    let (tx_a, rx_a) = bounded::<u64>(2);
    let (tx_b, rx_b) = bounded::<u64>(0);
    let sender = thread::spawn(move || {
        for i in 0..n {
            select! {
                send(tx_a, i) -> r => r.unwrap(),
                send(tx_b, i) -> r => r.unwrap(),
            }
        }
    });
    let mut sum = 0;
    let mut count = 0;
    let (mut a_open, mut b_open) = (true, true);
    while a_open || b_open {
        let (a, b) = (
            if a_open { rx_a.clone() } else { never() },
            if b_open { rx_b.clone() } else { never() },
        );
        select! {
            recv(a) -> v => match v { Ok(v) => { sum += v; count += 1 } Err(_) => a_open = false },
            recv(b) -> v => match v { Ok(v) => { sum += v; count += 1 } Err(_) => b_open = false },
        }
    }
    sender.join().unwrap();
    assert_eq!(count, n);
    assert_eq!(sum, n * (n - 1) / 2);
}

/// While one thread sleeps in a select on a channel, another clones and drops senders of it
/// (so its producers switch between the single and the shared discipline) and sends through
/// each clone: every element is selected.
#[test]
fn discipline_switches_while_selecting() {
    let n = messages() / 20;
    let (tx, rx) = Builder::new().wait(Wait::Park).unbounded::<u64>();
    let (_tx2, rx2) = unbounded::<u64>();
    let producer = thread::spawn(move || {
        for i in 0..n {
            let clone = tx.clone();
            if i % 7 == 0 {
                thread::yield_now();
            }
            clone.send(i).unwrap();
        }
    });
    let mut expect = 0;
    loop {
        select! {
            recv(rx) -> v => match v {
                Ok(v) => { assert_eq!(v, expect); expect += 1 }
                Err(_) => break,
            },
            recv(rx2) -> _ => unreachable!(),
        }
    }
    producer.join().unwrap();
    assert_eq!(expect, n);
}

/// A spinning channel's senders never notify: a select that includes it polls, and still
/// receives.
#[test]
fn spinning_channels_are_polled() {
    let (tx, rx) = Builder::new().wait(Wait::Spin).unbounded::<u32>();
    let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
    let h = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        tx.send(9).unwrap();
    });
    let got = select! {
        recv(rx) -> v => v,
        recv(rx2) -> _ => unreachable!(),
    };
    assert_eq!(got, Ok(9));
    h.join().unwrap();
}

/// A chosen receive whose `SelectedOperation` is dropped keeps its element: the next
/// selection chooses it again; and removing the operation drops it.
#[test]
fn a_dropped_selected_operation_loses_nothing() {
    let (tx, rx) = unbounded::<String>();
    let (_tx2, rx2) = unbounded::<String>();
    tx.send("kept".into()).unwrap();
    let mut sel = Select::new();
    let i = sel.recv(&rx);
    let _j = sel.recv(&rx2);
    let oper = sel.select();
    assert_eq!(oper.index(), i);
    drop(oper);
    assert!(rx.is_empty(), "the element was taken during the selection");
    let oper = sel.try_select().expect("the held element is chosen again");
    assert_eq!(oper.index(), i);
    assert_eq!(oper.recv(&rx).as_deref(), Ok("kept"));
}

/// Completing with a handle that was not the chosen one panics, and does not take the
/// element; the right handle still gets it.
#[test]
fn completing_with_the_wrong_handle_panics() {
    let (tx, rx) = unbounded::<u8>();
    let (_tx2, rx2) = unbounded::<u8>();
    tx.send(1).unwrap();
    let mut sel = Select::new_biased();
    let i = sel.recv(&rx);
    sel.recv(&rx2);
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let oper = sel.select();
        oper.recv(&rx2)
    }));
    assert!(caught.is_err());
    let oper = sel.select();
    assert_eq!(oper.index(), i);
    assert_eq!(oper.recv(&rx), Ok(1));
}

/// `ready` reports without taking; `remove` takes an operation out for good.
#[test]
fn ready_and_remove() {
    let (tx1, rx1) = unbounded::<u8>();
    let (tx2, rx2) = unbounded::<u8>();
    let mut sel = Select::new();
    let a = sel.recv(&rx1);
    let b = sel.recv(&rx2);
    assert!(sel.try_ready().is_err());
    tx2.send(2).unwrap();
    assert_eq!(sel.ready(), b);
    assert_eq!(rx2.len(), 1, "ready takes nothing");
    sel.remove(b);
    assert!(sel.ready_timeout(Duration::from_millis(5)).is_err());
    tx1.send(1).unwrap();
    assert_eq!(sel.ready(), a);
    let oper = sel.select();
    assert_eq!(oper.index(), a);
    assert_eq!(oper.recv(&rx1), Ok(1));
}

/// A send chosen by `Select` is ready; completing it delivers.
#[test]
fn select_send_then_complete() {
    let (tx, rx) = bounded::<u8>(1);
    tx.send(0).unwrap();
    let mut sel = Select::new();
    let s = sel.send(&tx);
    assert!(sel.try_select().is_err(), "full: not ready");
    assert_eq!(rx.recv(), Ok(0));
    let oper = sel.select();
    assert_eq!(oper.index(), s);
    oper.send(&tx, 5).unwrap();
    assert_eq!(rx.recv(), Ok(5));
}

/// Timers: `after` fires once, not early; `tick` does not fire early and drops ticks nobody
/// takes (the next delivery is one period after the previous one was taken, not queued);
/// `never` never fires and never disconnects; all of them work in `select!`. Only lower
/// bounds on time are asserted: a slow run (Miri, a loaded machine) may see any delivery late.
#[test]
fn timers() {
    let start = Instant::now();
    let period = Duration::from_millis(15);
    let a = after(period);
    if let Ok(at) = a.try_recv() {
        assert!(at >= start + period && Instant::now() >= at, "fired early");
    } else {
        let at = a.recv().unwrap();
        assert!(at >= start + period);
        assert!(Instant::now() >= at);
    }
    assert!(
        a.recv_timeout(Duration::from_millis(5)).is_err(),
        "once only"
    );

    let period = Duration::from_millis(5);
    let start = Instant::now();
    let t = tick(period);
    let first = t.recv().unwrap();
    assert!(first >= start + period);
    thread::sleep(period * 6);
    // Several periods passed: one delivery is there, due in the past...
    let taken = Instant::now();
    let late = t.try_recv().expect("a delivery is due");
    assert!(late <= taken);
    // ...and the missed ones were dropped: the next is due a period after that one was taken.
    let next = t.recv().unwrap();
    assert!(next >= taken + period, "ticks were queued");

    let n = never::<u8>();
    assert!(n.recv_timeout(Duration::from_millis(5)).is_err());
    let timeout = after(Duration::from_millis(10));
    let fired = select! {
        recv(n) -> _ => false,
        recv(timeout) -> _ => true,
    };
    assert!(fired);
}

/// A timeout of `select!` does not end early, and an operation that completes in time wins.
#[test]
fn select_timeout_and_default() {
    let (tx, rx) = unbounded::<u8>();
    let start = Instant::now();
    let timed_out = select! {
        recv(rx) -> _ => false,
        default(Duration::from_millis(20)) => true,
    };
    assert!(timed_out);
    assert!(start.elapsed() >= Duration::from_millis(20));
    let h = thread::spawn(move || {
        thread::sleep(Duration::from_millis(5));
        tx.send(3).unwrap();
        tx
    });
    let got = select! {
        recv(rx) -> v => v,
        default(Duration::from_secs(30)) => panic!("the send came first"),
    };
    assert_eq!(got, Ok(3));
    drop(h.join().unwrap());
    let disconnected = select! {
        recv(rx) -> v => v,
        default => Ok(0),
    };
    assert_eq!(disconnected, Err(RecvError));
}

/// An element held by a `Select` (its `SelectedOperation` dropped) is dropped with the
/// `Select`; its `Drop` is user code that may use the same channel: it runs with nothing of
/// the selection half done.
#[test]
fn a_held_element_whose_drop_reenters_the_channel() {
    struct SendsOnDrop(Option<Sender<SendsOnDrop>>);
    impl Drop for SendsOnDrop {
        fn drop(&mut self) {
            if let Some(tx) = self.0.take() {
                tx.send(SendsOnDrop(None)).unwrap();
            }
        }
    }
    let (tx, rx) = unbounded::<SendsOnDrop>();
    tx.send(SendsOnDrop(Some(tx.clone()))).unwrap();
    {
        let mut sel = Select::new();
        sel.recv(&rx);
        drop(sel.select());
    }
    // The held element's drop sent a new one.
    assert!(rx.try_recv().is_ok_and(|e| e.0.is_none()));
}

/// A `select!` send's message is evaluated only when that send is chosen (crossbeam's
/// semantics): not for a full channel, not when another case wins, once when it is chosen.
#[test]
fn a_send_message_is_evaluated_only_when_chosen() {
    let evaluated = std::cell::Cell::new(0u32);
    let message = |v: u32| {
        evaluated.set(evaluated.get() + 1);
        v
    };
    let (full_tx, full_rx) = bounded::<u32>(1);
    full_tx.send(0).unwrap();
    let (tx, rx) = unbounded::<u32>();
    tx.send(7).unwrap();

    // The full channel's send cannot proceed: the receive is chosen, the message not evaluated.
    let got = select! {
        send(full_tx, message(1)) -> _ => panic!("sent on a full channel"),
        recv(rx) -> v => v.unwrap(),
    };
    assert_eq!((got, evaluated.get()), (7, 0));

    // Nothing can proceed: `default`, still not evaluated.
    select! {
        send(full_tx, message(2)) -> _ => panic!("sent on a full channel"),
        recv(rx) -> _ => panic!("received from an empty channel"),
        default => {}
    }
    assert_eq!(evaluated.get(), 0);

    // Room: evaluated once, and sent.
    assert_eq!(full_rx.recv(), Ok(0));
    select! {
        send(full_tx, message(3)) -> res => res.unwrap(),
        recv(rx) -> _ => panic!("received from an empty channel"),
    }
    assert_eq!((evaluated.get(), full_rx.try_recv()), (1, Ok(3)));

    // A disconnected channel's send is chosen (with its error), its message evaluated and
    // handed back.
    drop(full_rx);
    select! {
        send(full_tx, message(4)) -> res => assert_eq!(res.unwrap_err().into_inner(), 4),
        recv(rx) -> _ => panic!("received from an empty channel"),
    }
    assert_eq!(evaluated.get(), 2);
}

/// The message is evaluated in the caller's code: `?` returns from the caller's function and
/// `continue` continues the caller's loop (no loop of the expansion captures them).
#[test]
fn a_send_message_may_return_or_continue() {
    fn send_parsed(tx: &Sender<u32>, text: &str) -> Result<(), std::num::ParseIntError> {
        select! {
            send(tx, text.parse::<u32>()?) -> res => res.unwrap(),
        }
        Ok(())
    }
    let (tx, rx) = unbounded();
    assert!(send_parsed(&tx, "12").is_ok());
    assert!(send_parsed(&tx, "twelve").is_err());
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), [12]);

    let mut skipped = 0;
    for item in [Some(1), None, Some(3)] {
        select! {
            send(tx, match item {
                Some(v) => v,
                None => {
                    skipped += 1;
                    continue;
                }
            }) -> res => res.unwrap(),
        }
    }
    assert_eq!(
        (skipped, rx.try_iter().collect::<Vec<_>>()),
        (1, vec![1, 3])
    );
}

/// A message that panics, or that receives on the very channel it is sent to: the selection
/// holds no registration while user code runs, and every channel works afterwards.
#[test]
fn a_send_message_that_panics_or_reenters() {
    fn boom() -> u32 {
        panic!("message")
    }
    let (tx, rx) = bounded::<u32>(2);
    let (other_tx, other_rx) = unbounded::<u32>();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        select! {
            send(tx, boom()) -> _ => {},
            recv(other_rx) -> _ => {},
        }
    }));
    assert!(caught.is_err());
    // Nothing is left registered or counted: both channels carry messages both ways, and a
    // blocked receive on the other channel is woken by a send.
    tx.send(1).unwrap();
    let waiter = thread::spawn(move || other_rx.recv());
    thread::sleep(Duration::from_millis(20));
    other_tx.send(2).unwrap();
    assert_eq!(waiter.join().unwrap(), Ok(2));

    // Re-entering: the message is the element received from the same channel.
    select! {
        send(tx, rx.recv().unwrap() + 10) -> res => res.unwrap(),
    }
    assert_eq!(rx.try_recv(), Ok(11));
}

/// A selection with a send on a rendezvous channel evaluates every send's message before it
/// starts (a rendezvous send must be able to try, fail and try again within the selection).
#[test]
fn a_rendezvous_send_evaluates_messages_first() {
    let evaluated = std::cell::Cell::new(0u32);
    let (zero_tx, _zero_rx) = bounded::<u32>(0);
    let (tx, rx) = unbounded::<u32>();
    tx.send(5).unwrap();
    let got = select! {
        send(zero_tx, { evaluated.set(evaluated.get() + 1); 1 }) -> _ => panic!("nobody receives"),
        recv(rx) -> v => v.unwrap(),
    };
    assert_eq!((got, evaluated.get()), (5, 1));
}

/// `spsc` handles are cases of `select!`, beside general and shareable handles and references
/// to them: a selection sleeping on an spsc receiver is woken by its sender on another thread,
/// an spsc sender's case sends, and a disconnected spsc side is selected with its error. The
/// selection borrows the handles (both still work afterwards, and neither is cloned: the
/// channel stays single/single).
#[test]
fn spsc_handles_are_select_cases() {
    let (stx, srx) = welltempered_channel::spsc::bounded::<u64>(1);
    let (gtx, grx) = unbounded::<u64>();
    let shared = grx.into_shared();
    let by_ref = &shared;
    let sender = thread::spawn(move || {
        thread::sleep(Duration::from_millis(20));
        stx.send(7).unwrap();
        stx
    });
    let got = select! {
        recv(srx) -> v => v,
        recv(by_ref) -> _ => unreachable!("nothing is sent on the general channel"),
    };
    assert_eq!(got, Ok(7));
    let stx = sender.join().unwrap();

    // A send case on the spsc sender: the channel has room for one.
    let sent = select! {
        send(stx, 8) -> res => res.map(|()| "spsc"),
        send(gtx, 9) -> res => res.map(|()| "general"),
    };
    let which = sent.unwrap();
    match which {
        "spsc" => assert_eq!(srx.recv(), Ok(8)),
        _ => assert_eq!(shared.recv(), Ok(9)),
    }

    // Disconnection of the spsc sender is selected as an error, and the handles still work.
    drop(stx);
    let got = select! {
        recv(srx) -> v => v,
        default(Duration::from_secs(10)) => panic!("the disconnection was not seen"),
    };
    assert_eq!(got, Err(RecvError));
    gtx.send(10).unwrap();
    assert_eq!(shared.recv(), Ok(10));
}

/// How many rounds the rendezvous commitment tests run (each round meets once).
fn rounds() -> u32 {
    if cfg!(miri) { 20 } else { 2_000 }
}

/// A rendezvous send of `Select` chosen and then abandoned by a panic in the caller's code
/// before `SelectedOperation::send`: a receiver committed to it (or blocked waiting) is
/// released, and takes the next send. Nothing is lost or received twice.
#[test]
fn rendezvous_select_send_abandoned_by_a_panic() {
    let (tx, rx) = bounded::<u32>(0);
    let (_tx2, rx2) = unbounded::<u32>();
    let n = rounds();
    let receiver = thread::spawn(move || (0..n).map(|_| rx.recv().unwrap()).collect::<Vec<_>>());
    for i in 0..n {
        let mut sel = Select::new();
        let send = sel.send(&tx);
        sel.recv(&rx2);
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let oper = sel.select();
            assert_eq!(oper.index(), send);
            panic!("the caller's code panics before it sends");
        }));
        assert!(panicked.is_err());
        drop(sel);
        tx.send(i).unwrap();
    }
    assert_eq!(receiver.join().unwrap(), (0..n).collect::<Vec<_>>());
}

/// Selections that each receive and send on one rendezvous channel, in pairs with nobody
/// else: they commit each other, never both sending. Each value sent is received once, by a
/// thread other than its sender.
#[test]
fn rendezvous_selections_commit_each_other() {
    let (tx, rx) = bounded::<(u32, u32)>(0);
    let n = rounds();
    let threads: Vec<_> = (0..2u32)
        .map(|me| {
            let (tx, rx) = (tx.clone(), rx.clone());
            thread::spawn(move || {
                let (mut sent, mut got) = (Vec::new(), Vec::new());
                for k in 0..n {
                    let mut sel = Select::new();
                    let r = sel.recv(&rx);
                    let s = sel.send(&tx);
                    let oper = sel.select();
                    match oper.index() {
                        i if i == r => got.push(oper.recv(&rx).unwrap()),
                        i if i == s => {
                            oper.send(&tx, (me, k)).unwrap();
                            sent.push((me, k));
                        }
                        _ => unreachable!(),
                    }
                }
                (sent, got)
            })
        })
        .collect();
    drop((tx, rx));
    let results: Vec<_> = threads.into_iter().map(|t| t.join().unwrap()).collect();
    for (me, (sent, got)) in results.iter().enumerate() {
        let other = &results[1 - me];
        assert!(got.iter().all(|&(from, _)| from as usize != me));
        assert_eq!(
            got, &other.0,
            "received exactly what the other sent, in order"
        );
        assert_eq!(sent.len() + got.len(), n as usize);
    }
}

/// The macro's rendezvous send, asleep in a selection, is taken by `try_recv` (which commits
/// it), and a sleeping selection's receive is given an element by `try_send`.
#[test]
fn rendezvous_try_operations_commit_sleeping_selections() {
    let (tx, rx) = bounded::<u32>(0);
    let (_tx2, rx2) = unbounded::<u32>();
    let n = rounds();
    let sender = thread::spawn(move || {
        for i in 0..n {
            select! {
                send(tx, i) -> r => r.unwrap(),
                recv(rx2) -> _ => unreachable!(),
            }
        }
        tx
    });
    let mut got = Vec::new();
    while got.len() < n as usize {
        match rx.try_recv() {
            Ok(v) => got.push(v),
            Err(_) => thread::yield_now(),
        }
    }
    assert_eq!(got, (0..n).collect::<Vec<_>>());
    let tx = sender.join().unwrap();

    let (_tx3, rx3) = unbounded::<u32>();
    let receiver = thread::spawn(move || {
        (0..n)
            .map(|_| {
                select! {
                    recv(rx) -> v => v.unwrap(),
                    recv(rx3) -> _ => unreachable!(),
                }
            })
            .collect::<Vec<_>>()
    });
    for i in 0..n {
        let mut v = i;
        loop {
            match tx.try_send(v) {
                Ok(()) => break,
                Err(e) => {
                    v = e.into_inner();
                    thread::yield_now();
                }
            }
        }
    }
    assert_eq!(receiver.join().unwrap(), (0..n).collect::<Vec<_>>());
}

/// The caller's code between `Select::select` and `SelectedOperation::send` re-enters the
/// same rendezvous channel (a `try_send` of its own) before it completes the chosen send:
/// whichever way the send was chosen (a committed receive waiting on it, or a receiver
/// blocked in `recv`), every value that was sent is received once, and nothing hangs.
#[test]
fn rendezvous_select_send_reentered_before_sending() {
    for _ in 0..rounds() / 10 {
        let (tx, rx) = bounded::<u32>(0);
        let (_tx2, rx2) = unbounded::<u32>();
        let receiver = thread::spawn(move || rx.iter().collect::<Vec<_>>());
        let mut sel = Select::new();
        let send = sel.send(&tx);
        sel.recv(&rx2);
        let oper = sel.select();
        assert_eq!(oper.index(), send);
        let reentered = tx.try_send(99).is_ok();
        oper.send(&tx, 1).unwrap();
        drop(sel);
        drop(tx);
        let expected = if reentered { vec![99, 1] } else { vec![1] };
        assert_eq!(receiver.join().unwrap(), expected);
    }
}
