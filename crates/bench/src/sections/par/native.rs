//! Our side and rayon's: the constructs, barriers, reductions, locks, applications and idle
//! windows on `welltempered-par` and on rayon, and the child process's dispatch.

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

pub(super) fn ours_construct(
    variant: &str,
    construct: Construct,
    threads: usize,
    delay_ns: u64,
    target: f64,
) -> Result<Sample> {
    let barrier = barrier_kind(variant);
    let rt = runtime(threads, |c| {
        if let Some(b) = barrier {
            c.barrier = b;
        }
    });
    let iters = if construct.delayed() {
        busy_iters(delay_ns)
    } else {
        0
    };
    let count = AtomicU64::new(0);
    let mutex = welltempered_lock::Mutex::new(0u64);
    let t = threads as u64;
    let test = |reps: u64| -> f64 {
        count.store(0, Ordering::Relaxed);
        *mutex.lock() = 0;
        time(|| match construct {
            Construct::Parallel => {
                for _ in 0..reps {
                    rt.parallel(|_| delay(iters));
                }
            }
            Construct::For => rt.parallel(|ctx| {
                for _ in 0..reps {
                    ctx.for_range(0..threads, |_| delay(iters));
                }
            }),
            Construct::ParallelFor => {
                for _ in 0..reps {
                    rt.parallel_for(0..threads, |_| delay(iters));
                }
            }
            Construct::Barrier => rt.parallel(|ctx| {
                for _ in 0..reps {
                    delay(iters);
                    ctx.barrier();
                }
            }),
            Construct::Single => rt.parallel(|ctx| {
                for _ in 0..reps {
                    ctx.single(|| {
                        delay(iters);
                        count.fetch_add(1, Ordering::Relaxed);
                    });
                }
            }),
            Construct::Critical => rt.parallel(|ctx| {
                for _ in 0..reps / t {
                    ctx.critical(|| {
                        delay(iters);
                        // A load and a store, not an increment: a lost update shows a broken
                        // critical section.
                        count.store(count.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
                    });
                }
            }),
            Construct::Lock => rt.parallel(|_| {
                for _ in 0..reps / t {
                    let mut g = mutex.lock();
                    delay(iters);
                    *g += 1;
                }
            }),
            Construct::Atomic => rt.parallel(|_| {
                for _ in 0..reps / t {
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }),
            Construct::Reduction => {
                for _ in 0..reps {
                    rt.parallel(|ctx| {
                        delay(iters);
                        let sum = ctx.reduce(1u64, |a, b| a + b);
                        ctx.master(|| count.fetch_add(sum, Ordering::Relaxed));
                    });
                }
            }
            Construct::DynamicChunk => rt.parallel(|ctx| {
                ctx.for_range_schedule(0..reps as usize, Schedule::Dynamic { chunk: 1 }, |i| {
                    black_box(i);
                });
                ctx.master(|| count.store(reps, Ordering::Relaxed));
            }),
        })
    };
    let (reps, elapsed) = calibrate(target, test);
    let counted = match construct {
        Construct::Lock => *mutex.lock(),
        _ => count.load(Ordering::Relaxed),
    };
    if let Some(e) = expected_count(construct, threads, reps)
        && counted != e
    {
        return Err(Error::new(format!(
            "ours {} counted {counted}, expected {e}",
            construct.name()
        )));
    }
    let refer = if construct.delayed() {
        reference(reps, iters)
    } else {
        0.0
    };
    Ok(overhead_sample(reps, elapsed, refer))
}

pub(super) fn rayon_pool(threads: usize) -> Result<rayon::ThreadPool> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::new(format!("cannot build a rayon pool: {e}")))?;
    pool.broadcast(|_| black_box(()));
    Ok(pool)
}

