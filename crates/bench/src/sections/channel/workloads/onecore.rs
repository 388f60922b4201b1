//! One core: W1 at 8 bytes with both ends pinned to the same CPU, where a channel that spins
//! for its partner only wastes its time slice. It runs on the flow runner ([`run_flow`]).

use super::*;

/// The one-core cell.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    p.push(CellDef {
        id: "onecore/8B".into(),
        title: "one core: W1 at 8 bytes, both ends pinned to one CPU".into(),
        x: None,
        params: BTreeMap::new(),
        metric: p.throughput.clone(),
        spec: Spec {
            pin: true,
            ..p.base.clone()
        },
        variants: p.fit(false, false),
    });
}
