// Clones kept in a HashMap by name, each taken out for a thread.
use crossbeam_channel::unbounded;
use std::collections::HashMap;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut by_name = HashMap::new();
    by_name.insert("a", tx.clone());
    by_name.insert("b", tx);
    let hs: Vec<_> = by_name
        .into_values()
        .map(|t| thread::spawn(move || t.send(1).unwrap()))
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
