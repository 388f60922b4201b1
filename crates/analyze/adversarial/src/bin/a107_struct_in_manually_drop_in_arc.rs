// The struct holding the sender is wrapped by another crate's generic constructor
// (`ManuallyDrop::new`) inside a `Mutex` behind an `Arc`; two threads take the lock in turn and
// send.
use crossbeam_channel::{unbounded, Sender};
use std::mem::ManuallyDrop;
use std::sync::{Arc, Mutex};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let h = Holder { tx };
    let shared = Arc::new(Mutex::new(ManuallyDrop::new(h)));
    let ts: Vec<_> = (1..3u32)
        .map(|v| {
            let s = Arc::clone(&shared);
            thread::spawn(move || s.lock().unwrap().push(v))
        })
        .collect();
    for t in ts {
        t.join().unwrap();
    }
    let mut h = Arc::try_unwrap(shared).ok().unwrap().into_inner().unwrap();
    // SAFETY: taken out once, not used again.
    unsafe { ManuallyDrop::drop(&mut h) };
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
