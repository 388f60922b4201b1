// The struct holding a sender is given by `for_each` to its closure, used there, then lent to a
// scoped thread.
use crossbeam_channel::{unbounded, Sender};
use std::thread;
struct Holder { tx: Sender<u32> }
impl Holder { fn push(&mut self, v: u32) { self.tx.send(v).unwrap(); } }
fn main() {
    let (tx, rx) = unbounded();
    let v = vec![Holder { tx }];
    v.into_iter().for_each(|mut h| {
        h.push(1);
        thread::scope(|s| { s.spawn(|| h.push(2)); });
    });
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
