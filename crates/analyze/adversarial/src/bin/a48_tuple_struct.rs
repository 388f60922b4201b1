// A tuple struct holding the sender, moved to a thread; a clone kept on the main thread.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Out(Sender<i32>);

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let kept = tx.clone();
    let o = Out(tx);
    let h = thread::spawn(move || o.0.send(1).unwrap());
    kept.send(2).unwrap();
    h.join().unwrap();
    drop(kept);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
