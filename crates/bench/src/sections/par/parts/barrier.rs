//! Barrier latency by kind: our central, tree and dissemination barriers against libgomp's,
//! microseconds per barrier by EPCC's method.

use super::*;

/// The repetitions' steps of the barrier part, for the progress bar.
pub(in crate::sections::par) fn steps(plan: &Plan) -> usize {
    plan.threads.len() * 5
}

/// Runs the barrier part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
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
            lib(plan, vec!["central", "tree", "dissemination"]),
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
    Ok(())
}
