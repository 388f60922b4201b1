// A closure put in a `Mutex` uses a struct bound by `if let` only inside a macro (`assert!`);
// two scoped threads take the lock in turn and call it, each sending.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Mutex;
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) -> bool {
        self.tx.send(v).is_ok()
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let maybe = Some(Holder { tx });
    if let Some(mut h) = maybe {
        let m = Mutex::new(move |v: u32| assert!(h.push(v)));
        thread::scope(|s| {
            s.spawn(|| (m.lock().unwrap())(1));
            s.spawn(|| (m.lock().unwrap())(2));
        });
    }
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
