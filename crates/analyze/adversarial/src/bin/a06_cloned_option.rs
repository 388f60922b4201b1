// A clone through Option::cloned, moved into a thread while the original sends here.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let o = Some(&tx);
    let c = o.cloned().unwrap();
    let h = thread::spawn(move || c.send(1).unwrap());
    tx.send(2).unwrap();
    h.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
