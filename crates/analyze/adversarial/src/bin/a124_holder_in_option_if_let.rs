// The struct holding a sender is returned in an `Option` by a function of the crate and taken
// out by `if let`; it is used, then lent to a scoped thread.
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

fn maybe(tx: Sender<u32>, rx: Receiver<u32>) -> (Option<Holder>, Receiver<u32>) {
    (Some(Holder { tx }), rx)
}

fn main() {
    let (tx, rx) = unbounded();
    let (o, rx) = maybe(tx, rx);
    if let Some(mut h) = o {
        h.push(1);
        thread::scope(|s| {
            s.spawn(|| h.push(2));
        });
    }
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
