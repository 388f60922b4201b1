// A struct built on this thread gets a receiver assigned (`self.rx = rx`) inside a spawned
// thread, which receives there; this thread received on the same handle before moving it.
use crossbeam_channel::{unbounded, Receiver};
use std::thread;

struct Sink {
    rx: Option<Receiver<u32>>,
}

impl Sink {
    fn attach(&mut self, rx: Receiver<u32>) {
        self.rx = Some(rx);
    }

    fn drain(&mut self) -> u32 {
        let mut n = 0;
        while let Ok(v) = self.rx.as_ref().unwrap().recv() {
            n += v;
        }
        n
    }
}

fn main() {
    let (tx, rx) = unbounded();
    tx.send(1u32).unwrap();
    println!("{}", rx.recv().unwrap());
    let t = thread::spawn(move || {
        let mut s = Sink { rx: None };
        s.attach(rx);
        s.drain()
    });
    tx.send(2u32).unwrap();
    drop(tx);
    println!("{}", t.join().unwrap());
    crossbeam_channel::report();
}
