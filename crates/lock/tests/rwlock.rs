//! The phase-fair [`RwLock`] under stress: every acquisition form mixed across 2 to 32
//! threads with a non-atomic pair that writers change in two steps (a reader that ever sees the
//! two halves differ saw a writer's section), each thread's writes counted so that none is
//! lost, and the lock found unheld at the end (a timed-out reader that did not withdraw its
//! count would leave it held). Then the two starvation cases a phase-fair lock rules out: a
//! stream of overlapping readers that never lets a writer in, and a stream of writers that never
//! lets a reader in. Each is bounded by iterations, not time: the test fails if the stream
//! runs out before the starved side got in.

#![cfg(not(loom))]

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use welltempered_lock::{RwLock, RwLockUpgradableReadGuard, RwLockWriteGuard};

fn scale(n: u64) -> u64 {
    if cfg!(miri) { (n / 1000).max(4) } else { n }
}

/// A small deterministic generator (xorshift64*), one per thread.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

/// The data: both halves equal outside a write section.
type Pair = (u64, u64);

fn check(p: &Pair) {
    assert_eq!(p.0, p.1, "a reader saw a writer's half-done update");
}

/// A write in two steps with a yield between, so that a reader let in too early sees it.
fn write_pair(p: &mut Pair, rng: &mut Rng) {
    p.0 += 1;
    if rng.next().is_multiple_of(16) {
        std::thread::yield_now();
    }
    p.1 += 1;
}

/// One thread's mix of every form; returns how many writes it made.
fn mixed_ops(lock: &RwLock<Pair>, seed: u64, iters: u64) -> u64 {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let mut writes = 0;
    for _ in 0..iters {
        let short = Duration::from_micros(rng.next() % 200);
        match rng.next() % 12 {
            0..=3 => check(&lock.read()),
            4 => {
                if let Some(g) = lock.try_read() {
                    check(&g);
                }
            }
            5 => {
                if let Some(g) = lock.try_read_for(short) {
                    check(&g);
                }
            }
            6 => {
                write_pair(&mut lock.write(), &mut rng);
                writes += 1;
            }
            7 => {
                let got = if rng.next().is_multiple_of(2) {
                    lock.try_write()
                } else {
                    lock.try_write_for(short)
                };
                if let Some(mut g) = got {
                    write_pair(&mut g, &mut rng);
                    writes += 1;
                }
            }
            8 => {
                // Upgradable, then one of: upgrade, try_upgrade, timed upgrade, give up.
                let up = lock.upgradable_read();
                check(&up);
                let w = match rng.next() % 4 {
                    0 => Ok(RwLockUpgradableReadGuard::upgrade(up)),
                    1 => RwLockUpgradableReadGuard::try_upgrade(up),
                    2 => RwLockUpgradableReadGuard::try_upgrade_for(up, short),
                    _ => Err(up),
                };
                match w {
                    Ok(mut w) => {
                        write_pair(&mut w, &mut rng);
                        writes += 1;
                        // Back down, still holding the lock throughout.
                        let up = RwLockWriteGuard::downgrade_to_upgradable(w);
                        check(&up);
                        check(&RwLockUpgradableReadGuard::downgrade(up));
                    }
                    Err(up) => check(&up),
                }
            }
            9 => {
                if let Some(up) = lock.try_upgradable_read_for(short) {
                    check(&up);
                }
            }
            10 => {
                let mut w = lock.write();
                write_pair(&mut w, &mut rng);
                writes += 1;
                check(&RwLockWriteGuard::downgrade(w));
            }
            _ => {
                if let Some(up) = lock.try_upgradable_read() {
                    check(&RwLockUpgradableReadGuard::downgrade(up));
                }
            }
        }
    }
    writes
}

