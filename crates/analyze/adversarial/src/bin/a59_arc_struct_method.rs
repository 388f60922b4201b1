// A struct holding the sender behind an Arc; two threads call its `&self` method.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Arc;
use std::thread;

struct Sink {
    out: Sender<i32>,
}

impl Sink {
    fn put(&self, x: i32) {
        self.out.send(x).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let sink = Arc::new(Sink { out: tx });
    let s2 = sink.clone();
    let h = thread::spawn(move || s2.put(1));
    sink.put(2);
    h.join().unwrap();
    drop(sink);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
