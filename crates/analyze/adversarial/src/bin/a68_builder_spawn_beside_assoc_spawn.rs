// `thread::Builder::new().spawn(..)` in a crate with an associated function named `spawn`
// (no `self`): method syntax cannot call it, so the builder's spawn is std's.
use crossbeam_channel::unbounded;
use std::thread;

struct Worker {
    id: u32,
}

impl Worker {
    fn spawn(id: u32) -> Worker {
        Worker { id }
    }
}

fn main() {
    let w = Worker::spawn(7);
    let (tx, rx) = unbounded::<u32>();
    let h = thread::Builder::new()
        .name("sender".into())
        .spawn(move || tx.send(w.id).unwrap())
        .unwrap();
    h.join().unwrap();
    println!("{}", rx.recv().unwrap());
    crossbeam_channel::report();
}
