// A spawn given a block whose value is the closure: the block itself spawns a thread with a
// clone, then the closure it ends with takes the original. Two threads send, neither of them
// the constructing one.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded();
    let h = thread::spawn({
        let early = tx.clone();
        let g = thread::spawn(move || early.send(1u32).unwrap());
        g.join().unwrap();
        move || tx.send(2u32).unwrap()
    });
    h.join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
