//! The parent process: the groups of a run, their variants, and the pairing of children's
//! samples into the section (with the programs part and the check of the applications' answers).

use super::*;

pub(super) fn metric(unit: &str, higher_is_better: bool, op: &str) -> Metric {
    Metric {
        unit: unit.into(),
        higher_is_better,
        op: op.into(),
    }
}

/// A group's identity before it runs.
pub(super) struct Head {
    id: String,
    title: String,
    params: BTreeMap<String, serde_json::Value>,
    metric: Metric,
}

/// Runs one group: every variant through `job`, paired and interleaved.
pub(super) fn group(
    ctx: &Ctx<'_>,
    plan: &Plan,
    head: Head,
    variants: Vec<String>,
    job: impl Fn(&str) -> Job,
) -> Result<Group> {
    ctx.progress.stage(&head.id);
    let reps = harness::run_paired(&variants, plan.reps, ctx.progress, |v| {
        run_job(&job(v), plan)
    })?;
    Ok(Group {
        id: head.id,
        title: head.title,
        params: head.params,
        metric: head.metric,
        variants,
        reps,
    })
}

/// `v` with libgomp first, and the same C code on our runtime through libgomp's ABI beside it,
/// where they can run.
pub(super) fn with_libgomp(plan: &Plan, mut v: Vec<String>) -> Vec<String> {
    if plan.libgomp_skipped.is_none() {
        v.insert(0, LIBGOMP.to_string());
        if plan.wt_gomp_library.is_some() {
            v.insert(1, WT_GOMP.to_string());
        }
    }
    v
}

pub(super) fn params(pairs: &[(&str, serde_json::Value)]) -> BTreeMap<String, serde_json::Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

/// Runs the plan.
pub fn run_plan(plan: &Plan, ctx: &Ctx<'_>) -> Result<Section> {
    let mut section = Section {
        name: "par".into(),
        title: "Team runtime (EPCC constructs, barriers, reductions, locks, apps, idle)".into(),
        baselines: vec![
            LIBGOMP.into(),
            SERIAL.into(),
            "linear".into(),
            OMP_CRITICAL.into(),
        ],
        sweep: Some("threads".into()),
        config: serde_json::to_value(plan).unwrap_or_default(),
        groups: Vec::new(),
    };
    if let Some(why) = &plan.libgomp_skipped {
        eprintln!("welltempered: par: libgomp variants skipped: {why}");
    } else if let Some(why) = &plan.wt_gomp_skipped {
        eprintln!(
            "welltempered: par: {WT_GOMP} variants (libgomp's code on our runtime) skipped: {why}"
        );
    }
    let has = |p: &str| plan.parts.iter().any(|x| x == p);
    let lib = |v: Vec<&str>| with_libgomp(plan, v.into_iter().map(String::from).collect());
    let mut steps = 0usize;
    if has("epcc") {
        steps += plan.threads.len() * plan.constructs.len() * 4;
    }
    if has("barrier") {
        steps += plan.threads.len() * 5;
    }
    if has("reduction") {
        steps += plan.work.len() * 2 * 2;
    }
    if has("lock") {
        steps += plan.lock_threads.len() * plan.cs_ns.len() * (plan.locks.len() + 1);
    }
    if has("apps") {
        steps += plan.apps.len() * 3 * 8;
    }
    if has("idle") {
        steps += 5;
    }
    if has("programs") {
        steps += 3 * 2;
    }
    ctx.progress.add_steps((steps * plan.reps) as u64);

    if has("epcc") {
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
                    lib(v),
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
    }
    if has("barrier") {
        for &t in &plan.threads {
            let g = group(
                ctx,
                plan,
                Head {
                    id: format!("barrier-kind/t={t}"),
                    title: format!("Barrier latency by kind: µs per barrier (EPCC), {t} threads"),
                    params: params(&[("part", "barrier".into()), ("threads", t.into())]),
                    metric: metric("µs", false, "barrier"),
                },
                lib(vec!["central", "tree", "dissemination"]),
                |variant| Job::Construct {
                    variant: variant.to_string(),
                    construct: Construct::Barrier,
                    threads: t,
                    delay_ns: plan.delay_ns,
                    target_ms: plan.target_ms,
                },
            )?;
            section.groups.push(g);
        }
    }
    if has("reduction") {
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
    }
    if has("lock") {
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
                        title: format!(
                            "critical sections of {cs} ns by lock kind: M/s, {t} threads"
                        ),
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
    }
    if has("apps") {
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
    }
    if has("idle") {
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
            lib(vec![OURS, "ours-active", RAYON]),
            |variant| Job::Idle {
                variant: variant.to_string(),
                threads: t,
                idle_ms: plan.idle_ms,
            },
        )?;
        section.groups.push(g);
    }
    if has("programs") {
        programs_part(plan, ctx, &mut section)?;
    }
    Ok(section)
}

/// The `programs` part: real OpenMP programs, the same binaries on libgomp and on ours.
pub(super) fn programs_part(plan: &Plan, ctx: &Ctx<'_>, section: &mut Section) -> Result<()> {
    let Some(lib) = plan.wt_gomp_library.as_deref() else {
        eprintln!(
            "welltempered: par: programs skipped: {}",
            plan.wt_gomp_skipped
                .as_deref()
                .unwrap_or("libwelltempered_gomp.so is not available")
        );
        return Ok(());
    };
    let (programs, skipped) = omp_programs::available(&omp_programs::input_dir(None), ctx.quick);
    for why in skipped {
        eprintln!("welltempered: par: programs: skipped {why}");
    }
    let t = plan.app_threads;
    for p in programs {
        ctx.progress.stage(&format!("program/{}", p.name));
        let variants = vec![LIBGOMP.to_string(), WT_GOMP.to_string()];
        let reps = harness::run_paired(&variants, plan.reps, ctx.progress, |v| {
            omp_programs::run(&p, t, (v == WT_GOMP).then_some(lib))
        })?;
        let g = Group {
            id: format!("program/{}", p.name),
            title: format!(
                "{}: ms per run (the whole process), {t} threads, the same binary on both runtimes",
                p.what
            ),
            params: params(&[("program", p.name.into())]),
            metric: metric("ms", false, "run"),
            variants,
            reps,
        };
        omp_programs::check_outputs(&g)?;
        section.groups.push(g);
    }
    Ok(())
}

/// Every variant of an application group must compute the serial answer (Pi to 1e-9; the
/// Mandelbrot count exactly; the matrix sum to 1e-9 relative).
pub(super) fn check_answers(g: &Group, app: App) -> Result<()> {
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
