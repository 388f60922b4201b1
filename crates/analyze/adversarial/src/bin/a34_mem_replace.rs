// `mem::replace` takes the sender out of a slot and puts a clone back; both are used.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut slot = tx.clone();
    let old = std::mem::replace(&mut slot, tx);
    let h = thread::spawn(move || old.send(1).unwrap());
    slot.send(2).unwrap();
    h.join().unwrap();
    drop(slot);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
