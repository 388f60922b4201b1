//! The parent process: a run of the plan's parts (their table is [`super::parts::ALL`]), and
//! what every part's groups are made with: a group's head, its variants, the pairing of the
//! children's samples.

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
    /// The group's id.
    pub id: String,
    /// The group's title.
    pub title: String,
    /// The group's parameters.
    pub params: BTreeMap<String, serde_json::Value>,
    /// What its figure is.
    pub metric: Metric,
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
    let parts = parts::ALL
        .iter()
        .filter(|p| plan.parts.iter().any(|x| x == p.name));
    let steps: usize = parts.clone().map(|p| (p.steps)(plan)).sum();
    ctx.progress.add_steps((steps * plan.reps) as u64);
    for p in parts {
        (p.run)(plan, ctx, &mut section)?;
    }
    Ok(section)
}
