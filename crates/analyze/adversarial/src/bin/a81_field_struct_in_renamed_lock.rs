// A receiver in a private field, used only by a `&mut self` method, of a struct put in a
// `Mutex` imported under another name and lent to two scoped threads, which take turns
// calling the method, once each. Two threads receive.
use crossbeam_channel::{unbounded, Receiver};
use std::sync::Mutex as Lock;
use std::thread;

struct Queue {
    rx: Receiver<u32>,
}

impl Queue {
    fn next(&mut self) -> u32 {
        self.rx.recv().unwrap()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    let q = Lock::new(Queue { rx });
    let total = thread::scope(|s| {
        let a = s.spawn(|| q.lock().unwrap().next());
        let b = s.spawn(|| q.lock().unwrap().next());
        a.join().unwrap() + b.join().unwrap()
    });
    println!("{total}");
    crossbeam_channel::report();
}
