// The closure given to `catch_unwind` runs once, here, but it lends the sender to two scoped
// threads that both send.
use crossbeam_channel::unbounded;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::thread;

fn main() {
    let (tx, rx) = unbounded();
    let r = catch_unwind(AssertUnwindSafe(|| {
        thread::scope(|s| {
            s.spawn(|| tx.send(1u32).unwrap());
            s.spawn(|| tx.send(2u32).unwrap());
        });
    }));
    r.unwrap();
    drop(tx);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
