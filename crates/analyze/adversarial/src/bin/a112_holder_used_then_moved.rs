// A struct holding a sender, built by a function of the crate, sends on the main thread and
// is then moved into a thread that sends through it too.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn new(tx: Sender<u32>) -> Self {
        Holder { tx }
    }

    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder::new(tx);
    h.push(1);
    thread::spawn(move || h.push(2)).join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
