// `Mutex::new(Default::default())` holds whatever type the later assignment gives it: here an
// `Option<Holder>` with the sender, which two scoped threads take in turn and send on.
use crossbeam_channel::{unbounded, Sender};
use std::sync::Mutex;
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
    let m = Mutex::new(Default::default());
    *m.lock().unwrap() = Some(Holder { tx });
    thread::scope(|s| {
        s.spawn(|| m.lock().unwrap().as_mut().unwrap().push(1));
        s.spawn(|| m.lock().unwrap().as_mut().unwrap().push(2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
