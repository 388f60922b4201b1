// An `Rc` cloned in a loop into closures run on the main thread: many holders, one handle,
// one thread.
use crossbeam_channel::unbounded;
use std::rc::Rc;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let shared = Rc::new(tx);
    let jobs: Vec<Box<dyn Fn(i32)>> = (0..3)
        .map(|_| {
            let s = shared.clone();
            Box::new(move |x| s.send(x).unwrap()) as Box<dyn Fn(i32)>
        })
        .collect();
    for (i, j) in jobs.iter().enumerate() {
        j(i as i32);
    }
    drop(jobs);
    drop(shared);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
