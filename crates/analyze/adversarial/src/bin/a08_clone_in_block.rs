// A clone as a block's value.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let c = {
        let t = &tx;
        t.clone()
    };
    let h = thread::spawn(move || c.send(1).unwrap());
    tx.send(2).unwrap();
    h.join().unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
