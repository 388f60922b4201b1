// The sender behind an Arc, the Arc cloned into each thread.
use crossbeam_channel::unbounded;
use std::sync::Arc;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let tx = Arc::new(tx);
    let hs: Vec<_> = (0..3)
        .map(|i| {
            let tx = Arc::clone(&tx);
            thread::spawn(move || tx.send(i).unwrap())
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
