use std::sync::mpsc;

fn main() {
    let (tx, rx) = mpsc::channel::<u8>();
    tx.send(1).unwrap();
    drop(tx);
    // std's iterator type, named: welltempered's receiver iterates with a type of its own, so
    // the rewritten crate does not compile and --fix restores every original byte.
    let it: mpsc::IntoIter<u8> = rx.into_iter();
    println!("{}", it.count());
}
