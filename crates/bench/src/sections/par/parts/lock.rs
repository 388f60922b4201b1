//! Critical sections by lock kind: OpenMP's `critical` against our locks behind the team, M
//! sections a second, at critical sections of 0 and 1000 ns.

use super::*;

/// The repetitions' steps of the lock part, for the progress bar.
pub(in crate::sections::par) fn steps(plan: &Plan) -> usize {
    plan.lock_threads.len() * plan.cs_ns.len() * (plan.locks.len() + 1)
}

/// Runs the lock part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    let duration_ms = if ctx.quick { 50 } else { 100 };
    for &cs in &plan.cs_ns {
        let cs_iters = busy_iters(cs);
        for &t in &plan.lock_threads {
            let mut v: Vec<String> = plan.locks.clone();
            if plan.libgomp_skipped.is_none() {
                v.insert(0, OMP_CRITICAL.to_string());
            }
            let g = group(
                ctx,
                plan,
                Head {
                    id: format!("critical/cs={cs}ns/t={t}"),
                    title: format!("critical sections of {cs} ns by lock kind: M/s, {t} threads"),
                    params: params(&[("cs_ns", cs.into()), ("threads", t.into())]),
                    metric: metric("M/s", true, "acq"),
                },
                v,
                |variant| Job::Lock {
                    variant: variant.to_string(),
                    threads: t,
                    cs_iters,
                    duration_ms,
                },
            )?;
            section.groups.push(g);
        }
    }
    Ok(())
}

// The child side.

pub(in crate::sections::par) fn lock_job(
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
