// A function returns a `Clone` closure holding the sender; it is spawned twice.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

fn job(tx: Sender<i32>) -> impl Fn() + Send + Clone + 'static {
    move || tx.send(1).unwrap()
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let j = job(tx);
    let h1 = thread::spawn(j.clone());
    let h2 = thread::spawn(j);
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
