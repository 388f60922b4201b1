// `iter::repeat(tx).take(3)` clones the sender for every item.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let hs: Vec<_> = std::iter::repeat(tx)
        .take(3)
        .map(|t| thread::spawn(move || t.send(1).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
