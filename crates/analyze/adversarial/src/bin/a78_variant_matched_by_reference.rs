// A sender in a private enum's variant, whose only pattern is a `match` arm that sends in
// place; the message is not moved to one thread but lent to two scoped threads, each of which
// matches it by reference and sends. Two threads send.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

enum Msg {
    Flush(Sender<u32>),
}

fn handle(m: &Msg, v: u32) {
    match m {
        Msg::Flush(s) => s.send(v).unwrap(),
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let m = Msg::Flush(tx);
    thread::scope(|sc| {
        sc.spawn(|| handle(&m, 1));
        sc.spawn(|| handle(&m, 2));
    });
    drop(m);
    println!("{}", rx.iter().sum::<u32>());
    crossbeam_channel::report();
}
