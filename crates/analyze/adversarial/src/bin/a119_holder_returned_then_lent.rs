// A function of the crate builds and returns the struct holding a sender; its caller lends
// the struct to a scoped thread, and sends through it afterwards.
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

fn make(tx: Sender<u32>) -> Holder {
    Holder { tx }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = make(tx);
    thread::scope(|s| {
        s.spawn(|| h.push(1));
    });
    h.push(2);
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
