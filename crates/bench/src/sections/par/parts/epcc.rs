//! EPCC's constructs (Bull, "Measuring Synchronisation and Scheduling Overheads in OpenMP", EWOMP
//! 1999): `parallel`, `for`, `parallel for`, `barrier`, `single`, `critical`, `lock`, `atomic`,
//! `reduction` and a dynamic chunk, microseconds per construct with the delay loop subtracted, on
//! libgomp, on libgomp's own code over our runtime (`wt-gomp`), on ours and, where it has the
//! construct, on rayon.

use super::*;

/// The repetitions' steps of the epcc part, for the progress bar.
pub(in crate::sections::par) fn steps(plan: &Plan) -> usize {
    plan.threads.len() * plan.constructs.len() * 4
}

/// Runs the epcc part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    for &c in &plan.constructs {
        for &t in &plan.threads {
            let mut v = vec![OURS];
            if c.rayon_has() {
                v.push(RAYON);
            }
            let g = group(
                ctx,
                plan,
                Head {
                    id: format!("epcc/{}/t={t}", c.name()),
                    title: format!(
                        "EPCC {}: µs per construct (delay {} ns subtracted), {t} threads",
                        c.name(),
                        plan.delay_ns
                    ),
                    params: params(&[("construct", c.name().into()), ("threads", t.into())]),
                    metric: metric("µs", false, "construct"),
                },
                lib(plan, v),
                |variant| Job::Construct {
                    variant: variant.to_string(),
                    construct: c,
                    threads: t,
                    delay_ns: plan.delay_ns,
                    target_ms: plan.target_ms,
                },
            )?;
            section.groups.push(g);
        }
    }
    Ok(())
}

// The child side: one construct on our runtime and on rayon (libgomp's is C, in `gomp`).

pub(in crate::sections::par) fn ours_construct(
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

pub(in crate::sections::par) fn rayon_construct(
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
