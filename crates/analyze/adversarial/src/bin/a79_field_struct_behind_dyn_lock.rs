// A receiver in a private field, used only by a `&mut self` method, of a struct put behind an
// `Arc<Mutex<Box<dyn Trait>>>` whose declared type names only the trait; two threads take the
// lock in turn, once each. Two threads receive.
use crossbeam_channel::{unbounded, Receiver};
use std::sync::{Arc, Mutex};
use std::thread;

trait Next {
    fn next(&mut self) -> u32;
}

struct Queue {
    rx: Receiver<u32>,
}

impl Next for Queue {
    fn next(&mut self) -> u32 {
        self.rx.recv().unwrap()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    tx.send(1).unwrap();
    tx.send(2).unwrap();
    let shared: Arc<Mutex<Box<dyn Next + Send>>> = Arc::new(Mutex::new(Box::new(Queue { rx })));
    let other = Arc::clone(&shared);
    let a = thread::spawn(move || other.lock().unwrap().next());
    let b = shared.lock().unwrap().next();
    println!("{}", a.join().unwrap() + b);
    crossbeam_channel::report();
}
