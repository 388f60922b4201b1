// A receiver in a private field, used only by a `&mut self` method, of a struct that a generic
// struct of the crate holds in a `Mutex`; two scoped threads take the lock in turn, once each.
// Two threads receive.
use crossbeam_channel::{unbounded, Receiver};
use std::sync::Mutex;
use std::thread;

struct Shared<T> {
    inner: Mutex<T>,
}

impl<T> Shared<T> {
    fn new(t: T) -> Self {
        Self {
            inner: Mutex::new(t),
        }
    }
}

struct Holder {
    inbox: Receiver<u32>,
}

impl Holder {
    fn get(&mut self) -> u32 {
        self.inbox.recv().unwrap()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    let shared = Shared::new(Holder { inbox: rx });
    let total = thread::scope(|s| {
        let a = s.spawn(|| shared.inner.lock().unwrap().get());
        let b = s.spawn(|| shared.inner.lock().unwrap().get());
        a.join().unwrap() + b.join().unwrap()
    });
    println!("{total}");
    crossbeam_channel::report();
}
