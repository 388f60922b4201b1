// A helper function that spawns the thread using the sender.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn start(tx: Sender<i32>) -> JoinHandle<()> {
    thread::spawn(move || tx.send(1).unwrap())
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    start(tx).join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
