// Two channels' senders swapped: each thread sends on the other channel.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (mut a, ra) = unbounded::<i32>();
    let (mut b, rb) = unbounded::<i32>();
    std::mem::swap(&mut a, &mut b);
    let h = thread::spawn(move || a.send(1).unwrap());
    b.send(2).unwrap();
    h.join().unwrap();
    println!("{:?} {:?}", ra.recv(), rb.recv());
    crossbeam_channel::report();
}
