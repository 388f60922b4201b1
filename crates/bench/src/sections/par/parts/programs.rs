//! Real OpenMP programs (GraphicsMagick, ImageMagick, NumPy on OpenBLAS), the same binaries on
//! libgomp and on our runtime through libwelltempered_gomp, outputs compared.

use super::*;

/// The repetitions' steps of the programs part, for the progress bar.
pub(in crate::sections::par) fn steps(_plan: &Plan) -> usize {
    3 * 2
}

/// Runs the programs part into `section`.
pub(in crate::sections::par) fn run(
    plan: &Plan,
    ctx: &Ctx<'_>,
    section: &mut Section,
) -> Result<()> {
    programs_part(plan, ctx, section)
}

/// The `programs` part: real OpenMP programs, the same binaries on libgomp and on ours.
fn programs_part(plan: &Plan, ctx: &Ctx<'_>, section: &mut Section) -> Result<()> {
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