#[test]
fn every_form_mixed_2_to_32_threads() {
    let counts: &[u64] = if cfg!(miri) { &[2, 3] } else { &[2, 4, 8, 32] };
    for &threads in counts {
        let lock = RwLock::new((0, 0));
        let iters = scale(40_000) / threads.min(8);
        let total = AtomicU64::new(0);
        std::thread::scope(|s| {
            for t in 0..threads {
                let (lock, total) = (&lock, &total);
                s.spawn(move || {
                    let w = mixed_ops(lock, t + 1, iters);
                    total.fetch_add(w, Ordering::Relaxed);
                });
            }
        });
        assert!(
            !lock.is_locked(),
            "{threads} threads: the lock is still held"
        );
        let p = lock.into_inner();
        check(&p);
        assert_eq!(
            p.0,
            total.into_inner(),
            "{threads} threads: a write was lost"
        );
    }
}

/// Two threads run `stream` back to back (each again before the other is done, so the lock is
/// never free between them) until a third thread, started once the lock is held, got through
/// `starved`. Fails if the stream ran `limit` rounds per thread first.
fn not_starved(
    lock: &RwLock<u64>,
    stream: fn(&RwLock<u64>),
    starved: fn(&RwLock<u64>),
    what: &str,
) {
    let done = AtomicBool::new(false);
    let limit = if cfg!(miri) { 2_000 } else { 10_000_000 };
    let exhausted = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                let mut n = 0u64;
                while !done.load(Ordering::Relaxed) {
                    stream(lock);
                    n += 1;
                    if n == limit {
                        exhausted.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
        s.spawn(|| {
            while !lock.is_locked() && !exhausted.load(Ordering::Relaxed) {
                std::thread::yield_now();
            }
            starved(lock);
            done.store(true, Ordering::Relaxed);
        });
    });
    assert!(
        !exhausted.load(Ordering::Relaxed),
        "the {what} ran {limit} rounds each without letting the other side in"
    );
}

/// Readers that keep the lock read-held between them (each holds across a yield, so the two
/// holds overlap) must let a writer in. A reader-preference lock never does: the readers run
/// out of rounds first.
#[test]
fn a_stream_of_readers_does_not_starve_a_writer() {
    let lock = RwLock::new(0);
    let read = |l: &RwLock<u64>| {
        let g = l.read();
        std::thread::yield_now();
        drop(g);
    };
    not_starved(&lock, read, |l| *l.write() += 1, "readers");
    assert_eq!(lock.into_inner(), 1);
}

/// Writers that queue behind each other without a gap must let a reader in. A
/// writer-preference lock never does while a writer waits.
#[test]
fn a_stream_of_writers_does_not_starve_a_reader() {
    let lock = RwLock::new(0);
    let write = |l: &RwLock<u64>| {
        let mut g = l.write();
        *g += 1;
        std::thread::yield_now();
        drop(g);
    };
    not_starved(&lock, write, |l| assert!(*l.read() > 0), "writers");
}

/// A timed reader that gives up while a writer holds the lock leaves no count behind, whether
/// the writer is still there or already replaced by the next one.
#[test]
fn timed_readers_under_a_stream_of_writers_leave_no_count() {
    let lock = RwLock::new((0u64, 0u64));
    let readers_left = AtomicU64::new(2);
    let rounds = scale(20_000);
    std::thread::scope(|s| {
        for seed in 1..=2 {
            let (lock, readers_left) = (&lock, &readers_left);
            s.spawn(move || {
                let mut rng = Rng(seed);
                while readers_left.load(Ordering::Relaxed) > 0 {
                    write_pair(&mut lock.write(), &mut rng);
                }
            });
        }
        for seed in 3..=4 {
            let (lock, readers_left) = (&lock, &readers_left);
            s.spawn(move || {
                let mut rng = Rng(seed);
                for _ in 0..rounds {
                    let t = Duration::from_nanos(rng.next() % 50_000);
                    if let Some(g) = lock.try_read_for(t) {
                        check(&g);
                    }
                }
                readers_left.fetch_sub(1, Ordering::Relaxed);
            });
        }
    });
    assert!(
        !lock.is_locked(),
        "a timed-out reader left its count behind"
    );
    check(&lock.into_inner());
}
