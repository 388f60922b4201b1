// crossbeam-channel's selection and timers: welltempered's channel has them under the same
// names, so --fix rewrites them with the channels (which then get the general handles), and
// the imports they leave unused go. A crate's own type named like one of them stays.
use crossbeam_channel::{Select, never, select, unbounded};
use std::thread;
use std::time::Duration;

mod own;

fn main() {
    let (tx, rx) = unbounded::<u64>();
    let (done_tx, done_rx) = unbounded::<()>();
    let worker = thread::spawn(move || {
        for i in 1..=4 {
            tx.send(i).unwrap();
        }
        done_tx.send(()).unwrap();
    });
    worker.join().unwrap();
    let mut total = 0;
    let mut sel = Select::new();
    let data = sel.recv(&rx);
    let oper = sel.select();
    assert_eq!(oper.index(), data);
    total += oper.recv(&rx).unwrap();
    let off = never::<u64>();
    loop {
        select! {
            recv(rx) -> v => match v {
                Ok(v) => total += v,
                Err(_) => break,
            },
            recv(off) -> _ => unreachable!(),
            default(Duration::from_millis(50)) => break,
        }
    }
    done_rx.recv().unwrap();
    println!("{total} {}", own::Select::new().0);
}
