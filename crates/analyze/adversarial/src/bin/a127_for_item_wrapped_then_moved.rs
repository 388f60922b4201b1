// The struct holding a sender is taken out of a `Vec` by `for`, used, wrapped in a struct made
// for one thread, and the wrapper moved, unused elsewhere, into that thread.
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

struct Wrap {
    inner: Holder,
}

fn main() {
    let (tx, rx) = unbounded();
    let mut all = Vec::new();
    all.push(Holder { tx });
    for mut h in all {
        h.push(1);
        let mut w = Wrap { inner: h };
        thread::spawn(move || w.inner.push(2)).join().unwrap();
    }
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
