// A `move` closure holding the sender is `Clone`: spawned twice, two threads send.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let job = move || tx.send(1).unwrap();
    let h1 = thread::spawn(job.clone());
    let h2 = thread::spawn(job);
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
