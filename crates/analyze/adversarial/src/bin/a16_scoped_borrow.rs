// Three scoped threads borrow the one sender.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    thread::scope(|s| {
        s.spawn(|| tx.send(1).unwrap());
        s.spawn(|| tx.send(2).unwrap());
        s.spawn(|| tx.send(3).unwrap());
    });
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
