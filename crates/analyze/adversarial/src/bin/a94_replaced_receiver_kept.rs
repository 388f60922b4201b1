// The field's old receiver is taken out with `mem::replace` (as `Drop` impls do to disconnect),
// but kept and handed to another thread instead of being dropped, while the struct goes on
// receiving on the same channel through a clone put back in its place.
use crossbeam_channel::{unbounded, Receiver};
use std::mem;
use std::thread;

struct Holder {
    rx: Receiver<u32>,
}

impl Holder {
    fn split(&mut self) -> thread::JoinHandle<u32> {
        let again = self.rx.clone();
        let old = mem::replace(&mut self.rx, again);
        thread::spawn(move || old.recv().unwrap())
    }

    fn take_one(&mut self) -> u32 {
        self.rx.recv().unwrap()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { rx };
    tx.send(1u32).unwrap();
    tx.send(2u32).unwrap();
    let t = h.split();
    let a = h.take_one();
    println!("{}", a + t.join().unwrap());
    crossbeam_channel::report();
}
