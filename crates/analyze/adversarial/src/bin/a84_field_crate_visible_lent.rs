// A sender in a `pub(crate)` field, used in place by the struct's own `&mut self` method, and
// lent by reference from another module to two scoped threads that both send.
use crossbeam_channel::unbounded;
use std::thread;

mod job {
    use crossbeam_channel::Sender;

    pub(crate) struct Job {
        pub(crate) tx: Sender<u32>,
    }

    impl Job {
        pub(crate) fn done(&mut self) {
            self.tx.send(0).unwrap();
        }
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut job = job::Job { tx };
    job.done();
    let j = &job;
    thread::scope(|s| {
        s.spawn(|| j.tx.send(1).unwrap());
        s.spawn(|| j.tx.send(2).unwrap());
    });
    drop(job);
    let total: u32 = rx.iter().sum();
    println!("{total}");
    crossbeam_channel::report();
}
