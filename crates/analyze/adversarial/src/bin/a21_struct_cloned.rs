// A struct holding the sender derives Clone; each clone goes to a thread.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

#[derive(Clone)]
struct Producer {
    out: Sender<i32>,
}

impl Producer {
    fn run(&self, i: i32) {
        self.out.send(i).unwrap();
    }
}

fn main() {
    let (tx, rx) = unbounded::<i32>();
    let p = Producer { out: tx };
    let hs: Vec<_> = (0..3)
        .map(|i| {
            let p = p.clone();
            thread::spawn(move || p.run(i))
        })
        .collect();
    drop(p);
    for h in hs {
        h.join().unwrap();
    }
    println!("{}", rx.iter().sum::<i32>());
    crossbeam_channel::report();
}
