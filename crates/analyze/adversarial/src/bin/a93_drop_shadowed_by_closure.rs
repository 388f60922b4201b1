// `drop(mem::replace(&mut self.rx, sink))` looks like the field's old receiver is dropped in
// place, but `drop` here is a local closure that hands it to another thread, which receives.
use crossbeam_channel::{unbounded, Receiver};
use std::mem;
use std::thread;

struct Holder {
    rx: Receiver<u32>,
}

impl Holder {
    fn take_one(&mut self) -> u32 {
        self.rx.recv().unwrap()
    }

    fn retire(&mut self) {
        let (_, sink) = unbounded();
        let drop = |r: Receiver<u32>| {
            thread::spawn(move || r.recv().unwrap()).join().unwrap()
        };
        println!("{}", drop(mem::replace(&mut self.rx, sink)));
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { rx };
    tx.send(1u32).unwrap();
    tx.send(2u32).unwrap();
    println!("{}", h.take_one());
    h.retire();
    crossbeam_channel::report();
}
