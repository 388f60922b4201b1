//! W10, the ablation of the claiming disciplines, our channel only: W1 at 8 bytes with the
//! producer side shared (`+tx`, an idle extra sender), the consumer side shared (`+rx`), both,
//! and neither, with crossbeam beside them. It runs on the flow runner ([`run_flow`]).

use super::*;

/// W10's cell, when the plan has our channel.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    if !p.plan.channels.iter().any(|c| c == "ours") {
        return;
    }
    let mut variants: Vec<String> = ABLATION.iter().map(|s| s.to_string()).collect();
    if p.plan.channels.iter().any(|c| c == "crossbeam") {
        variants.push("crossbeam".into());
    }
    p.push(CellDef {
        id: "w10".into(),
        title: "W10 ablation, 1:1: plain, shared producer side (+tx), shared consumer side \
                (+rx), both"
            .into(),
        x: None,
        params: BTreeMap::new(),
        metric: p.throughput.clone(),
        spec: p.base.clone(),
        variants,
    });
}
