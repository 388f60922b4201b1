// `Make::holder(tx)` builds a `Holder`, not a `Make`: the struct put in the `Mutex` is the
// `Holder` with the sender, which two scoped threads take in turn and send on.
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

struct Make;

impl Make {
    fn holder(tx: Sender<u32>) -> Holder {
        Holder { tx }
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let m = Mutex::new(Make::holder(tx));
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().push(1));
        s.spawn(|| m.lock().unwrap().push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
