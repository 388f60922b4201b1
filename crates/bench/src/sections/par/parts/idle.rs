//! An idle team after one region: the CPU milliseconds it burns per second of idling (libgomp spins
//! for its spin count; ours sleeps after its wait policy's window).

use super::*;

/// The repetitions' steps of the idle part, for the progress bar.
pub(in crate::sections::par) fn steps(_plan: &Plan) -> usize {
    5
}

/// Runs the idle part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    let t = plan.app_threads;
    let g = group(
        ctx,
        plan,
        Head {
            id: "idle".into(),
            title: format!(
                "An idle team after one region: CPU ms burnt per second idle, {t} threads"
            ),
            params: params(&[("part", "idle".into())]),
            metric: metric("cpu-ms/s", false, "window"),
        },
        lib(plan, vec![OURS, "ours-active", RAYON]),
        |variant| Job::Idle {
            variant: variant.to_string(),
            threads: t,
            idle_ms: plan.idle_ms,
        },
    )?;
    section.groups.push(g);
    Ok(())
}

// The child side.

pub(in crate::sections::par) fn idle_job(
    variant: &str,
    threads: usize,
    idle_ms: u64,
) -> Result<Sample> {
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
