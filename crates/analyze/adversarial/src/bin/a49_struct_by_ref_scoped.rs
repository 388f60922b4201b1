// A struct holding the sender, lent by reference to two scoped threads.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Logger {
    out: Sender<i32>,
}

impl Logger {
    fn log(&self, x: i32) {
        self.out.send(x).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let logger = Logger { out: tx };
    thread::scope(|s| {
        s.spawn(|| logger.log(1));
        s.spawn(|| logger.log(2));
    });
    drop(logger);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
