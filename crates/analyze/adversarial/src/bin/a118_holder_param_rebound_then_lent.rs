// A function rebinds the struct it is given to a local of its own and lends that to a scoped
// thread, which sends through it; the function sends through it afterwards.
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

fn work(h: Holder) {
    let mut mine = h;
    thread::scope(|s| {
        s.spawn(|| mine.push(1));
    });
    mine.push(2);
}

fn main() {
    let (tx, rx) = unbounded();
    work(Holder { tx });
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
