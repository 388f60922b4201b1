//! The mutex section's headlines: the default `Mutex` against parking_lot in every MutexBench
//! cell (at least 0.95x, the lock family's goal) and against std, Hemlock's uncontended cost
//! against std's (at most std's: a speed-up of at least 1) and Hemlock against MCS at two
//! threads (Dice & Kogan's ranking), the reader-writer lock and the condvar ping-pong against
//! parking_lot.

use crate::headline::{Line, groups_with_prefix, ratio};
use crate::model::Section;

/// The default `Mutex`'s goal against parking_lot in each cell.
const MUTEX_VS_PARKING_LOT: f64 = 0.95;

/// The headlines of a mutex run.
pub fn lines(s: &Section) -> Vec<Line> {
    let mut out = Vec::new();
    let cell = "uncontended lock + unlock";
    out.extend(ratio(
        s,
        "latency",
        cell,
        "mutex",
        "parking_lot",
        Some(MUTEX_VS_PARKING_LOT),
    ));
    out.extend(ratio(s, "latency", cell, "mutex", "std", None));
    out.extend(ratio(s, "latency", cell, "hemlock", "std", Some(1.0)));
    for (workload, what) in [
        ("max", "max contention"),
        ("moderate", "moderate contention"),
    ] {
        for g in groups_with_prefix(s, &format!("{workload}/cs=0/t=")) {
            let threads = g
                .params
                .get("threads")
                .map_or(String::new(), |t| t.to_string());
            let cell = format!("{what}, {threads} threads");
            out.extend(ratio(
                s,
                &g.id,
                &cell,
                "mutex",
                "parking_lot",
                Some(MUTEX_VS_PARKING_LOT),
            ));
            out.extend(ratio(s, &g.id, &cell, "mutex", "std", None));
        }
    }
    out.extend(ratio(
        s,
        "max/cs=0/t=2",
        "max contention, 2 threads",
        "hemlock",
        "mcs",
        Some(1.0),
    ));
    for read in [50, 90, 99] {
        out.extend(ratio(
            s,
            &format!("rwlock/read{read}/t=2"),
            &format!("reader-writer, {read}% reads, 2 threads"),
            "rwlock",
            "parking_lot",
            None,
        ));
    }
    out.extend(ratio(
        s,
        "condvar/pingpong",
        "condvar ping-pong, 2 threads",
        "mutex",
        "parking_lot",
        None,
    ));
    out
}
