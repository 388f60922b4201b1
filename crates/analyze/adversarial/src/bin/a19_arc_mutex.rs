// The sender in an Arc<Mutex<..>>, locked by two threads.
use crossbeam_channel::unbounded;
use std::sync::{Arc, Mutex};
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let shared = Arc::new(Mutex::new(tx));
    let s2 = shared.clone();
    let h = thread::spawn(move || s2.lock().unwrap().send(1).unwrap());
    shared.lock().unwrap().send(2).unwrap();
    h.join().unwrap();
    drop(shared);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