pub(super) fn rayon_construct(
    construct: Construct,
    threads: usize,
    delay_ns: u64,
    target: f64,
) -> Result<Sample> {
    use rayon::prelude::*;
    let pool = rayon_pool(threads)?;
    let iters = if construct.delayed() {
        busy_iters(delay_ns)
    } else {
        0
    };
    let total = AtomicU64::new(0);
    let test = |reps: u64| -> f64 {
        total.store(0, Ordering::Relaxed);
        pool.install(|| {
            time(|| match construct {
                Construct::Parallel => {
                    for _ in 0..reps {
                        rayon::broadcast(|_| delay(iters));
                    }
                }
                Construct::ParallelFor => {
                    for _ in 0..reps {
                        (0..threads).into_par_iter().for_each(|_| delay(iters));
                    }
                }
                Construct::Reduction => {
                    for _ in 0..reps {
                        let s: u64 = (0..threads)
                            .into_par_iter()
                            .map(|_| {
                                delay(iters);
                                1u64
                            })
                            .sum();
                        total.fetch_add(s, Ordering::Relaxed);
                    }
                }
                Construct::DynamicChunk => {
                    (0..reps as usize)
                        .into_par_iter()
                        .with_max_len(1)
                        .for_each(|i| {
                            black_box(i);
                        });
                    total.store(reps, Ordering::Relaxed);
                }
                _ => {}
            })
        })
    };
    let (reps, elapsed) = calibrate(target, test);
    if let Some(e) = expected_count(construct, threads, reps)
        && total.load(Ordering::Relaxed) != e
    {
        return Err(Error::new(format!(
            "rayon {} counted {}, expected {e}",
            construct.name(),
            total.load(Ordering::Relaxed)
        )));
    }
    let refer = if construct.delayed() {
        reference(reps, iters)
    } else {
        0.0
    };
    Ok(overhead_sample(reps, elapsed, refer))
}

/// The reduction crossover's combine: `work` LCG steps over the sum.
pub(super) fn lcg_combine(a: u64, b: u64, work: u64) -> u64 {
    let mut x = a.wrapping_add(b);
    for _ in 0..work {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x)
}

pub(super) fn reduction_job(kind: &str, threads: usize, work: u64, target: f64) -> Result<Sample> {
    let reduction = match kind {
        "linear" => ReductionKind::Linear,
        "tree" => ReductionKind::Tree,
        other => return Err(Error::new(format!("unknown reduction kind {other:?}"))),
    };
    let rt = runtime(threads, |c| c.reduction = reduction);
    let agreed = AtomicBool::new(true);
    let test = |reps: u64| -> f64 {
        time(|| {
            rt.parallel(|ctx| {
                for r in 0..reps {
                    let mine = r ^ ctx.thread_num() as u64;
                    let all = ctx.reduce(mine, |a, b| lcg_combine(a, b, work));
                    // Every thread must get the team's one result.
                    let first = ctx.reduce(all, |a, b| if a == b { a } else { u64::MAX });
                    if first == u64::MAX {
                        agreed.store(false, Ordering::Relaxed);
                    }
                }
            })
        })
    };
    let (reps, elapsed) = calibrate(target, test);
    if !agreed.load(Ordering::Relaxed) {
        return Err(Error::new(format!(
            "{kind} reduction gave the threads different results"
        )));
    }
    // Two reductions per repetition: the measured one and the agreement check, which combines
    // with no work; the figure is the sum (both kinds pay the same check).
    Ok(Sample {
        value: elapsed / reps as f64 * 1e6,
        ops: reps,
        wall_s: elapsed,
        ..Default::default()
    })
}

pub(super) fn lock_job(
    variant: &str,
    threads: usize,
    cs_iters: u64,
    duration_ms: u64,
) -> Result<Sample> {
    let window = Duration::from_millis(duration_ms);
    if variant == OMP_CRITICAL {
        let before = Rusage::now();
        let (secs, ops) = gomp::critical_throughput(threads, window.as_secs_f64(), cs_iters)?;
        let used = Rusage::now().since(&before);
        return Ok(Sample {
            value: ops as f64 / secs / 1e6,
            ops,
            wall_s: secs,
            cpu_s: used.cpu_s,
            vcsw: used.vcsw,
            ivcsw: used.ivcsw,
            ..Default::default()
        });
    }
    let kind: LockKind = variant.parse().map_err(|e| Error::new(format!("{e}")))?;
    let rt = runtime(threads, |c| c.lock = kind);
    let stop = AtomicBool::new(false);
    let per_thread: Vec<AtomicU64> = (0..threads).map(|_| AtomicU64::new(0)).collect();
    let inside = AtomicU64::new(0);
    let before = Rusage::now();
    let start = Instant::now();
    rt.parallel(|ctx| {
        let me = &per_thread[ctx.thread_num()];
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            ctx.critical(|| {
                busy(cs_iters);
                inside.store(inside.load(Ordering::Relaxed) + 1, Ordering::Relaxed);
            });
            n += 1;
            if ctx.thread_num() == 0 && start.elapsed() >= window {
                stop.store(true, Ordering::Relaxed);
            }
        }
        me.store(n, Ordering::Relaxed);
    });
    let secs = start.elapsed().as_secs_f64();
    let used = Rusage::now().since(&before);
    let counts: Vec<u64> = per_thread
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .collect();
    let total: u64 = counts.iter().sum();
    if inside.load(Ordering::Relaxed) != total {
        return Err(Error::new(format!(
            "critical sections under {variant} lost updates: {} of {total}",
            inside.load(Ordering::Relaxed)
        )));
    }
    Ok(Sample {
        value: total as f64 / secs / 1e6,
        ops: total,
        wall_s: secs,
        cpu_s: used.cpu_s,
        vcsw: used.vcsw,
        ivcsw: used.ivcsw,
        per_thread: counts,
        ..Default::default()
    })
}

