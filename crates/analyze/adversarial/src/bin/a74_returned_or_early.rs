// A private function returns its channel's sender, or, by an early `return`, the sender it was
// given: here the given one, so the channel made inside is never used.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

fn sender_or(old: Option<Sender<u8>>) -> Sender<u8> {
    if let Some(o) = old {
        return o;
    }
    let (tx, rx) = unbounded();
    thread::spawn(move || rx.iter().count());
    tx
}

fn main() {
    let (old, rx) = unbounded();
    let tx = sender_or(Some(old));
    let tx2 = tx.clone();
    thread::spawn(move || tx2.send(1).unwrap()).join().unwrap();
    tx.send(2).unwrap();
    println!("{}", rx.iter().take(2).count());
    crossbeam_channel::report();
}
