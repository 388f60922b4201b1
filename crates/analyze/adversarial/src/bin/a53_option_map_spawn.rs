// `Option::map` runs its closure at most once: one thread.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let h = Some(tx).map(|t| thread::spawn(move || t.send(1).unwrap()));
    h.unwrap().join().unwrap();
    println!("{}", rx.recv().unwrap());
    crossbeam_channel::report();
}
