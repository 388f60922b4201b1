// A local closure that clones and spawns, called twice.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let go = || {
        let t = tx.clone();
        thread::spawn(move || t.send(1).unwrap())
    };
    let h1 = go();
    let h2 = go();
    h1.join().unwrap();
    h2.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
