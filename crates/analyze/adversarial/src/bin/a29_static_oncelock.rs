// The sender in a static OnceLock, used by two threads.
use crossbeam_channel::{unbounded, Sender};
use std::sync::OnceLock;
use std::thread;

static OUT: OnceLock<Sender<i32>> = OnceLock::new();

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let _ = OUT.set(tx);
    let h = thread::spawn(|| OUT.get().unwrap().send(1).unwrap());
    OUT.get().unwrap().send(2).unwrap();
    h.join().unwrap();
    println!("{}", rx.iter().take(2).sum::<i32>());
    crossbeam_channel::report();
}
