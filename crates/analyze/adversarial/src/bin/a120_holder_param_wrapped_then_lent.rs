// A function puts the struct it is given into a local wrapper of its own and lends the
// wrapper to a scoped thread, which sends through the struct; the function sends through it
// afterwards.
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

fn work(h: Holder) {
    let mut w = Wrap { inner: h };
    thread::scope(|s| {
        s.spawn(|| w.inner.push(1));
    });
    w.inner.push(2);
}

fn main() {
    let (tx, rx) = unbounded();
    work(Holder { tx });
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
