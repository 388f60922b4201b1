// A struct holding a sender, not `Sync` (a `Cell`), is lent by `&mut` to a scoped thread,
// which sends through it; the main thread sends through it after the scope.
use crossbeam_channel::{unbounded, Sender};
use std::cell::Cell;
use std::thread;

struct Holder {
    tx: Sender<u32>,
    sent: Cell<u32>,
}

fn push(h: &Holder, v: u32) {
    h.tx.send(v).unwrap();
    h.sent.set(h.sent.get() + 1);
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder {
        tx,
        sent: Cell::new(0),
    };
    thread::scope(|s| {
        let lent = &mut h;
        s.spawn(move || push(lent, 1));
    });
    push(&h, 2);
    assert_eq!(h.sent.get(), 2);
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
