// A sender sent over another channel to a worker that uses it; the main thread sends too.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let (pass_tx, pass_rx) = unbounded::<Sender<i32>>();
    let w = thread::spawn(move || {
        let t = pass_rx.recv().unwrap();
        t.send(1).unwrap();
    });
    pass_tx.send(tx.clone()).unwrap();
    tx.send(2).unwrap();
    w.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
