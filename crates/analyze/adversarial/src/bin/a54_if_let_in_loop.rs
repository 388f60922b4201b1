// Options of clones, each unpacked with `if let` and spawned in a loop.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let slots = [Some(tx.clone()), None, Some(tx)];
    let mut hs = Vec::new();
    for s in slots {
        if let Some(t) = s {
            hs.push(thread::spawn(move || t.send(1).unwrap()));
        }
    }
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
