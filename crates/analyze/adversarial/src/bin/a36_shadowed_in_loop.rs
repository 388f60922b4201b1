// `let tx = tx.clone()` shadowing inside a loop, each moved away.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut hs = Vec::new();
    for i in 0..4 {
        let tx = tx.clone();
        hs.push(thread::spawn(move || {
            let tx = tx;
            tx.send(i).unwrap()
        }));
    }
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
