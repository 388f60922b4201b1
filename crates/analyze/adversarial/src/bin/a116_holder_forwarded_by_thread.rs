// A struct holding a sender is moved into a thread, which sends through it and then sends
// the struct on to a second thread that sends through it too.
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
    let second = thread::spawn(move || {
        for mut h in hrx {
            h.push(2);
        }
    });
    let mut h = Holder { tx };
    thread::spawn(move || {
        h.push(1);
        htx.send(h).unwrap();
    })
    .join()
    .unwrap();
    second.join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
