// Senders in a Vec, enumerated into threads with their index.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<usize>();
    let senders = vec![tx.clone(), tx.clone(), tx];
    let hs: Vec<_> = senders
        .into_iter()
        .enumerate()
        .map(|(i, t)| thread::spawn(move || t.send(i).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<usize>());
    crossbeam_channel::report();
}
