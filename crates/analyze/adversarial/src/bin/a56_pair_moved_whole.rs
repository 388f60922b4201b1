// The whole (sender, receiver) pair moved into a thread and destructured there.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let pair = unbounded::<i32>();
    let h = thread::spawn(move || {
        let (tx, rx) = pair;
        tx.send(5).unwrap();
        rx.recv().unwrap()
    });
    println!("{}", h.join().unwrap());
    crossbeam_channel::report();
}
