// `vec![tx; 3]` clones the sender into each element.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let senders = vec![tx; 3];
    let hs: Vec<_> = senders
        .into_iter()
        .map(|t| thread::spawn(move || t.send(1).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
