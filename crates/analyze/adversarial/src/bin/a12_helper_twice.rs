// A helper called twice with clones: two threads.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn start(tx: Sender<i32>) -> JoinHandle<()> {
    thread::spawn(move || tx.send(1).unwrap())
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let a = start(tx.clone());
    let b = start(tx);
    a.join().unwrap();
    b.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
