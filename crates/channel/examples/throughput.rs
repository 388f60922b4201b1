//! A quick look at SPSC and 2:1 hand-over throughput and at the remarks; the measured
//! comparisons against other channels belong to the `welltempered` harness.
//!
//! `WELLTEMPERED_REMARKS=1 cargo run --release -p welltempered-channel --example throughput`

use std::time::Instant;
use welltempered_channel::{Builder, Wait, unbounded};

fn spsc(n: u64, wait: Wait) -> f64 {
    let (tx, rx) = Builder::new().wait(wait).unbounded::<u64>();
    let start = Instant::now();
    let h = std::thread::spawn(move || {
        for i in 0..n {
            tx.send(i).unwrap();
        }
    });
    let mut sum = 0u64;
    for v in rx.iter() {
        sum = sum.wrapping_add(v);
    }
    h.join().unwrap();
    assert_eq!(sum, n * (n - 1) / 2);
    n as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn two_to_one(n: u64) -> f64 {
    let (tx, rx) = unbounded::<u64>();
    let start = Instant::now();
    let hs: Vec<_> = (0..2)
        .map(|_| {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for i in 0..n / 2 {
                    tx.send(i).unwrap();
                }
            })
        })
        .collect();
    drop(tx);
    let count = rx.iter().count() as u64;
    for h in hs {
        h.join().unwrap();
    }
    assert_eq!(count, n / 2 * 2);
    n as f64 / start.elapsed().as_secs_f64() / 1e6
}

fn main() {
    let n = 20_000_000;
    for wait in [Wait::Spin, Wait::default()] {
        println!("spsc 8 B, {wait:?}: {:.1} M/s", spsc(n, wait));
    }
    println!("2:1 8 B: {:.1} M/s", two_to_one(n));
}
