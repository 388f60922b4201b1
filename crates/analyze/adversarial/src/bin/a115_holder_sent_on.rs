// A struct holding a sender sends on the main thread and is then sent through another
// channel to a thread that sends through it too.
use crossbeam_channel::{unbounded, Sender};
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
    let (htx, hrx) = std::sync::mpsc::channel::<Holder>();
    let t = thread::spawn(move || {
        for mut h in hrx {
            h.push(2);
        }
    });
    let mut h = Holder { tx };
    h.push(1);
    htx.send(h).unwrap();
    drop(htx);
    t.join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
