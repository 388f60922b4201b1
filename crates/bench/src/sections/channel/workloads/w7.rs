//! W7, batching: K elements per send and per receive on the single/single path. Cells: K = 1, 4,
//! 16, 64, 256 and 1024 (quick: 1 and 64). It runs on the flow runner ([`run_flow`]).

use super::*;

/// W7's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let ks: &[usize] = if p.plan.quick {
        &[1, 64]
    } else {
        &[1, 4, 16, 64, 256, 1024]
    };
    for &k in ks {
        p.push(CellDef {
            id: format!("w7/k={k}"),
            title: format!("W7 batching, {k} elements per send and per receive"),
            x: Some(("elements per batch", serde_json::json!(k))),
            params: BTreeMap::new(),
            metric: p.throughput.clone(),
            spec: Spec {
                batch: k,
                limit: IN_FLIGHT.max(4 * k as u64),
                ..p.base.clone()
            },
            variants: p.fit(false, false),
        });
    }
}
