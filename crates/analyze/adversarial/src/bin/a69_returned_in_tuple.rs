// A private function returns the sender in a tuple with the join handle of the thread that
// receives; its caller clones the sender to a second thread.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn start() -> (Sender<u32>, JoinHandle<u32>) {
    let (tx, rx) = unbounded::<u32>();
    let h = thread::spawn(move || rx.iter().sum());
    (tx, h)
}

fn main() {
    let (tx, h) = start();
    let tx2 = tx.clone();
    let t = thread::spawn(move || tx2.send(2).unwrap());
    tx.send(1).unwrap();
    t.join().unwrap();
    drop(tx);
    println!("{}", h.join().unwrap());
    crossbeam_channel::report();
}
