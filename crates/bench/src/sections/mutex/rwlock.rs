//! The `read50`, `read90` and `read99` workloads: a reader-heavy reader-writer lock benchmark.
//! Each thread loops: with the workload's probability (50, 90 or 99%) it takes a read lock and
//! sums a small array (8 words), otherwise a write lock and increments every word; between
//! acquisitions it runs 0–200 thread-local PRNG steps, as MutexBench's moderate workload does.
//! The figure is acquisitions (reads and writes) per second.
//!
//! The variants are std's `RwLock`, parking_lot's, and ours (`welltempered_lock::RwLock`, the
//! phase-fair PF-T lock, named `rwlock`). At the end, every word must equal the number of writes counted by the
//! threads (no write lost), and every read must have seen all words equal (no torn read).

use super::{Spec, Workload, xorshift};
use crate::counters::Rusage;
use crate::model::Sample;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The data under the lock.
type Data = [u64; 8];

/// A reader-writer lock as the three APIs spell it.
trait Rw: Sync + Default {
    fn read<R>(&self, f: impl FnOnce(&Data) -> R) -> R;
    fn write<R>(&self, f: impl FnOnce(&mut Data) -> R) -> R;
    fn into_data(self) -> Data;
}

#[derive(Default)]
struct StdRw(std::sync::RwLock<Data>);
impl Rw for StdRw {
    fn read<R>(&self, f: impl FnOnce(&Data) -> R) -> R {
        f(&self.0.read().unwrap_or_else(|e| e.into_inner()))
    }
    fn write<R>(&self, f: impl FnOnce(&mut Data) -> R) -> R {
        f(&mut self.0.write().unwrap_or_else(|e| e.into_inner()))
    }
    fn into_data(self) -> Data {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// parking_lot's, or ours: both are `lock_api::RwLock`s.
struct ApiRw<R: lock_api::RawRwLock>(lock_api::RwLock<R, Data>);
impl<R: lock_api::RawRwLock> Default for ApiRw<R> {
    fn default() -> Self {
        Self(lock_api::RwLock::new(Data::default()))
    }
}
impl<R: lock_api::RawRwLock + Send + Sync> Rw for ApiRw<R> {
    fn read<T>(&self, f: impl FnOnce(&Data) -> T) -> T {
        f(&self.0.read())
    }
    fn write<T>(&self, f: impl FnOnce(&mut Data) -> T) -> T {
        f(&mut self.0.write())
    }
    fn into_data(self) -> Data {
        self.0.into_inner()
    }
}

/// The read share of a workload, in percent.
pub(super) fn read_percent(w: Workload) -> Option<u64> {
    match w {
        Workload::Read50 => Some(50),
        Workload::Read90 => Some(90),
        Workload::Read99 => Some(99),
        _ => None,
    }
}

/// One thread's loop: (reads, writes, torn reads seen).
fn worker<L: Rw>(lock: &L, stop: &AtomicBool, barrier: &Barrier, pct: u64, seed: u64) -> [u64; 3] {
    let mut local = seed | 1;
    let (mut reads, mut writes, mut torn) = (0, 0, 0);
    barrier.wait();
    // Relaxed: the flag only ends the loop; the counts travel back through `join`.
    while !stop.load(Ordering::Relaxed) {
        local = xorshift(local);
        if local % 100 < pct {
            let (sum, same) = lock.read(|d| (d.iter().sum::<u64>(), d.iter().all(|&x| x == d[0])));
            black_box(sum);
            torn += u64::from(!same);
            reads += 1;
        } else {
            lock.write(|d| d.iter_mut().for_each(|x| *x += 1));
            writes += 1;
        }
        for _ in 0..local % 201 {
            local = xorshift(local);
        }
    }
    black_box(local);
    [reads, writes, torn]
}

fn run<L: Rw>(spec: &Spec) -> Result<Sample> {
    let pct = spec
        .workload
        .and_then(read_percent)
        .ok_or_else(|| Error::new("the rwlock runner needs a read50/read90/read99 workload"))?;
    let threads = spec.threads.max(1);
    let lock = L::default();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let ru0 = Rusage::now();
    let (wall, per) = std::thread::scope(|s| {
        let hs: Vec<_> = (0..threads as u64)
            .map(|t| {
                let (lock, stop, barrier) = (&lock, &stop, &barrier);
                s.spawn(move || worker(lock, stop, barrier, pct, 0x9E37_79B9 * (t + 1)))
            })
            .collect();
        barrier.wait();
        let started = Instant::now();
        std::thread::sleep(Duration::from_nanos(spec.duration_ns));
        stop.store(true, Ordering::Relaxed);
        let per: Vec<[u64; 3]> = hs.into_iter().map(|h| h.join().expect("worker")).collect();
        (started.elapsed(), per)
    });
    let ru = Rusage::now().since(&ru0);
    let writes: u64 = per.iter().map(|p| p[1]).sum();
    let torn: u64 = per.iter().map(|p| p[2]).sum();
    let data = lock.into_data();
    if torn > 0 || data.iter().any(|&x| x != writes) {
        return Err(Error::new(format!(
            "{}: rwlock check failed: {torn} torn reads, words {data:?}, {writes} writes",
            spec.lock
        )));
    }
    let ops: u64 = per.iter().map(|p| p[0] + p[1]).sum();
    let secs = wall.as_secs_f64();
    Ok(Sample {
        variant: spec.lock.clone(),
        value: ops as f64 / secs / 1e6,
        ops,
        wall_s: secs,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        per_thread: per.iter().map(|p| p[0] + p[1]).collect(),
        extra: BTreeMap::new(),
        ..Default::default()
    })
}

/// The reader-writer runner for the lock called `name` (one of [`super::RWLOCKS`]).
pub(super) fn runner(name: &str) -> Option<fn(&Spec) -> Result<Sample>> {
    Some(match name {
        "std" => run::<StdRw>,
        "parking_lot" => run::<ApiRw<parking_lot::RawRwLock>>,
        "rwlock" => run::<ApiRw<welltempered_lock::RawRwLock>>,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_counts_and_checks() {
        for name in super::super::RWLOCKS {
            for w in [Workload::Read50, Workload::Read99] {
                let spec = Spec {
                    lock: name.into(),
                    workload: Some(w),
                    cs_ns: 0,
                    cs_iters: 0,
                    threads: 3,
                    duration_ns: 5_000_000,
                };
                let s = runner(name).unwrap()(&spec).unwrap();
                assert!(s.ops > 0 && s.value > 0.0, "{name}: {s:?}");
                assert_eq!(s.per_thread.iter().sum::<u64>(), s.ops, "{name}");
            }
        }
        assert!(runner("mcs").is_none());
        let max = Spec {
            lock: "rwlock".into(),
            workload: Some(Workload::Max),
            cs_ns: 0,
            cs_iters: 0,
            threads: 1,
            duration_ns: 1_000_000,
        };
        assert!(run::<StdRw>(&max).is_err(), "a mutex workload is refused");
    }
}
