// A labelled block may break out with another channel's receiver: the value bound after the
// block is not always the handle its tail names. Here it is the other one, which two threads
// then use.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (other_tx, other_rx) = unbounded();
    other_tx.send(1u32).unwrap();
    other_tx.send(2u32).unwrap();
    let early = std::env::args().count() < 100;
    let rx = 'b: {
        let (tx, rx) = unbounded();
        tx.send(0u32).unwrap();
        if early {
            break 'b other_rx;
        }
        rx
    };
    let rx2 = rx.clone();
    let a = thread::spawn(move || rx2.recv().unwrap());
    let b = thread::spawn(move || rx.recv().unwrap());
    println!("{}", a.join().unwrap() + b.join().unwrap());
    crossbeam_channel::report();
}
