// The struct holding a sender is taken out of a `Result` by a `match` arm, used, then lent to
// a scoped thread.
use crossbeam_channel::{unbounded, Receiver, Sender};
use std::thread;

struct Holder {
    tx: Sender<u32>,
}

impl Holder {
    fn push(&mut self, v: u32) {
        self.tx.send(v).unwrap();
    }
}

fn open() -> Result<(Holder, Receiver<u32>), String> {
    let (tx, rx) = unbounded();
    Ok((Holder { tx }, rx))
}

fn main() {
    let (mut h, rx) = match open() {
        Ok(pair) => pair,
        Err(e) => panic!("{e}"),
    };
    h.push(1);
    thread::scope(|s| {
        s.spawn(|| h.push(2));
    });
    drop(h);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
