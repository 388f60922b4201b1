// A trait with two implementations; one of them spawns two threads.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

trait Job {
    fn run(&self, tx: Sender<i32>);
}

struct Once;
struct Twice;

impl Job for Once {
    fn run(&self, tx: Sender<i32>) {
        tx.send(1).unwrap();
    }
}

impl Job for Twice {
    fn run(&self, tx: Sender<i32>) {
        let t = tx.clone();
        let h = thread::spawn(move || t.send(2).unwrap());
        thread::spawn(move || tx.send(3).unwrap()).join().unwrap();
        h.join().unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let jobs: Vec<Box<dyn Job>> = vec![Box::new(Once), Box::new(Twice)];
    for j in &jobs {
        j.run(tx.clone());
    }
    drop(tx);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
