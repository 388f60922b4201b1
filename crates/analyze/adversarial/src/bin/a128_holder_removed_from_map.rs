// The struct holding a sender is inserted in a `HashMap`, removed, used, then lent to a scoped
// thread.
use crossbeam_channel::{unbounded, Sender};
use std::collections::HashMap;
use std::thread;
struct Holder { tx: Sender<u32> }
impl Holder { fn push(&mut self, v: u32) { self.tx.send(v).unwrap(); } }
fn main() {
    let (tx, rx) = unbounded();
    let mut m = HashMap::new();
    m.insert(1, Holder { tx });
    let mut h = m.remove(&1).unwrap();
    h.push(1);
    thread::scope(|s| { s.spawn(|| h.push(2)); });
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
