// A struct whose method spawns a thread with a clone of its field, called twice.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

struct Hub {
    out: Sender<i32>,
}

impl Hub {
    fn fork(&self, x: i32) -> JoinHandle<()> {
        let t = self.out.clone();
        thread::spawn(move || t.send(x).unwrap())
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let hub = Hub { out: tx };
    let a = hub.fork(1);
    let b = hub.fork(2);
    a.join().unwrap();
    b.join().unwrap();
    drop(hub);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
