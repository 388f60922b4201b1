// Boxed jobs, each holding a clone, run by a pool of two workers.
use crossbeam_channel::unbounded;
use std::thread;

type Job = Box<dyn FnOnce() + Send>;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let (job_tx, job_rx) = unbounded::<Job>();
    let workers: Vec<_> = (0..2)
        .map(|_| {
            let jobs = job_rx.clone();
            thread::spawn(move || {
                for job in jobs.iter() {
                    job();
                }
            })
        })
        .collect();
    for i in 0..8 {
        let t = tx.clone();
        job_tx.send(Box::new(move || t.send(i).unwrap())).unwrap();
    }
    drop(job_tx);
    drop(tx);
    for w in workers {
        w.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
