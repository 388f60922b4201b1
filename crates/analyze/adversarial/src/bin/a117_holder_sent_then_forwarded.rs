// A struct holding a sender is sent, unused, to a thread that sends through it and sends the
// struct on to a second thread, which sends through it too.
use crossbeam_channel::{unbounded, Sender};
use std::sync::mpsc;
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let (first_tx, first_rx) = mpsc::channel::<Holder>();
    let (second_tx, second_rx) = mpsc::channel::<Holder>();
    let second = thread::spawn(move || {
        for mut h in second_rx {
            h.push(2);
        }
    });
    let first = thread::spawn(move || {
        for mut h in first_rx {
            h.push(1);
            second_tx.send(h).unwrap();
        }
    });
    let h = Holder { tx };
    first_tx.send(h).unwrap();
    drop(first_tx);
    first.join().unwrap();
    second.join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
