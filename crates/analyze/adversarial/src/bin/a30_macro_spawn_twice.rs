// A macro of the crate hides the spawn; used twice with clones.
use crossbeam_channel::unbounded;
use std::thread;

macro_rules! background {
    ($tx:expr) => {
        thread::spawn(move || $tx.send(1).unwrap())
    };
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let a = tx.clone();
    let h1 = background!(a);
    let h2 = background!(tx);
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
