// A function of the crate takes the struct holding a sender, uses it, wraps it in a struct made
// for one thread, and moves the wrapper, unused elsewhere, into that thread.
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

fn hand_over(mut h: Holder) {
    h.push(1);
    let mut w = Wrap { inner: h };
    thread::spawn(move || w.inner.push(2)).join().unwrap();
}

fn main() {
    let (tx, rx) = unbounded();
    hand_over(Holder { tx });
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
