// A closure owning the struct with the sender is given to a generic `F: FnMut` parameter; the
// function puts it in a `Mutex` that two scoped threads take in turn, calling it.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Mutex;
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn run_twice<F: FnMut(u32) + Send>(f: F) {
    let m = Mutex::new(f);
    thread::scope(|s| {
        s.spawn(|| (m.lock().unwrap())(1));
        s.spawn(|| (m.lock().unwrap())(2));
    });
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { tx };
    run_twice(move |v| h.push(v));
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
