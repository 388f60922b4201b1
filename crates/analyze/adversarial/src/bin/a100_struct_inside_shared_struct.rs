// The struct holding the sender is a field of another struct, and that one is put in a `Mutex`
// that two scoped threads take in turn, each sending through the inner struct.
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

struct Outer {
    inner: Holder,
}

fn main() {
    let (tx, rx) = unbounded();
    let m = Mutex::new(Outer {
        inner: Holder { tx },
    });
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().inner.push(1));
        s.spawn(|| m.lock().unwrap().inner.push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
