// A clone assigned to a field (`self.tx = tx`) of a struct then moved to another thread, while
// the original keeps sending here: two threads send.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Relay {
    tx: Option<Sender<u32>>,
}

impl Relay {
    fn wire(&mut self, tx: Sender<u32>) {
        self.tx = Some(tx);
    }

    fn push(&mut self, v: u32) {
        self.tx.as_ref().unwrap().send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut r = Relay { tx: None };
    r.wire(tx.clone());
    let t = thread::spawn(move || r.push(1));
    tx.send(2u32).unwrap();
    t.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
