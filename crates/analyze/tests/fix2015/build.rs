// A build script sees [build-dependencies] only: its channel is kept.
use std::sync::mpsc;

fn main() {
    let (tx, rx) = mpsc::channel();
    tx.send(1u8).unwrap();
    assert_eq!(rx.recv().unwrap(), 1);
}
