// Both handles matched out of a tuple, then the sender split between two threads.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let pair = unbounded::<i32>();
    match pair {
        (tx, rx) => {
            let t = tx.clone();
            let h = thread::spawn(move || t.send(1).unwrap());
            tx.send(2).unwrap();
            h.join().unwrap();
            drop(tx);
            println!("{}", rx.iter().sum::<i32>());
        }
    }
    crossbeam_channel::report();
}
