// Two named clones, two threads; the original stays on the main thread and sends too.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let a = tx.clone();
    let b = tx.clone();
    let h1 = thread::spawn(move || a.send(1).unwrap());
    let h2 = thread::spawn(move || b.send(2).unwrap());
    tx.send(3).unwrap();
    h1.join().unwrap();
    h2.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
