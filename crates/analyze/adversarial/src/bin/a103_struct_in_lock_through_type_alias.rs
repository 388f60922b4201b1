// The struct holding the sender goes in a `Mutex` under a type alias's name; two scoped threads
// take the lock in turn and send.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Mutex;
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

type Alias = Holder;

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let m = Mutex::new(Alias { tx });
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().push(1));
        s.spawn(|| m.lock().unwrap().push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
