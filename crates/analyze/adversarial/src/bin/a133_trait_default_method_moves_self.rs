// A default method of a trait of the crate uses `self`, then moves it into a thread: the struct
// holding a sender that implements the trait is used by two threads, one after the other.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

trait Runner: Sized + Send + 'static {
    fn push(&mut self, v: u32);
    fn go(mut self) {
        self.push(1);
        thread::spawn(move || self.push(2)).join().unwrap();
    }
}

impl Runner for Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    Holder { tx }.go();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
