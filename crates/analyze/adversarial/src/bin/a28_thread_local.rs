// Each thread installs a clone of the sender in a thread-local and sends through it.
use crossbeam_channel::{unbounded, Sender};
use std::cell::RefCell;
use std::thread;

thread_local! {
    static OUT: RefCell<Option<Sender<i32>>> = const { RefCell::new(None) };
}

fn emit(x: i32) {
    OUT.with(|o| o.borrow().as_ref().unwrap().send(x).unwrap());
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let hs: Vec<_> = (0..2)
        .map(|i| {
            let t = tx.clone();
            thread::spawn(move || {
                OUT.with(|o| *o.borrow_mut() = Some(t));
                emit(i);
            })
        })
        .collect();
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
