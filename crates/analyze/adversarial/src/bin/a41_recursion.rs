// A recursive function spawning at each level with a clone.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn level(tx: &Sender<i32>, n: i32, hs: &mut Vec<JoinHandle<()>>) {
    if n == 0 {
        return;
    }
    let t = tx.clone();
    hs.push(thread::spawn(move || t.send(n).unwrap()));
    level(tx, n - 1, hs);
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut hs = Vec::new();
    level(&tx, 3, &mut hs);
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
