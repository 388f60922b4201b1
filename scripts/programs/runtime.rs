//! Workload of `scripts/programs.sh runtime`: tokio's multi-thread runtime built with its
//! `parking_lot` feature, so that its internal mutexes and condition variables are
//! parking_lot's (the queue of tasks spawned from outside the runtime, the blocking pool's
//! queue and its condition variable, the workers' parking). From the main thread, outside the
//! runtime, it spawns `RT_TASKS` small tasks (default 10^6) and `RT_BLOCKING` blocking jobs
//! (default 10^5) in batches of 1000, on `RT_WORKERS` workers (default 2), and waits for each
//! batch. Each task or job returns a hash of its index. Prints the counts and the sum, which are
//! the same on every run.

fn env(name: &str, default: u64) -> u64 {
    std::env::var(name).map_or(default, |v| v.parse().expect(name))
}

/// A few nanoseconds of work: splitmix64 of the index.
fn work(i: u64) -> u64 {
    let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

fn main() {
    let tasks = env("RT_TASKS", 1_000_000);
    let blocking = env("RT_BLOCKING", 100_000);
    let workers = env("RT_WORKERS", 2) as usize;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .max_blocking_threads(workers)
        .build()
        .expect("a runtime");
    let (mut sum, mut done) = (0u64, 0u64);
    let mut handles = Vec::with_capacity(1000);
    for batch in (0..tasks).step_by(1000) {
        handles.extend((batch..(batch + 1000).min(tasks)).map(|i| rt.spawn(async move { work(i) })));
        for h in handles.drain(..) {
            sum = sum.wrapping_add(rt.block_on(h).expect("a task"));
            done += 1;
        }
    }
    let mut blocking_done = 0u64;
    for batch in (0..blocking).step_by(1000) {
        handles.extend(
            (batch..(batch + 1000).min(blocking)).map(|i| rt.spawn_blocking(move || work(!i))),
        );
        for h in handles.drain(..) {
            sum = sum.wrapping_add(rt.block_on(h).expect("a blocking job"));
            blocking_done += 1;
        }
    }
    println!("tasks {done} blocking {blocking_done} sum {sum:#x}");
}
