// A struct holding a sender sends on the main thread, then one of its own methods lends
// `self` to a scoped thread that sends through it.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }

    fn push_elsewhere(&mut self, v: u32) {
        thread::scope(|s| {
            s.spawn(|| self.push(v));
        });
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { tx };
    h.push(1);
    h.push_elsewhere(2);
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
