// A struct holding a sender is lent by `&mut` to a function of the crate, which lends it on
// to a scoped thread that sends; the main thread sends through it afterwards.
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

fn lend(h: &mut Holder) {
    thread::scope(|s| {
        s.spawn(|| h.push(1));
    });
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { tx };
    lend(&mut h);
    h.push(2);
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
