//! W1, the single-producer single-consumer hand-over: one thread sends numbered elements for the
//! window, one receives them. Cells: 8, 64 and 256-byte elements (quick: 8 and 64). It runs on
//! the flow runner ([`run_flow`]).

use super::*;

/// W1's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let sizes: &[usize] = if p.plan.quick {
        &[8, 64]
    } else {
        &[8, 64, 256]
    };
    for &b in sizes {
        p.push(CellDef {
            id: format!("w1/{b}B"),
            title: format!("W1 SPSC hand-over, {b}-byte elements"),
            x: Some(("element bytes", serde_json::json!(b))),
            params: BTreeMap::new(),
            metric: p.throughput.clone(),
            spec: Spec {
                bytes: b,
                ..p.base.clone()
            },
            variants: p.fit(false, false),
        });
    }
}
