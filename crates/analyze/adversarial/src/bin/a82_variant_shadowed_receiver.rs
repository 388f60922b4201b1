// A sender in a private enum's variant, matched in a loop over a name that was a channel's
// receiver but is rebound to a slice of messages, which two scoped threads iterate by
// reference. Two threads send.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

enum Shadowed {
    Reply(Sender<u32>),
}

fn replies(items: &[Shadowed], v: u32) {
    let (_unused, rx) = unbounded::<u32>();
    drop(rx);
    let rx = items;
    for m in rx.iter() {
        match m {
            Shadowed::Reply(s) => s.send(v).unwrap(),
        }
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let items = vec![Shadowed::Reply(tx)];
    thread::scope(|sc| {
        sc.spawn(|| replies(&items, 1));
        sc.spawn(|| replies(&items, 2));
    });
    drop(items);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
