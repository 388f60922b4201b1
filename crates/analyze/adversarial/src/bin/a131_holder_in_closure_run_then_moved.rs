// The struct holding a sender is moved into a closure bound by `let`; the closure runs here, then
// is moved into a thread and runs there.
use crossbeam_channel::{unbounded, Sender};
use std::thread;
struct Holder { tx: Sender<u32> }
impl Holder { fn push(&mut self, v: u32) { self.tx.send(v).unwrap(); } }
fn main() {
    let (tx, rx) = unbounded();
    let mut h = Holder { tx };
    let mut f = move |v| h.push(v);
    f(1);
    thread::spawn(move || f(2)).join().unwrap();
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
