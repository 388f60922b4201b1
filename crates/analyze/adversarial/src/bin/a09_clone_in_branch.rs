// A clone chosen by a branch, in a loop.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut hs = Vec::new();
    for i in 0..3 {
        let c = if i % 2 == 0 { tx.clone() } else { tx.clone() };
        hs.push(thread::spawn(move || c.send(i).unwrap()));
    }
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
