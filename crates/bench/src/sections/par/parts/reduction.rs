//! The team reduction, linear against tree, with a combine step of 1, 256 and 65536 LCG steps:
//! microseconds per reduction.

use super::*;

/// The repetitions' steps of the reduction part, for the progress bar.
pub(in crate::sections::par) fn steps(plan: &Plan) -> usize {
    plan.work.len() * 2 * 2
}

/// Runs the reduction part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    let ts = [2usize, *plan.threads.iter().max().unwrap_or(&2)];
    let ts: Vec<usize> = if ts[0] == ts[1] { vec![2] } else { ts.to_vec() };
    for &t in &ts {
        for &w in &plan.work {
            let g = group(
                ctx,
                plan,
                Head {
                    id: format!("reduction/w={w}/t={t}"),
                    title: format!(
                        "Team reduction, combine = {w} LCG steps: µs per reduction, {t} threads"
                    ),
                    params: params(&[("work", w.into()), ("threads", t.into())]),
                    metric: metric("µs", false, "reduction"),
                },
                vec!["linear".into(), "tree".into()],
                |variant| Job::Reduction {
                    kind: variant.to_string(),
                    threads: t,
                    work: w,
                    target_ms: plan.target_ms,
                },
            )?;
            section.groups.push(g);
        }
    }
    Ok(())
}

// The child side.

/// The reduction crossover's combine: `work` LCG steps over the sum.
pub(in crate::sections::par) fn lcg_combine(a: u64, b: u64, work: u64) -> u64 {
    let mut x = a.wrapping_add(b);
    for _ in 0..work {
        x = x
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
    }
    black_box(x)
}

pub(in crate::sections::par) fn reduction_job(
    kind: &str,
    threads: usize,
    work: u64,
    target: f64,
) -> Result<Sample> {
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
