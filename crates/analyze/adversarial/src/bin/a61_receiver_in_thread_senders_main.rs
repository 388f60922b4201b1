// The receiver moved to a consumer thread, the sender used on the main thread only.
use crossbeam_channel::bounded;
use std::thread;

fn main() {
    let (tx, rx) = bounded::<i32>(4);
    let c = thread::spawn(move || rx.iter().sum::<i32>());
    for i in 0..10 {
        tx.send(i).unwrap();
    }
    drop(tx);
    println!("{}", c.join().unwrap());
    crossbeam_channel::report();
}
