// The sender in an Option, taken out by a thread; the main thread sends before.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut slot = Some(tx);
    slot.as_ref().unwrap().send(1).unwrap();
    let t = slot.take().unwrap();
    let h = thread::spawn(move || t.send(2).unwrap());
    h.join().unwrap();
    println!("{} {}", rx.iter().sum::<i32>(), slot.is_none());
    crossbeam_channel::report();
}
