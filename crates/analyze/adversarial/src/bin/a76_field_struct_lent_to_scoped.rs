// A receiver in a private field, used only by `&mut self` methods, of a struct that is never
// put behind an `Arc`: the struct itself is lent, in a `Mutex`, to two scoped threads, which
// take turns calling the method, once each. Two threads receive.
use crossbeam_channel::{unbounded, Receiver};
use std::sync::Mutex;
use std::thread;

struct Queue {
    rx: Receiver<u32>,
}

impl Queue {
    fn next(&mut self) -> Option<u32> {
        self.rx.recv().ok()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    drop(tx);
    let q = Mutex::new(Queue { rx });
    let total = thread::scope(|s| {
        let a = s.spawn(|| q.lock().unwrap().next().unwrap());
        let b = s.spawn(|| q.lock().unwrap().next().unwrap());
        a.join().unwrap() + b.join().unwrap()
    });
    println!("{total}");
    crossbeam_channel::report();
}
