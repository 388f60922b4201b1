// The channel is made in a function that returns it; the caller spreads the sender.
use crossbeam_channel::{unbounded, Receiver, Sender};
use std::thread;

fn make() -> (Sender<i32>, Receiver<i32>) {
    unbounded()
}

fn main() {
    let (tx, rx) = make();
    let t2 = tx.clone();
    let h = thread::spawn(move || t2.send(1).unwrap());
    tx.send(2).unwrap();
    h.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
