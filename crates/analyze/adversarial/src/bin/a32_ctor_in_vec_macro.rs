// Channels made inside `vec![..]`; each pair goes to its own thread.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let pairs = vec![unbounded::<i32>(), unbounded::<i32>()];
    let hs: Vec<_> = pairs
        .into_iter()
        .map(|(tx, rx)| {
            thread::spawn(move || {
                tx.send(1).unwrap();
                rx.recv().unwrap()
            })
        })
        .collect();
    let n: i32 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    println!("{n}");
    crossbeam_channel::report();
}
