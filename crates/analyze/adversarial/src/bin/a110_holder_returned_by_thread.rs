// A struct holding a sender is moved into a thread, which sends through it and hands the
// struct back when joined; the main thread then sends through it too.
use crossbeam_channel::{unbounded, Sender};
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
    let mut h = Holder { tx };
    h = thread::spawn(move || {
        h.push(1);
        h
    })
    .join()
    .unwrap();
    h.push(2);
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
