// A closure given to a function that spawns a clone of it twice.
use crossbeam_channel::unbounded;
use std::thread;

fn twice<F: Fn() + Send + Clone + 'static>(f: F) {
    let a = thread::spawn(f.clone());
    let b = thread::spawn(f);
    a.join().unwrap();
    b.join().unwrap();
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    twice(move || tx.send(1).unwrap());
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
