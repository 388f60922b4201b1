// The struct holding a sender is put in a `Vec` and taken out by a `for` pattern; each one is
// used, then lent to a scoped thread.
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

fn make_holder(tx: Sender<u32>) -> Holder {
    Holder { tx }
}

fn main() {
    let (tx, rx) = unbounded();
    let holders = vec![make_holder(tx)];
    for mut h in holders {
        h.push(1);
        thread::scope(|s| {
            s.spawn(|| h.push(2));
        });
    }
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
