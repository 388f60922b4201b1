// A private function returns both handles as `Ok((tx, rx))`; its caller unwraps the pair and
// moves the receiver to a thread.
use crossbeam_channel::{unbounded, Receiver, Sender};
use std::thread;

fn pair(cap: usize) -> Result<(Sender<usize>, Receiver<usize>), String> {
    if cap > 100 {
        return Err("too large".into());
    }
    let (tx, rx) = unbounded();
    Ok((tx, rx))
}

fn main() {
    let (tx, rx) = pair(4).unwrap();
    let h = thread::spawn(move || rx.iter().count());
    for i in 0..4 {
        tx.send(i).unwrap();
    }
    drop(tx);
    println!("{}", h.join().unwrap());
    crossbeam_channel::report();
}