/// Raw pointer to a matrix the team writes row by row.
#[derive(Clone, Copy)]
pub(super) struct Rows(*mut f64);
// SAFETY: the pointer is only used to write disjoint rows (each row index is visited by exactly
// one thread, which the schedules guarantee), while the owning Vec outlives the region.
unsafe impl Send for Rows {}
// SAFETY: as above: shared access only hands out disjoint rows.
unsafe impl Sync for Rows {}

impl Rows {
    /// Row `i` of an `n`-column matrix.
    ///
    /// # Safety
    /// The matrix has at least `(i + 1) * n` elements and outlives `'a`, and no other reference
    /// to row `i` exists while the returned one lives.
    unsafe fn row<'a>(&self, i: usize, n: usize) -> &'a mut [f64] {
        // SAFETY: in bounds, alive and unaliased (the caller's contract).
        unsafe { std::slice::from_raw_parts_mut(self.0.add(i * n), n) }
    }
}

pub(super) fn matmul_row(a: &[f64], b: &[f64], row: &mut [f64], i: usize, n: usize) {
    row.fill(0.0);
    for k in 0..n {
        let aik = a[i * n + k];
        let bk = &b[k * n..(k + 1) * n];
        for (c, &bkj) in row.iter_mut().zip(bk) {
            *c += aik * bkj;
        }
    }
}

pub(super) fn mandel_row(row: usize, n: usize, max_iter: u32) -> u64 {
    let ci = -1.5 + 3.0 * row as f64 / n as f64;
    let mut total = 0u64;
    for col in 0..n {
        let cr = -2.0 + 3.0 * col as f64 / n as f64;
        let (mut zr, mut zi) = (0.0f64, 0.0f64);
        let mut k = 0;
        while k < max_iter && zr * zr + zi * zi <= 4.0 {
            let t = zr * zr - zi * zi + cr;
            zi = 2.0 * zr * zi + ci;
            zr = t;
            k += 1;
        }
        total += u64::from(k);
    }
    total
}

pub(super) fn pi_term(i: usize, step: f64) -> f64 {
    let x = (i as f64 + 0.5) * step;
    4.0 / (1.0 + x * x)
}

pub(super) fn matrices(n: usize) -> (Vec<f64>, Vec<f64>) {
    let a = (0..n * n)
        .map(|i| ((i * 7 + 3) % 101) as f64 / 101.0)
        .collect();
    let b = (0..n * n)
        .map(|i| ((i * 13 + 5) % 97) as f64 / 97.0)
        .collect();
    (a, b)
}

