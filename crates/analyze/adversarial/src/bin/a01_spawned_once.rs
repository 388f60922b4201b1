// One sender moved into one spawned thread, the receiver on the main thread.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded();
    let h = thread::spawn(move || tx.send(1).unwrap());
    h.join().unwrap();
    println!("{}", rx.recv().unwrap());
    crossbeam_channel::report();
}
