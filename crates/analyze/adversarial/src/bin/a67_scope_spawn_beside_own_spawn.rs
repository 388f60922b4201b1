// A scoped thread's `spawn` in a crate that has a method of its own named `spawn`: the scope's
// spawn is the thread library's, whatever the crate's method does.
use crossbeam_channel::unbounded;
use std::thread;

struct Tasks(Vec<u32>);

impl Tasks {
    // Not a thread: takes a number, not a closure.
    fn spawn(&mut self, n: u32) {
        self.0.push(n);
    }
}

fn main() {
    let mut tasks = Tasks(Vec::new());
    tasks.spawn(1);
    let (tx, rx) = unbounded::<i32>();
    thread::scope(|scope| {
        scope.spawn(move || tx.send(1).unwrap());
        println!("{}", rx.recv().unwrap());
    });
    println!("{}", tasks.0.len());
    crossbeam_channel::report();
}