/// Runs the kernel once as `variant`; returns (seconds, checked answer).
pub(super) fn app_once(
    variant: &str,
    app: App,
    sched: Sched,
    threads: usize,
    rt: Option<&Runtime>,
    pool: Option<&rayon::ThreadPool>,
    mats: &(Vec<f64>, Vec<f64>),
) -> Result<(f64, f64)> {
    use rayon::prelude::*;
    let chunk = app.chunk();
    let n = match app {
        App::Matmul256 => 256,
        App::Matmul1024 => 1024,
        _ => MANDEL_N,
    };
    let (a, b) = (&mats.0, &mats.1);
    let mut c = vec![
        0.0f64;
        if matches!(app, App::Matmul256 | App::Matmul1024) {
            n * n
        } else {
            0
        }
    ];
    let step = 1.0 / PI_STEPS as f64;
    let t0 = Instant::now();
    let answer: f64 = match (variant, rt, pool) {
        (SERIAL, _, _) => match app {
            App::Pi => (0..PI_STEPS).map(|i| pi_term(i, step)).sum::<f64>() * step,
            App::Mandel => (0..n).map(|r| mandel_row(r, n, MANDEL_ITER)).sum::<u64>() as f64,
            _ => {
                for (i, row) in c.chunks_mut(n).enumerate() {
                    matmul_row(a, b, row, i, n);
                }
                c.iter().sum()
            }
        },
        (_, Some(rt), _) => match app {
            App::Pi => rt.reduce(0..PI_STEPS, 0.0, |i| pi_term(i, step), |x, y| x + y) * step,
            App::Mandel => {
                rt.reduce(0..n, 0u64, |r| mandel_row(r, n, MANDEL_ITER), |x, y| x + y) as f64
            }
            _ => {
                let out = Rows(c.as_mut_ptr());
                rt.parallel_for_schedule(0..n, sched.ours(chunk), |i| {
                    // SAFETY: `c` has n*n elements and outlives the loop; row `i` is written by
                    // the one thread the schedule gives index `i` (each index exactly once).
                    let row = unsafe { out.row(i, n) };
                    matmul_row(a, b, row, i, n);
                });
                c.iter().sum()
            }
        },
        (_, _, Some(pool)) => pool.install(|| match app {
            App::Pi => {
                (0..PI_STEPS)
                    .into_par_iter()
                    .map(|i| pi_term(i, step))
                    .sum::<f64>()
                    * step
            }
            App::Mandel => (0..n)
                .into_par_iter()
                .map(|r| mandel_row(r, n, MANDEL_ITER))
                .sum::<u64>() as f64,
            _ => {
                c.par_chunks_mut(n)
                    .enumerate()
                    .for_each(|(i, row)| matmul_row(a, b, row, i, n));
                c.iter().sum()
            }
        }),
        _ => {
            let s = sched as i32;
            match app {
                App::Pi => gomp::pi(threads, s, chunk, PI_STEPS)?,
                App::Mandel => gomp::mandel(threads, s, chunk, n, MANDEL_ITER)?,
                _ => {
                    gomp::matmul(threads, s, chunk, n, a, b, &mut c)?;
                    c.iter().sum()
                }
            }
        }
    };
    Ok((t0.elapsed().as_secs_f64(), answer))
}

pub(super) fn app_job(variant: &str, app: App, sched: Sched, threads: usize) -> Result<Sample> {
    let mats = match app {
        App::Matmul256 => matrices(256),
        App::Matmul1024 => matrices(1024),
        _ => (Vec::new(), Vec::new()),
    };
    let rt = variant.starts_with(OURS).then(|| {
        runtime(threads, |c| {
            c.schedule = sched.ours(app.chunk());
            if variant == "ours-pinned" {
                c.pinning = Pinning::On;
            }
        })
    });
    let pool = if variant == RAYON {
        Some(rayon_pool(threads)?)
    } else {
        None
    };
    // One untimed run warms the team, the caches and the page tables; the second is timed.
    app_once(
        variant,
        app,
        sched,
        threads,
        rt.as_ref(),
        pool.as_ref(),
        &mats,
    )?;
    let (secs, answer) = app_once(
        variant,
        app,
        sched,
        threads,
        rt.as_ref(),
        pool.as_ref(),
        &mats,
    )?;
    Ok(Sample {
        value: secs * 1e3,
        ops: 1,
        wall_s: secs,
        extra: BTreeMap::from([("answer".to_string(), answer)]),
        ..Default::default()
    })
}

pub(super) fn idle_job(variant: &str, threads: usize, idle_ms: u64) -> Result<Sample> {
    let window = Duration::from_millis(idle_ms);
    let cpu = match variant {
        LIBGOMP | WT_GOMP => gomp::idle_cpu(threads, window.as_secs_f64())?,
        RAYON => {
            let pool = rayon_pool(threads)?;
            pool.broadcast(|_| busy(1000));
            let before = Rusage::now();
            std::thread::sleep(window);
            Rusage::now().since(&before).cpu_s
        }
        OURS | "ours-active" => {
            let rt = runtime(threads, |c| {
                if variant == "ours-active" {
                    c.wait = WaitPolicy::Active;
                }
            });
            rt.parallel(|_| busy(1000));
            let before = Rusage::now();
            std::thread::sleep(window);
            Rusage::now().since(&before).cpu_s
        }
        other => return Err(Error::new(format!("unknown idle variant {other:?}"))),
    };
    Ok(Sample {
        value: cpu * 1e3 / window.as_secs_f64(),
        ops: 1,
        wall_s: window.as_secs_f64(),
        cpu_s: cpu,
        ..Default::default()
    })
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
