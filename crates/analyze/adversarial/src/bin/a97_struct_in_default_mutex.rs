// A struct holding the sender is put in a `Mutex` made by `Mutex::default()`, whose type is
// inferred from the assignment after it; two scoped threads take the lock in turn and send.
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

fn main() {
    let (tx, rx) = unbounded();
    let m = Mutex::default();
    *m.lock().unwrap() = Some(Holder { tx });
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().as_mut().unwrap().push(1));
        s.spawn(|| m.lock().unwrap().as_mut().unwrap().push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
