// `thread::Builder::spawn` with a name, twice.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let t2 = tx.clone();
    let h1 = thread::Builder::new()
        .name("one".into())
        .spawn(move || tx.send(1).unwrap())
        .unwrap();
    let h2 = thread::Builder::new()
        .name("two".into())
        .spawn(move || t2.send(2).unwrap())
        .unwrap();
    h1.join().unwrap();
    h2.join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
