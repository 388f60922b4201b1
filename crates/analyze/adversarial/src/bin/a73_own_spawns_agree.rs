// Two pools of the program with a `spawn` method each (both `FnOnce` jobs) and a `spawn` that
// takes a struct: a job given to either pool runs once, on one thread.
use crossbeam_channel::unbounded;
use std::thread;

struct Pool;
struct Inline;
struct Task(u32);
struct Registry(Vec<u32>);

impl Pool {
    fn spawn<F: FnOnce() + Send + 'static>(&self, f: F) -> thread::JoinHandle<()> {
        thread::spawn(f)
    }
}

impl Inline {
    fn spawn<F: FnOnce()>(&self, f: F) {
        f()
    }
}

impl Registry {
    fn spawn(&mut self, t: Task) {
        self.0.push(t.0);
    }
}

fn main() {
    let mut r = Registry(Vec::new());
    r.spawn(Task(3));
    Inline.spawn(|| ());
    let (tx, rx) = unbounded::<u32>();
    Pool.spawn(move || tx.send(1).unwrap()).join().unwrap();
    println!("{} {}", rx.recv().unwrap(), r.0.len());
    crossbeam_channel::report();
}
