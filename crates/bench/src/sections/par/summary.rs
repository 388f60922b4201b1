//! The par section's headlines, with the team runtime's targets: every EPCC construct at two
//! threads at least as fast as libgomp, both for the Rust runtime (`ours`) and for unmodified C
//! on the GOMP library (`wt-gomp`, the same binary as libgomp's); the applications' times per
//! schedule at least libgomp's; rayon beside ours where it has the construct; what an idle team
//! burns; and the real OpenMP programs, the same binaries on both runtimes.

use super::{LIBGOMP, OURS, RAYON, WT_GOMP};
use crate::headline::{Line, groups_with_prefix, ratio, value};
use crate::model::Section;

/// The headlines of a par run.
pub fn lines(s: &Section) -> Vec<Line> {
    let mut out = Vec::new();
    for g in groups_with_prefix(s, "epcc/").filter(|g| g.id.ends_with("/t=2")) {
        let construct = g.params.get("construct").and_then(|c| c.as_str());
        let cell = format!("EPCC {}, 2 threads", construct.unwrap_or(&g.id));
        out.extend(ratio(s, &g.id, &cell, OURS, LIBGOMP, Some(1.0)));
        out.extend(ratio(s, &g.id, &cell, WT_GOMP, LIBGOMP, Some(1.0)));
        if construct == Some("parallel-for") {
            out.extend(ratio(s, &g.id, &cell, OURS, RAYON, None));
        }
    }
    for g in groups_with_prefix(s, "app/") {
        let cell = g.id.trim_start_matches("app/").replace('/', ", schedule ");
        out.extend(ratio(s, &g.id, &cell, OURS, LIBGOMP, Some(1.0)));
    }
    out.extend(value(s, "idle", "an idle team", OURS, None));
    out.extend(value(s, "idle", "an idle team", LIBGOMP, None));
    for g in groups_with_prefix(s, "program/") {
        let cell = format!("{}, whole process", g.id.trim_start_matches("program/"));
        out.extend(ratio(s, &g.id, &cell, WT_GOMP, LIBGOMP, None));
    }
    out
}
