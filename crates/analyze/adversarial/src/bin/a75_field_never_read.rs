// A sender kept in a field nothing reads, only to disconnect the channel when its struct is
// dropped; the struct is cloned and its clones dropped on other threads. No thread sends.
use crossbeam_channel::{bounded, Receiver, Sender};
use std::thread;

#[derive(Clone)]
struct Subscription {
    _closer: Sender<()>,
    messages: Receiver<u32>,
}

fn subscribe() -> Subscription {
    let (closer_tx, closer_rx) = bounded(0);
    let (msg_tx, messages) = bounded(8);
    thread::spawn(move || {
        msg_tx.send(1).unwrap();
        // Returns once every `Subscription` is gone.
        let _ = closer_rx.recv();
    });
    Subscription {
        _closer: closer_tx,
        messages,
    }
}

fn main() {
    let s = subscribe();
    let t = s.clone();
    thread::spawn(move || drop(t)).join().unwrap();
    println!("{}", s.messages.recv().unwrap());
    drop(s);
    crossbeam_channel::report();
}
