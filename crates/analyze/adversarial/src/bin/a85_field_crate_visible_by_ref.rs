// A sender in a `pub(crate)` field of a struct built in one module, operated on in place
// through a shared reference (another base than `self`) in a function that two scoped threads
// run at once.
use std::thread;

mod holder {
    use crossbeam_channel::{unbounded, Receiver, Sender};

    pub(crate) struct Holder {
        pub(crate) tx: Sender<u32>,
    }

    pub(crate) fn make() -> (Holder, Receiver<u32>) {
        let (tx, rx) = unbounded();
        (Holder { tx }, rx)
    }
}

fn poke(h: &holder::Holder, v: u32) {
    h.tx.send(v).unwrap();
}

fn main() {
    let (h, rx) = holder::make();
    thread::scope(|s| {
        s.spawn(|| poke(&h, 1));
        s.spawn(|| poke(&h, 2));
    });
    drop(h);
    let total: u32 = rx.iter().sum();
    println!("{total}");
    crossbeam_channel::report();
}
