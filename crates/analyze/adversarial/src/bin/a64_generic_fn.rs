// A generic function over the item type spawns per call; called for two channels.
use crossbeam_channel::{unbounded, Sender};
use std::thread::{self, JoinHandle};

fn produce<T: Send + 'static>(tx: Sender<T>, v: T) -> JoinHandle<()> {
    thread::spawn(move || tx.send(v).unwrap())
}

fn main() {
    let (a, ra) = unbounded::<i32>();
    let (b, rb) = unbounded::<&'static str>();
    let h1 = produce(a.clone(), 1);
    let h2 = produce(a, 2);
    let h3 = produce(b, "x");
    for h in [h1, h2, h3] {
        h.join().unwrap();
    }
    println!("{} {:?}", ra.iter().sum::<i32>(), rb.recv());
    crossbeam_channel::report();
}
