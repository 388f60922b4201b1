// Builder spawns in a loop, each given a block that clones a receiver and a sender: every
// worker receives from one channel and sends on the other. The constructing thread sends on
// the first and drops its own receiver unused.
use crossbeam_channel::unbounded;
use std::thread;

fn main() {
    let (tx, rx) = unbounded::<u32>();
    let (done_tx, done_rx) = unbounded::<u32>();
    let mut hs = Vec::new();
    for i in 0..3 {
        let h = thread::Builder::new()
            .name(format!("w{i}"))
            .spawn({
                let rx = rx.clone();
                let done = done_tx.clone();
                move || {
                    for v in rx.iter() {
                        done.send(v * 2).unwrap();
                    }
                }
            })
            .unwrap();
        hs.push(h);
    }
    drop(done_tx);
    for v in 0..6 {
        tx.send(v).unwrap();
    }
    drop(tx);
    drop(rx);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", done_rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
