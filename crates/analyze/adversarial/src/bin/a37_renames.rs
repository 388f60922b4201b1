// A chain of renames before the one spawn.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let a = tx;
    let b = a;
    let c = b;
    thread::spawn(move || c.send(7).unwrap()).join().unwrap();
    println!("{}", rx.recv().unwrap());
    crossbeam_channel::report();
}
