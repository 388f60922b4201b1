// A channel made in a block whose value is its receiver; after the block, the receiver is
// cloned and both receivers run on threads of their own.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let rx = {
        let (tx, rx) = unbounded();
        for i in 0..4u32 {
            tx.send(i).unwrap();
        }
        rx
    };
    let rx2 = rx.clone();
    let a = thread::spawn(move || rx2.recv().unwrap());
    let b = thread::spawn(move || rx.recv().unwrap());
    println!("{}", a.join().unwrap() + b.join().unwrap());
    crossbeam_channel::report();
}
