// Nested scopes: each inner scope spawns two threads borrowing the sender.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    thread::scope(|outer| {
        outer.spawn(|| {
            thread::scope(|inner| {
                inner.spawn(|| tx.send(1).unwrap());
                inner.spawn(|| tx.send(2).unwrap());
            });
        });
    });
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
