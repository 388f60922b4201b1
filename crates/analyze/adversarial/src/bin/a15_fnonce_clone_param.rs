// An `FnOnce` job that is also `Clone`: the callee runs a clone of it on each of two threads.
use crossbeam_channel::unbounded;
use std::thread;

fn fan<F: FnOnce() + Send + Clone + 'static>(job: F) {
    let hs: Vec<_> = (0..2).map(|_| thread::spawn(job.clone())).collect();
    for h in hs {
        h.join().unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    fan(move || tx.send(1).unwrap());
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
