use std::sync::mpsc;
use std::time::Duration;

fn main() {
    let (tx, rx) = mpsc::channel::<u8>();
    tx.send(1).unwrap();
    match rx.recv_timeout(Duration::from_millis(1)) {
        Ok(v) => println!("{v}"),
        Err(mpsc::RecvTimeoutError::Timeout) => println!("timeout"),
        Err(mpsc::RecvTimeoutError::Disconnected) => println!("gone"),
    }
}
