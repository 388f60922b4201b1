//! W11, a thread pool: one submitter sends tasks of a given size to 1 to 8 workers that share
//! the receiving side. Cells: tasks of 0, 100 ns and 1 µs by 1, 2, 4 and 8 workers (quick: 100
//! ns by 2). It runs on the flow runner ([`run_flow`]).

use super::*;

/// W11's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let quick = p.plan.quick;
    let workers: &[usize] = if quick { &[2] } else { &[1, 2, 4, 8] };
    let tasks: &[u64] = if quick { &[100] } else { &[0, 100, 1000] };
    for &t in tasks {
        for &n in workers {
            p.push(CellDef {
                id: format!("w11/task={}/workers={n}", fmt_ns(t)),
                title: format!(
                    "W11 thread pool, 1 submitter, {n} workers, {} tasks",
                    fmt_ns(t)
                ),
                x: Some(("workers", serde_json::json!(n))),
                params: BTreeMap::from([("task_ns".to_string(), serde_json::json!(t))]),
                metric: p.throughput.clone(),
                spec: Spec {
                    consumers: n,
                    work_iters: p.iters(t),
                    limit: POOL_IN_FLIGHT,
                    ..p.base.clone()
                },
                variants: p.fit(false, n > 1),
            });
        }
    }
}
