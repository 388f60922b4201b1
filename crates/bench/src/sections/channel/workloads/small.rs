//! Small bounded channels: `bounded(0)` (rendezvous) and `bounded(1)`, one sender and eight
//! senders to one receiver, on the channels that have both forms ([`small_channels`]). It runs
//! on the flow runner ([`run_flow`]); the plan adds its load levels.

use super::*;

/// The small workload's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    for cap in SMALL_CAPACITIES {
        let kind = if cap == 0 {
            "rendezvous bounded(0)".to_string()
        } else {
            format!("bounded({cap})")
        };
        for senders in [1usize, 8] {
            let variants = p
                .fit(senders > 1, false)
                .into_iter()
                .filter(|c| small_channels().any(|s| s == c.as_str()))
                .collect();
            p.push(CellDef {
                id: format!("small/cap={cap}/{senders}:1"),
                title: format!(
                    "small: {kind}, {senders} sender{} : 1 receiver",
                    if senders == 1 { "" } else { "s" }
                ),
                x: Some(("senders", serde_json::json!(senders))),
                params: BTreeMap::from([("capacity".to_string(), serde_json::json!(cap))]),
                metric: p.throughput.clone(),
                spec: Spec {
                    producers: senders,
                    consumers: 1,
                    capacity: Some(cap),
                    limit: 0,
                    ..p.base.clone()
                },
                variants,
            });
        }
    }
}
