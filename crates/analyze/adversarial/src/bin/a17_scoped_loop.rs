// Scoped threads spawned in a loop, borrowing the sender.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    thread::scope(|s| {
        for i in 0..3 {
            let tx = &tx;
            s.spawn(move || tx.send(i).unwrap());
        }
    });
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
