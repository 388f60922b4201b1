// The function that makes the channel returns the struct holding its sender in a tuple, with
// the receiver; the caller uses the struct, then lends it to a scoped thread.
use crossbeam_channel::{unbounded, Receiver, Sender};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn make() -> (Holder, Receiver<u32>) {
    let (tx, rx) = unbounded();
    (Holder { tx }, rx)
}

fn main() {
    let (mut h, rx) = make();
    h.push(1);
    thread::scope(|s| {
        s.spawn(|| h.push(2));
    });
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
