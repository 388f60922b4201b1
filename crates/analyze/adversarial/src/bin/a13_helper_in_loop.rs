// A helper called in a loop.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn start(tx: Sender<i32>, i: i32) -> JoinHandle<()> {
    thread::spawn(move || tx.send(i).unwrap())
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let hs: Vec<_> = (0..3).map(|i| start(tx.clone(), i)).collect();
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
