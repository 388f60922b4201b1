// Two clones made in a tuple, destructured, each to a thread.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let (a, b) = (tx.clone(), tx.clone());
    drop(tx);
    let h1 = thread::spawn(move || a.send(1).unwrap());
    let h2 = thread::spawn(move || b.send(2).unwrap());
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
