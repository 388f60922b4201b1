// `for_each` over a range, cloning and spawning in the closure.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut hs = Vec::new();
    (0..3).for_each(|i| {
        let t = tx.clone();
        hs.push(thread::spawn(move || t.send(i).unwrap()));
    });
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
