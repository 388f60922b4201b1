// A named worker function given to spawn through closures, with clones.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

fn worker(tx: Sender<i32>) {
    tx.send(1).unwrap();
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let t2 = tx.clone();
    let h1 = thread::spawn(move || worker(tx));
    let h2 = thread::spawn(move || worker(t2));
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
