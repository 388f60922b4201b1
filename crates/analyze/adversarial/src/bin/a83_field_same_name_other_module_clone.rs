// Two structs named `Worker` in two modules, both keeping a sender in a field other crates
// cannot see. The first is used in place by one thread; the second derives `Clone`, and two
// clones send from two threads. Facts gathered by the name must not let the first's
// confinement prove the second's.
use crossbeam_channel::unbounded;
use std::thread;

mod quiet {
    use crossbeam_channel::Sender;

    pub(super) struct Worker {
        pub(super) tx: Sender<u32>,
    }

    impl Worker {
        pub(super) fn ping(&mut self) {
            self.tx.send(1).unwrap();
        }
    }
}

mod loud {
    use crossbeam_channel::Sender;

    #[derive(Clone)]
    pub(super) struct Worker {
        pub(super) tx: Sender<u32>,
    }

    impl Worker {
        pub(super) fn ping(&mut self) {
            self.tx.send(2).unwrap();
        }
    }
}

fn main() {
    let (tx, rx) = unbounded();
    let mut q = quiet::Worker { tx };
    q.ping();
    let a = rx.recv().unwrap();
    let (tx, rx) = unbounded();
    let w = loud::Worker { tx };
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let mut w = w.clone();
            thread::spawn(move || w.ping())
        })
        .collect();
    for h in hs {
        h.join().unwrap();
    }
    drop(w);
    let b: u32 = rx.iter().sum();
    println!("{a} {b}");
    crossbeam_channel::report();
}
