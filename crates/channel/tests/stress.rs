//! Stress runs under clone/drop storms on both sides: every message is received exactly once,
//! and every receiver sees each chunk's messages in the order they were sent.
//!
//! Messages are numbered `0..total` and split into chunks; each chunk is sent, in order, by one
//! thread. Producer threads take chunks from a shared counter and now and then clone their
//! sender for a short-lived helper thread that sends one chunk and drops it, or replace their
//! own handle with a clone (the count goes up, then down). The consumer now and then clones its
//! receiver for a short-lived helper consumer. So both sides keep switching between the single
//! and the shared discipline while traffic flows.
//!
//! Sizes: 10^7 messages in all (a few seconds in a debug build on two cores), a few thousand
//! under Miri; `WELLTEMPERED_STRESS_MESSAGES=100000000` sets the total (the opt-in 10^8 run,
//! best with `--release`).
#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread;
use welltempered_channel::{Builder, Receiver, RecvTimeoutError, Sender, Wait};

/// Messages across all the runs of this file.
fn total_messages() -> usize {
    if let Some(n) = std::env::var("WELLTEMPERED_STRESS_MESSAGES")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        return n;
    }
    if cfg!(miri) { 3_000 } else { 10_000_000 }
}

/// A small deterministic generator (xorshift64*), one per thread.
struct Rng(u64);
impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
    }
}

struct Run {
    total: usize,
    chunk: usize,
    next_chunk: AtomicUsize,
    seen: Vec<AtomicBool>,
    duplicates: AtomicUsize,
    out_of_order: AtomicUsize,
    helpers: AtomicUsize,
    /// Clone/drop events: (producer side, consumer side).
    producer_switches: AtomicUsize,
    consumer_switches: AtomicUsize,
}

impl Run {
    fn chunks(&self) -> usize {
        self.total.div_ceil(self.chunk)
    }

    /// Sends whole chunks until none are left; `storm` spawns helpers and swaps handles.
    fn produce(&self, mut tx: Sender<usize>, seed: u64, storm: bool) {
        let mut rng = Rng::new(seed);
        thread::scope(|s| {
            loop {
                let c = self.next_chunk.fetch_add(1, Ordering::Relaxed);
                if c >= self.chunks() {
                    break;
                }
                let start = c * self.chunk;
                let end = (start + self.chunk).min(self.total);
                let mut i = start;
                while i < end {
                    // Send in small runs, single sends and batches mixed.
                    let run = (1 + rng.below(8) as usize).min(end - i);
                    if rng.below(2) == 0 {
                        tx.send_iter(i..i + run).unwrap();
                    } else {
                        for v in i..i + run {
                            tx.send(v).unwrap();
                        }
                    }
                    i += run;
                    if storm && rng.below(64) == 0 {
                        // Replace our handle: count up, then down, mid-chunk.
                        let fresh = tx.clone();
                        drop(std::mem::replace(&mut tx, fresh));
                        self.producer_switches.fetch_add(1, Ordering::Relaxed);
                    }
                }
                if storm && rng.below(6) == 0 && self.helpers.load(Ordering::Relaxed) < 3 {
                    self.helpers.fetch_add(1, Ordering::Relaxed);
                    self.producer_switches.fetch_add(1, Ordering::Relaxed);
                    let helper = tx.clone();
                    s.spawn(move || {
                        let c = self.next_chunk.fetch_add(1, Ordering::Relaxed);
                        if c < self.chunks() {
                            let start = c * self.chunk;
                            let end = (start + self.chunk).min(self.total);
                            for v in start..end {
                                helper.send(v).unwrap();
                            }
                        }
                        drop(helper);
                        self.helpers.fetch_sub(1, Ordering::Relaxed);
                    });
                }
            }
        });
    }

    /// Records one received message; `last[c]` is this receiver's last message of chunk `c`.
    fn record(&self, v: usize, last: &mut [usize]) {
        if self.seen[v].swap(true, Ordering::Relaxed) {
            self.duplicates.fetch_add(1, Ordering::Relaxed);
        }
        let c = v / self.chunk;
        if last[c] != usize::MAX && last[c] >= v {
            self.out_of_order.fetch_add(1, Ordering::Relaxed);
        }
        last[c] = v;
    }

