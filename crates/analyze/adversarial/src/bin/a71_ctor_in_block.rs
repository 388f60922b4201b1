// The constructor is the value of a block that imports it; the sender goes to one thread.
use std::thread;

fn main() {
    let (tx, rx) = {
        use crossbeam_channel::unbounded;
        unbounded::<u32>()
    };
    let h = thread::spawn(move || tx.send(7).unwrap());
    println!("{}", rx.recv().unwrap());
    h.join().unwrap();
    crossbeam_channel::report();
}
