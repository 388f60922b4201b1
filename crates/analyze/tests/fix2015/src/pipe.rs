use std::sync::mpsc;
use std::thread;

// A 2015 form: a bare trait object.
fn job(f: Box<FnMut() -> u64 + Send>) -> Box<FnMut() -> u64 + Send> {
    f
}

fn sum(rx: mpsc::Receiver<u64>) -> u64 {
    rx.iter().sum()
}

pub fn total(n: u64) -> u64 {
    let (tx, rx) = mpsc::channel::<u64>();
    let worker = thread::spawn(move || {
        let mut f = job(Box::new(move || 4_000_000_000));
        for _ in 0..n {
            tx.send(f()).unwrap();
        }
    });
    worker.join().unwrap();
    sum(rx)
}
