// `clone_from` between two senders of one channel: still two handles.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut spare = tx.clone();
    spare.clone_from(&tx);
    let h = thread::spawn(move || spare.send(1).unwrap());
    tx.send(2).unwrap();
    h.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
