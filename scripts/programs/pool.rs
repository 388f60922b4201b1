//! Workload of `scripts/programs.sh pool`: rusty_pool, a thread pool whose workers take jobs
//! from a crossbeam-channel `unbounded()` shared by every worker. One thread submits
//! `POOL_JOBS` small jobs (default 10^6) to a pool of `POOL_WORKERS` workers (default 2);
//! each job adds a hash of its index to a shared sum. Prints the job count and the sum, which
//! are the same on every run.
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().expect(name))
}

fn main() {
    let (jobs, workers) = (env("POOL_JOBS", 1_000_000), env("POOL_WORKERS", 2) as usize);
    let pool = rusty_pool::ThreadPool::new(workers, workers, Duration::from_secs(60));
    let (sum, done) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    for i in 0..jobs {
        let (sum, done) = (Arc::clone(&sum), Arc::clone(&done));
        pool.execute(move || {
            // A few nanoseconds of work: splitmix64 of the index.
            let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            sum.fetch_add(z ^ (z >> 31), Ordering::Relaxed);
            done.fetch_add(1, Ordering::Relaxed);
        });
    }
    pool.join();
    println!(
        "jobs {} sum {:#x}",
        done.load(Ordering::Relaxed),
        sum.load(Ordering::Relaxed)
    );
}
