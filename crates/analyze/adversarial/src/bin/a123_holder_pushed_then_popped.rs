// The struct holding a sender is pushed into a `Vec` made empty, popped out, used, then moved
// into a thread after its first use.
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
    let mut stack = Vec::new();
    stack.push(Holder { tx });
    let mut h = stack.pop().unwrap();
    h.push(1);
    thread::spawn(move || h.push(2)).join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
