// The struct holding the sender is made by the closure given to `LazyLock::new`, and the
// `LazyLock<Mutex<..>>` goes behind an `Arc`; two scoped threads take the lock in turn and send.
use crossbeam_channel::{unbounded, Sender};
use std::sync::{Arc, LazyLock, Mutex};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let shared = Arc::new(LazyLock::new(move || Mutex::new(Holder { tx })));
    thread::scope(|s| {
        s.spawn(|| shared.lock().unwrap().push(1));
        s.spawn(|| shared.lock().unwrap().push(2));
    });
    drop(shared);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
