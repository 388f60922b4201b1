//! The parts of the par section, one file each: how many steps a part adds to the progress bar
//! and how it runs its groups into the section. [`ALL`] is the plan's table of parts, in report
//! order.

use super::parent::{Head, group, metric, params, with_libgomp};
use super::*;

mod apps;
mod barrier;
mod epcc;
mod idle;
mod lock;
mod programs;
mod reduction;

pub(super) use apps::app_job;
#[cfg(test)]
pub(super) use apps::{app_once, matrices};
pub(super) use epcc::{ours_construct, rayon_construct};
pub(super) use idle::idle_job;
pub(super) use lock::lock_job;
pub(super) use reduction::reduction_job;

/// One part of the section.
pub(super) struct Part {
    /// Its name in `--parts`.
    pub name: &'static str,
    /// The steps one repetition of it adds to the progress bar.
    pub steps: fn(&Plan) -> usize,
    /// Runs its groups into the section.
    pub run: fn(&Plan, &Ctx<'_>, &mut Section) -> Result<()>,
}

/// Every part, in report order.
pub(super) const ALL: [Part; 7] = [
    Part {
        name: "epcc",
        steps: epcc::steps,
        run: epcc::run,
    },
    Part {
        name: "barrier",
        steps: barrier::steps,
        run: barrier::run,
    },
    Part {
        name: "reduction",
        steps: reduction::steps,
        run: reduction::run,
    },
    Part {
        name: "lock",
        steps: lock::steps,
        run: lock::run,
    },
    Part {
        name: "apps",
        steps: apps::steps,
        run: apps::run,
    },
    Part {
        name: "idle",
        steps: idle::steps,
        run: idle::run,
    },
    Part {
        name: "programs",
        steps: programs::steps,
        run: programs::run,
    },
];

/// `v` with libgomp and our runtime under libgomp's ABI first, where they can run.
fn lib(plan: &Plan, v: Vec<&str>) -> Vec<String> {
    with_libgomp(plan, v.into_iter().map(String::from).collect())
}
