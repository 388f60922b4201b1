// A closure holding the sender behind `Arc<dyn Fn>`, called from three threads.
use crossbeam_channel::unbounded;
use std::sync::Arc;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let f: Arc<dyn Fn(i32) + Send + Sync> = Arc::new(move |x| tx.send(x).unwrap());
    let hs: Vec<_> = (0..3)
        .map(|i| {
            let f = f.clone();
            thread::spawn(move || f(i))
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    drop(f);
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
