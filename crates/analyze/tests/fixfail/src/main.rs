use std::sync::mpsc;

// std's iterator type, named in a `macro_rules!` template, whose names --fix leaves alone (they
// resolve where the macro expands): the rewritten crate does not compile, and --fix restores
// every original byte.
macro_rules! std_iter {
    () => {
        mpsc::IntoIter<u8>
    };
}

fn main() {
    let (tx, rx) = mpsc::channel::<u8>();
    tx.send(1).unwrap();
    drop(tx);
    let it: std_iter!() = rx.into_iter();
    println!("{}", it.count());
}
