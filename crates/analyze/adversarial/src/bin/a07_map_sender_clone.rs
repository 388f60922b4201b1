// `map(Sender::clone)` clones as `clone()` does.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let o = Some(tx);
    let c = o.as_ref().map(Sender::clone).unwrap();
    let h = thread::spawn(move || c.send(1).unwrap());
    o.unwrap().send(2).unwrap();
    h.join().unwrap();
    println!("{}", rx.iter().take(2).sum::<i32>());
    crossbeam_channel::report();
}
