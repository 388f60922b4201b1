// The receiver behind an Arc<Mutex<..>>, shared by two workers.
use crossbeam_channel::unbounded;
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let rx = Arc::new(Mutex::new(rx));
    for i in 0..10 {
        tx.send(i).unwrap();
    }
    drop(tx);
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let rx = rx.clone();
            thread::spawn(move || {
                let mut n = 0;
                while rx.lock().unwrap().recv().is_ok() {
                    n += 1;
                }
                n
            })
        })
        .collect();
    let n: i32 = hs.into_iter().map(|h| h.join().unwrap()).sum();
    println!("{n}");
    crossbeam_channel::report();
}
