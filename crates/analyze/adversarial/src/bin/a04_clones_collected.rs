// Clones made by an iterator and collected, then one thread per element.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let senders: Vec<_> = (0..4).map(|_| tx.clone()).collect();
    drop(tx);
    let hs: Vec<_> = senders
        .into_iter()
        .map(|s| thread::spawn(move || s.send(1).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