    fn consume(&self, rx: Receiver<usize>, seed: u64, storm: bool) {
        let mut rng = Rng::new(seed);
        let mut last = vec![usize::MAX; self.chunks()];
        let mut buf = Vec::new();
        let helpers = AtomicUsize::new(0);
        thread::scope(|s| {
            let mut rx = rx;
            loop {
                match rng.below(4) {
                    0 => match rx.recv_many(&mut buf, 1 + rng.below(32) as usize) {
                        Ok(_) => {
                            for v in buf.drain(..) {
                                self.record(v, &mut last);
                            }
                        }
                        Err(_) => break,
                    },
                    1 => match rx.recv_ref() {
                        Ok(g) => self.record(*g, &mut last),
                        Err(_) => break,
                    },
                    _ => match rx.recv_timeout(std::time::Duration::from_secs(60)) {
                        Ok(v) => self.record(v, &mut last),
                        Err(RecvTimeoutError::Disconnected) => break,
                        Err(RecvTimeoutError::Timeout) => panic!("no progress for 60 s"),
                    },
                }
                if storm && rng.below(2048) == 0 {
                    let fresh = rx.clone();
                    drop(std::mem::replace(&mut rx, fresh));
                    self.consumer_switches.fetch_add(1, Ordering::Relaxed);
                }
                if storm && rng.below(4096) == 0 && helpers.load(Ordering::Relaxed) < 2 {
                    helpers.fetch_add(1, Ordering::Relaxed);
                    self.consumer_switches.fetch_add(1, Ordering::Relaxed);
                    let helper = rx.clone();
                    let budget = 1 + rng.below(5000);
                    let helpers = &helpers;
                    s.spawn(move || {
                        let mut last = vec![usize::MAX; self.chunks()];
                        for _ in 0..budget {
                            match helper.recv() {
                                Ok(v) => self.record(v, &mut last),
                                Err(_) => break,
                            }
                        }
                        drop(helper);
                        helpers.fetch_sub(1, Ordering::Relaxed);
                    });
                }
            }
        });
    }
}

/// One storm: `producers` producer threads and one consumer (plus helpers) over `build`'s
/// channel.
fn storm(total: usize, producers: usize, wait: Wait, cap: Option<usize>, seed: u64) {
    let run = Run {
        total,
        chunk: if cfg!(miri) { 50 } else { 1000 },
        next_chunk: AtomicUsize::new(0),
        seen: (0..total).map(|_| AtomicBool::new(false)).collect(),
        duplicates: AtomicUsize::new(0),
        out_of_order: AtomicUsize::new(0),
        helpers: AtomicUsize::new(0),
        producer_switches: AtomicUsize::new(0),
        consumer_switches: AtomicUsize::new(0),
    };
    let b = Builder::new().wait(wait);
    let (tx, rx) = match cap {
        None => b.unbounded(),
        Some(c) => b.bounded(c),
    };
    thread::scope(|s| {
        let run = &run;
        for p in 0..producers {
            let tx = tx.clone();
            s.spawn(move || run.produce(tx, seed + p as u64, true));
        }
        drop(tx);
        run.consume(rx, seed ^ 0xABCD, true);
    });
    assert_eq!(
        run.duplicates.load(Ordering::Relaxed),
        0,
        "duplicated messages"
    );
    assert_eq!(
        run.out_of_order.load(Ordering::Relaxed),
        0,
        "per-producer order broken"
    );
    let lost = run
        .seen
        .iter()
        .filter(|b| !b.load(Ordering::Relaxed))
        .count();
    assert_eq!(lost, 0, "lost messages");
    // The storms happened (on the consumer side only when the run is long enough to expect it).
    assert!(run.producer_switches.load(Ordering::Relaxed) > 0);
    if total >= 100_000 {
        assert!(run.consumer_switches.load(Ordering::Relaxed) > 0);
    }
}

#[test]
fn storm_one_producer_unbounded() {
    storm(total_messages() * 4 / 10, 1, Wait::default(), None, 1);
}

#[test]
fn storm_two_producers_unbounded() {
    storm(total_messages() * 3 / 10, 2, Wait::default(), None, 2);
}

#[test]
fn storm_two_producers_bounded_parking() {
    storm(total_messages() * 2 / 10, 2, Wait::Park, Some(64), 3);
}

#[test]
fn storm_three_producers_bounded_spinning() {
    storm(total_messages() / 10, 3, Wait::Spin, Some(7), 4);
}
