// The receiver cloned to two workers (work sharing).
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let rx = rx.clone();
            thread::spawn(move || rx.iter().count())
        })
        .collect();
    for i in 0..100 {
        tx.send(i).unwrap();
    }
    drop(tx);
    let n: usize = hs.into_iter().map(|h| h.join().unwrap()).sum();
    println!("{n} {:?}", rx.try_recv().is_err());
    crossbeam_channel::report();
}
