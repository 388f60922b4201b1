// A private associated function returns a receiver; one caller binds it once, another calls
// it through a type alias and shares the receiver between two threads. Calls found by the
// type's name alone would miss the second.
use crossbeam_channel::{unbounded, Receiver};
use std::thread;

struct Maker;

type Alias = Maker;

impl Maker {
    fn new() -> (Maker, Receiver<u32>) {
        let (tx, rx) = unbounded();
        tx.send(1).unwrap();
        tx.send(2).unwrap();
        (Maker, rx)
    }
}

fn main() {
    let (_m, rx) = Maker::new();
    let a = rx.recv().unwrap();
    let (_n, rx2) = Alias::new();
    let r = rx2.clone();
    let h = thread::spawn(move || r.recv().unwrap());
    let g = thread::spawn(move || rx2.recv().unwrap());
    println!("{}", a + h.join().unwrap() + g.join().unwrap());
    crossbeam_channel::report();
}
