extern crate fx_fix2015;

use std::sync::mpsc;
use std::thread;

fn main() {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || tx.send(fx_fix2015::run()).unwrap());
    println!("{}", rx.recv().unwrap());
}
