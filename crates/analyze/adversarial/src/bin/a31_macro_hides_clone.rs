// A macro of the crate hides the clone; the clones go to threads in a loop.
use crossbeam_channel::unbounded;
use std::thread;

macro_rules! dup {
    ($x:expr) => {
        $x.clone()
    };
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let mut hs = Vec::new();
    for i in 0..3 {
        let t = dup!(tx);
        hs.push(thread::spawn(move || t.send(i).unwrap()));
    }
    drop(tx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
