//! Loom models of selection: the registration and wake-up protocol between a selector asleep
//! on several channels and the threads that send, receive or change a side's discipline
//! meanwhile. A lost wake-up shows as a deadlock (every thread blocked), which loom reports.
//!
//! Run: `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-channel
//! --test loom_select --release`.
#![cfg(loom)]

use loom::thread;
use welltempered_channel::{Builder, Select, Wait, select};

/// Runs a model with a raised branch bound (the eventcount's mutex adds many).
fn model(f: impl Fn() + Sync + Send + 'static) {
    let mut b = loom::model::Builder::new();
    b.max_branches = 100_000;
    b.check(f);
}

/// A selector asleep on two channels is woken by a send on the second.
#[test]
fn select_two_channels_one_sender() {
    model(|| {
        let (_tx1, rx1) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let (tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let s = thread::spawn(move || tx2.send(7).unwrap());
        let got = select! {
            recv(rx1) -> _ => unreachable!("nothing is sent on the first channel"),
            recv(rx2) -> v => v,
        };
        assert_eq!(got, Ok(7));
        s.join().unwrap();
    });
}

/// The sender's side switches from the single to the shared discipline (a clone sends, then
/// is dropped) while the selector waits: the element is still selected, and the
/// disconnection of the last sender is seen by the next selection.
#[test]
fn select_while_the_sender_side_switches() {
    model(|| {
        let (tx1, rx1) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let s = thread::spawn(move || {
            let clone = tx1.clone();
            drop(tx1);
            clone.send(1).unwrap();
        });
        let mut sel = Select::new();
        let i1 = sel.recv(&rx1);
        let _i2 = sel.recv(&rx2);
        let oper = sel.select();
        assert_eq!(oper.index(), i1);
        assert_eq!(oper.recv(&rx1), Ok(1));
        // Then the disconnection: selected as a completed receive that failed.
        let oper = sel.select();
        assert_eq!(oper.index(), i1);
        assert!(oper.recv(&rx1).is_err());
        s.join().unwrap();
    });
}

/// Two selectors, each sleeping on both channels, and one sender per channel: every element
/// is received exactly once and nobody sleeps through a send.
#[test]
fn two_selectors_two_senders() {
    model(|| {
        let (tx1, rx1) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let (tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let (rx1b, rx2b) = (rx1.clone(), rx2.clone());
        // Each sender is handed back, alive, so no channel disconnects before both selections
        // end (a disconnected channel would be a valid choice).
        let s1 = thread::spawn(move || {
            tx1.send(1).unwrap();
            tx1
        });
        let s2 = thread::spawn(move || {
            tx2.send(2).unwrap();
            tx2
        });
        let other = thread::spawn(move || {
            select! {
                recv(rx1b) -> v => v.unwrap(),
                recv(rx2b) -> v => v.unwrap(),
            }
        });
        let mine = select! {
            recv(rx1) -> v => v.unwrap(),
            recv(rx2) -> v => v.unwrap(),
        };
        let theirs = other.join().unwrap();
        assert_eq!(mine + theirs, 3);
        s1.join().unwrap();
        s2.join().unwrap();
    });
}

/// A selecting sender on a full bounded channel is woken when a receiver makes room.
#[test]
fn select_send_woken_by_room() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(1);
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        tx.send(1).unwrap();
        let r = thread::spawn(move || {
            assert_eq!(rx.recv(), Ok(1));
            rx.recv()
        });
        select! {
            send(tx, 2) -> res => res.unwrap(),
            recv(rx2) -> _ => unreachable!(),
        }
        assert_eq!(r.join().unwrap(), Ok(2));
    });
}

/// Two selecting senders race for the one slot of a bounded channel: both may be chosen for
/// the same room and given their messages; the one that finds the slot taken goes on selecting
/// with its message, and the receiver gets both, once each.
#[test]
fn select_sends_race_for_room() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(1);
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let (txb, rx2b) = (tx.clone(), rx2.clone());
        let other = thread::spawn(move || {
            select! {
                send(txb, 1) -> res => res.unwrap(),
                recv(rx2b) -> _ => unreachable!(),
            }
        });
        let receiver = thread::spawn(move || rx.recv().unwrap() + rx.recv().unwrap());
        select! {
            send(tx, 2) -> res => res.unwrap(),
            recv(rx2) -> _ => unreachable!(),
        }
        assert_eq!(receiver.join().unwrap(), 3);
        other.join().unwrap();
    });
}

/// A rendezvous: a selecting receiver (with a second operation, so that the selection
/// protocol runs rather than the lone operation's blocking form) and a blocking sender meet.
#[test]
fn select_recv_rendezvous() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let s = thread::spawn(move || tx.send(5).unwrap());
        let got = select! {
            recv(rx) -> v => v,
            recv(rx2) -> _ => unreachable!(),
        };
        assert_eq!(got, Ok(5));
        s.join().unwrap();
    });
}

/// A rendezvous send of a dynamic selection (with a second operation) and a blocked receiver:
/// the send is chosen by committing the selection (the receiver commits its entry and waits
/// for the value), or for the blocked receiver; either way the value arrives once.
#[test]
fn select_send_rendezvous_dynamic() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let r = thread::spawn(move || rx.recv().unwrap());
        let mut sel = Select::new();
        let send = sel.send(&tx);
        sel.recv(&rx2);
        let oper = sel.select();
        assert_eq!(oper.index(), send);
        oper.send(&tx, 4).unwrap();
        assert_eq!(r.join().unwrap(), 4);
    });
}

/// A selection with a receive and a send on one rendezvous channel, and a blocking sender:
/// the selection receives (no receiver exists for its own send, and its own receive is not
/// one).
#[test]
fn select_recv_and_send_on_one_rendezvous() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let tx2 = tx.clone();
        let s = thread::spawn(move || tx2.send(2).unwrap());
        let got = select! {
            recv(rx) -> v => v.unwrap(),
            send(tx, 1) -> _ => unreachable!("nobody receives"),
        };
        assert_eq!(got, 2);
        s.join().unwrap();
    });
}

/// A chosen rendezvous send whose `SelectedOperation` is dropped without sending: a receiver
/// committed to it is released and takes the next send instead.
#[test]
fn abandoned_select_send_releases_the_receiver() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let (_tx2, rx2) = Builder::new().wait(Wait::Park).unbounded::<u32>();
        let r = thread::spawn(move || rx.recv().unwrap());
        let mut sel = Select::new();
        sel.send(&tx);
        sel.recv(&rx2);
        drop(sel.select());
        drop(sel);
        tx.send(9).unwrap();
        assert_eq!(r.join().unwrap(), 9);
    });
}

/// Two selections, each with a receive and a send on one rendezvous channel, and nobody else:
/// they commit each other, so one sends and the other receives its value (where each choosing
/// its send would leave both waiting).
#[test]
fn two_selections_match() {
    model(|| {
        let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
        let (tx2, rx2) = (tx.clone(), rx.clone());
        let meet = |tx: welltempered_channel::Sender<u32>,
                    rx: welltempered_channel::Receiver<u32>,
                    me: u32| {
            select! {
                recv(rx) -> v => Some(v.unwrap()),
                send(tx, me) -> r => {
                    r.unwrap();
                    None
                }
            }
        };
        let other = thread::spawn(move || meet(tx2, rx2, 2));
        let mine = meet(tx, rx, 1);
        let theirs = other.join().unwrap();
        assert!(
            matches!((mine, theirs), (Some(2), None) | (None, Some(1))),
            "{mine:?} {theirs:?}"
        );
    });
}
