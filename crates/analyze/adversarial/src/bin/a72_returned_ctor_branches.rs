// A private function returns the constructor's pair from either branch; one caller sends from
// one thread, the other from two.
use crossbeam_channel::{bounded, unbounded, Receiver, Sender};
use std::thread;

fn channels(cap: Option<usize>) -> (Sender<u64>, Receiver<u64>) {
    if let Some(n) = cap {
        bounded(n)
    } else {
        unbounded()
    }
}

fn one_worker() -> u64 {
    let (tx, rx) = channels(Some(4));
    thread::spawn(move || tx.send(1).unwrap()).join().unwrap();
    rx.recv().unwrap()
}

fn two_workers() -> u64 {
    let (tx, rx) = channels(None);
    let tx2 = tx.clone();
    let a = thread::spawn(move || tx.send(1).unwrap());
    let b = thread::spawn(move || tx2.send(2).unwrap());
    a.join().unwrap();
    b.join().unwrap();
    rx.iter().take(2).sum()
}

fn main() {
    println!("{} {}", one_worker(), two_workers());
    crossbeam_channel::report();
}
