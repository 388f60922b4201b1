// The struct holding a sender goes through a generic function of the crate that boxes it; the
// box is used, then lent to a scoped thread.
use crossbeam_channel::{unbounded, Sender};
use std::thread;
struct Holder { tx: Sender<u32> }
impl Holder { fn push(&mut self, v: u32) { self.tx.send(v).unwrap(); } }
fn boxed<T>(t: T) -> Box<T> { Box::new(t) }
fn main() {
    let (tx, rx) = unbounded();
    let mut h = boxed(Holder { tx });
    h.push(1);
    thread::scope(|s| { s.spawn(|| h.push(2)); });
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
