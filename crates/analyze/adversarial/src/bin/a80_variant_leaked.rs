// A sender in a private enum's variant, matched by value as received, but the message is
// leaked and its `&'static` reference sent to two threads over a channel of references: each
// matches the same message and sends. Two threads send.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

enum Msg {
    Flush(Sender<u32>),
}

fn main() {
    let (tx, rx) = unbounded();
    let m: &'static Msg = Box::leak(Box::new(Msg::Flush(tx)));
    let (refs_tx, refs_rx) = unbounded::<&'static Msg>();
    refs_tx.send(m).unwrap();
    refs_tx.send(m).unwrap();
    drop(refs_tx);
    let workers: Vec<_> = (0..2)
        .map(|i| {
            let refs_rx = refs_rx.clone();
            thread::spawn(move || {
                let msg = refs_rx.recv().unwrap();
                match msg {
                    Msg::Flush(s) => s.send(i).unwrap(),
                }
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    println!("{}", rx.iter().take(2).sum::<u32>());
    crossbeam_channel::report();
}
