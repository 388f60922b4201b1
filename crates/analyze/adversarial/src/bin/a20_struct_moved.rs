// The sender in a struct's private field; the struct is moved to a thread that sends.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

struct Producer {
    out: Sender<i32>,
}

impl Producer {
    fn run(self) {
        for i in 0..3 {
            self.out.send(i).unwrap();
        }
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let p = Producer { out: tx };
    thread::spawn(move || p.run()).join().unwrap();
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
