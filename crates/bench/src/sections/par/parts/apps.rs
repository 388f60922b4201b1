//! omp0's applications (Pi, Mandelbrot, a matrix product) under each schedule, milliseconds per
//! run, serial, ours, libgomp, libgomp's code on our runtime and rayon, pinned and not; every
//! variant must compute the serial answer.

use super::*;

/// The repetitions' steps of the apps part, for the progress bar.
pub(in crate::sections::par) fn steps(plan: &Plan) -> usize {
    plan.apps.len() * 3 * 8
}

/// Runs the apps part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    let t = plan.app_threads;
    for &app in &plan.apps {
        for sched in Sched::ALL {
            let variants = {
                let mut v = vec![SERIAL.to_string(), OURS.into(), "ours-pinned".into()];
                if plan.libgomp_skipped.is_none() {
                    v.push(LIBGOMP.into());
                    v.push("libgomp-pinned".into());
                    if plan.wt_gomp_library.is_some() {
                        v.push(WT_GOMP.into());
                        v.push(format!("{WT_GOMP}-pinned"));
                    }
                }
                v.push(RAYON.into());
                v
            };
            let g = group(
                ctx,
                plan,
                Head {
                    id: format!("app/{}/{}", app.name(), sched.name()),
                    title: format!(
                        "{} with schedule({}{}): ms per run, {t} threads (ratio vs serial = speed-up)",
                        app.name(),
                        sched.name(),
                        if sched == Sched::Static {
                            String::new()
                        } else {
                            format!(", {}", app.chunk())
                        }
                    ),
                    params: params(&[
                        ("app", app.name().into()),
                        ("schedule", sched.name().into()),
                    ]),
                    metric: metric("ms", false, "run"),
                },
                variants,
                |variant| Job::App {
                    variant: variant.to_string(),
                    app,
                    sched,
                    threads: t,
                },
            )?;
            check_answers(&g, app)?;
            section.groups.push(g);
        }
    }
    Ok(())
}

/// Every variant of an application group must compute the serial answer (Pi to 1e-9; the
/// Mandelbrot count exactly; the matrix sum to 1e-9 relative).
fn check_answers(g: &Group, app: App) -> Result<()> {
    let serial = g
        .reps
        .iter()
        .find_map(|r| r.sample(SERIAL))
        .and_then(|s| s.extra.get("answer").copied());
    let Some(want) = serial else {
        return Ok(());
    };
    for r in &g.reps {
        for s in &r.samples {
            let got = s.extra.get("answer").copied().unwrap_or(f64::NAN);
            let ok = match app {
                App::Mandel => got == want,
                App::Pi => (got - want).abs() <= 1e-9,
                _ => ((got - want) / want).abs() <= 1e-9,
            };
            if !ok {
                return Err(Error::new(format!(
                    "{} under {} computed {got}, serial {want}",
                    app.name(),
                    s.variant
                )));
            }
        }
    }
    Ok(())
}

// The child side: the kernels and one timed run.

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

pub(in crate::sections::par) fn matmul_row(
    a: &[f64],
    b: &[f64],
    row: &mut [f64],
    i: usize,
    n: usize,
) {
    row.fill(0.0);
    for k in 0..n {
        let aik = a[i * n + k];
        let bk = &b[k * n..(k + 1) * n];
        for (c, &bkj) in row.iter_mut().zip(bk) {
            *c += aik * bkj;
        }
    }
}

pub(in crate::sections::par) fn mandel_row(row: usize, n: usize, max_iter: u32) -> u64 {
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

pub(in crate::sections::par) fn pi_term(i: usize, step: f64) -> f64 {
    let x = (i as f64 + 0.5) * step;
    4.0 / (1.0 + x * x)
}

pub(in crate::sections::par) fn matrices(n: usize) -> (Vec<f64>, Vec<f64>) {
    let a = (0..n * n)
        .map(|i| ((i * 7 + 3) % 101) as f64 / 101.0)
        .collect();
    let b = (0..n * n)
        .map(|i| ((i * 13 + 5) % 97) as f64 / 97.0)
        .collect();
    (a, b)
}

/// Runs the kernel once as `variant`; returns (seconds, checked answer).
pub(in crate::sections::par) fn app_once(
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

pub(in crate::sections::par) fn app_job(
    variant: &str,
    app: App,
    sched: Sched,
    threads: usize,
) -> Result<Sample> {
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
