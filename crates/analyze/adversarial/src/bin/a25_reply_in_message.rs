// A reply sender travels inside a request to a worker, which answers on it.
use crossbeam_channel::{unbounded, Sender};
use std::thread;

enum Request {
    Double(i32, Sender<i32>),
}

fn main() {
    let (req_tx, req_rx) = unbounded::<Request>();
    let worker = thread::spawn(move || {
        for Request::Double(x, reply) in req_rx.iter() {
            reply.send(2 * x).unwrap();
        }
    });
    let (reply_tx, reply_rx) = unbounded::<i32>();
    req_tx.send(Request::Double(21, reply_tx)).unwrap();
    println!("{}", reply_rx.recv().unwrap());
    drop(req_tx);
    worker.join().unwrap();
    crossbeam_channel::report();
}
