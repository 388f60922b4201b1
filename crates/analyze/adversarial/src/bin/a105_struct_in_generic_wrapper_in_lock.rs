// The struct holding the sender is wrapped in a generic struct of the crate, built by its `new`,
// and the wrapper goes in a `Mutex`: nothing names the wrapper's type argument. Two scoped
// threads take the lock in turn and send.
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

struct Wrap<T> {
    item: T,
}

impl<T> Wrap<T> {
    fn new(item: T) -> Self {
        Wrap { item }
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let h = Holder { tx };
    let m = Mutex::new(Wrap::new(h));
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().item.push(1));
        s.spawn(|| m.lock().unwrap().item.push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
