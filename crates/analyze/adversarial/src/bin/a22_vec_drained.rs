// Clones pushed into a Vec, then drained into threads.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut v = Vec::new();
    for _ in 0..3 {
        v.push(tx.clone());
    }
    drop(tx);
    let hs: Vec<_> = v
        .drain(..)
        .map(|t| thread::spawn(move || t.send(1).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
