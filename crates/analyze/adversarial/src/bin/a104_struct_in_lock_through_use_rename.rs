// The lock's declared type names the struct under another name (`use .. as`); the struct with
// the sender is built by a function. Two scoped threads take the lock in turn and send.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Mutex;
use std::thread;

mod parts {
    use crossbeam_channel::Sender;

    pub struct Holder {
        pub(crate) tx: Sender<u32>,
    }

    impl Holder {
        pub fn push(&mut self, v: u32) {
            self.tx.send(v).unwrap();
        }
    }

    pub fn make(tx: Sender<u32>) -> Holder {
        Holder { tx }
    }
}

use parts::Holder as Renamed;

fn main() {
    let (tx, rx) = unbounded();
    let m: Mutex<Renamed> = Mutex::new(parts::make(tx));
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().push(1));
        s.spawn(|| m.lock().unwrap().push(2));
    });
    drop(m);
    let _: Option<Sender<u32>> = None;
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
