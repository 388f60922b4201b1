//! The child process's side: what every part's jobs share (a started team, the delay loop, a
//! rayon pool) and the dispatch of a job to its part ([`super::parts`]).

use super::*;

pub(super) fn runtime(threads: usize, f: impl FnOnce(&mut Config)) -> Runtime {
    let mut config = Config {
        threads,
        ..Config::default()
    };
    f(&mut config);
    let rt = Runtime::new(config);
    // Start the team before anything is timed.
    rt.parallel(|_| black_box(()));
    rt
}

pub(super) fn delay(iters: u64) {
    busy(iters);
}

pub(super) fn time(f: impl FnOnce()) -> f64 {
    let t0 = Instant::now();
    f();
    t0.elapsed().as_secs_f64()
}

pub(super) fn reference(reps: u64, iters: u64) -> f64 {
    time(|| {
        for _ in 0..reps {
            delay(iters);
        }
    })
}

pub(super) fn barrier_kind(name: &str) -> Option<BarrierKind> {
    match name {
        "central" => Some(BarrierKind::Central),
        "tree" => Some(BarrierKind::Tree),
        "dissemination" => Some(BarrierKind::Dissemination),
        _ => None,
    }
}

pub(super) fn rayon_pool(threads: usize) -> Result<rayon::ThreadPool> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::new(format!("cannot build a rayon pool: {e}")))?;
    pool.broadcast(|_| black_box(()));
    Ok(pool)
}

/// Runs one job in this (child) process.
pub fn run_job_here(job: &Job) -> Result<Sample> {
    match job {
        Job::Construct {
            variant,
            construct,
            threads,
            delay_ns,
            target_ms,
        } => {
            let target = *target_ms as f64 / 1e3;
            match variant.as_str() {
                LIBGOMP | WT_GOMP => gomp::construct(*construct, *threads, *delay_ns, target),
                RAYON => rayon_construct(*construct, *threads, *delay_ns, target),
                v => ours_construct(v, *construct, *threads, *delay_ns, target),
            }
        }
        Job::Reduction {
            kind,
            threads,
            work,
            target_ms,
        } => reduction_job(kind, *threads, *work, *target_ms as f64 / 1e3),
        Job::Lock {
            variant,
            threads,
            cs_iters,
            duration_ms,
        } => lock_job(variant, *threads, *cs_iters, *duration_ms),
        Job::App {
            variant,
            app,
            sched,
            threads,
        } => app_job(variant, *app, *sched, *threads),
        Job::Idle {
            variant,
            threads,
            idle_ms,
        } => idle_job(variant, *threads, *idle_ms),
    }
}
