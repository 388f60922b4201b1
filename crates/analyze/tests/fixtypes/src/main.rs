// Handle types named privately (a field, a parameter, a return type, a local's annotation):
// --fix rewrites them with the channels, to welltempered's general handle types, and keeps each
// type's generic arguments. Three channels share the names: all get the general constructors.
// The error type named in a pattern, and in the `use` of one of its variants, is rewritten too;
// so is a unit struct's bare name in a pattern (`Err(RecvError)`), which its import makes a path,
// and a name inside a macro's tokens (`thread_local!`).
use std::sync::mpsc::TryRecvError::Empty;
use std::sync::mpsc::{self, channel, Receiver, RecvError};
use std::thread;

thread_local! {
    static SPARE: std::cell::RefCell<Option<mpsc::Sender<u64>>> = const { std::cell::RefCell::new(None) };
}

struct Worker {
    results: mpsc::Sender<u64>,
}

impl Worker {
    fn run(self, n: u64) {
        for i in 0..n {
            self.results.send(i).unwrap();
        }
    }
}

fn total(rx: Receiver<u64>) -> u64 {
    rx.iter().sum()
}

fn pair() -> (mpsc::Sender<u64>, Receiver<u64>) {
    mpsc::channel()
}

fn main() {
    let (tx, rx) = channel::<u64>();
    let w = Worker { results: tx };
    let h = thread::spawn(move || w.run(4));
    h.join().unwrap();
    let (a, b): (mpsc::Sender<u64>, Receiver<u64>) = pair();
    a.send(10).unwrap();
    SPARE.with(|s| *s.borrow_mut() = Some(a));
    SPARE.with(|s| s.borrow_mut().take());
    let (c, d) = channel::<u64>();
    drop(c);
    let gone = match d.try_recv() {
        Err(mpsc::TryRecvError::Disconnected) => true,
        Err(Empty) | Ok(_) => false,
    };
    let closed = if let Err(RecvError) = d.recv() {
        true
    } else {
        false
    };
    println!("{} {} {gone} {closed}", total(rx), total(b));
}
