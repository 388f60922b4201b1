// A method of the crate returns the holder it keeps; the caller uses it, then lends it.
use crossbeam_channel::{unbounded, Sender};
use std::thread;
struct Holder { tx: Sender<u32> }
impl Holder { fn push(&mut self, v: u32) { self.tx.send(v).unwrap(); } }
struct Pool { slot: Option<Holder> }
impl Pool { fn take(&mut self) -> Holder { self.slot.take().unwrap() } }
fn main() {
    let (tx, rx) = unbounded();
    let mut p = Pool { slot: Some(Holder { tx }) };
    let mut h = p.take();
    h.push(1);
    thread::scope(|s| { s.spawn(|| h.push(2)); });
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
