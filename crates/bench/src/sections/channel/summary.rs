//! The channel section's headlines, with the targets of WTC's evaluation: the plain
//! `unbounded()` channel single/single at 8 bytes at least the best ring (rtrb) and at least 5x
//! crossbeam's unbounded channel, at 64 and 256 bytes at least ringbuf; 2:1 and 2:2 at least
//! kanal; W10's both-single configuration at least 4x both-shared; rendezvous and `bounded(1)`
//! at least crossbeam, quiet and under load; the one-core mode at least crossbeam; resident
//! memory after a burst within 2x the idle channel's; the first channel of a process under
//! 50 µs; `select!` at least crossbeam's; async tasks at least flume's (tokio's and kanal's
//! ratios shown, without a target).

use crate::headline::{Line, Target, groups_with_prefix, ratio, value};
use crate::model::Section;

/// The headlines of a channel run.
pub fn lines(s: &Section) -> Vec<Line> {
    let mut out = Vec::new();
    for g in groups_with_prefix(s, "w1/") {
        let bytes = g.id.trim_start_matches("w1/").trim_end_matches('B');
        let cell = format!("W1 1:1, {bytes}-byte elements");
        if bytes == "8" {
            out.extend(ratio(s, &g.id, &cell, "ours", "rtrb", Some(1.0)));
            out.extend(ratio(s, &g.id, &cell, "ours", "crossbeam", Some(5.0)));
            out.extend(ratio(s, &g.id, &cell, "ours", "kanal", None));
        } else {
            out.extend(ratio(s, &g.id, &cell, "ours", "ringbuf", Some(1.0)));
            out.extend(ratio(s, &g.id, &cell, "ours", "crossbeam", None));
        }
    }
    for g in groups_with_prefix(s, "w9/") {
        let shape = g.id.trim_start_matches("w9/");
        let cell = format!("W9 {shape}");
        let kanal = matches!(shape, "2:1" | "2:2").then_some(1.0);
        out.extend(ratio(s, &g.id, &cell, "ours", "kanal", kanal));
        out.extend(ratio(s, &g.id, &cell, "ours", "crossbeam", None));
    }
    out.extend(ratio(
        s,
        "w10",
        "W10 1:1, both sides single vs both shared",
        "ours",
        "ours+tx+rx",
        Some(4.0),
    ));
    for g in groups_with_prefix(s, "small/") {
        out.extend(ratio(
            s,
            &g.id,
            &small_cell(&g.id),
            "ours",
            "crossbeam",
            Some(1.0),
        ));
    }
    out.extend(ratio(
        s,
        "onecore/8B",
        "W1 on one core, 8 bytes",
        "ours",
        "crossbeam",
        Some(1.0),
    ));
    for g in groups_with_prefix(s, "select/") {
        let rest = g.id.trim_start_matches("select/");
        let cell = match rest.strip_suffix("/send") {
            Some(k) => format!("select! send over {k}"),
            None => format!("select! over {}", rest.replace('/', ", ")),
        };
        out.extend(ratio(s, &g.id, &cell, "ours", "crossbeam", Some(1.0)));
    }
    for g in groups_with_prefix(s, "async/") {
        let cell = format!(
            "async {}",
            g.id.trim_start_matches("async/").replace('/', ", ")
        );
        out.extend(ratio(s, &g.id, &cell, "ours", "flume", Some(1.0)));
        out.extend(ratio(s, &g.id, &cell, "ours", "tokio", None));
    }
    out.extend(value(
        s,
        "memory/burst=1e6",
        "memory after a 10^6-element burst",
        "ours",
        Some(Target::AtMost(2.0)),
    ));
    out.extend(value(
        s,
        "first/one-thread",
        "first channel of a process",
        "ours",
        Some(Target::AtMost(50.0)),
    ));
    out
}

/// `small/cap=0/8:1/load=2` as "rendezvous, 8:1, 2 busy processes beside".
fn small_cell(id: &str) -> String {
    let mut parts = Vec::new();
    for p in id.trim_start_matches("small/").split('/') {
        parts.push(match p {
            "cap=0" => "rendezvous".to_string(),
            p if p.starts_with("cap=") => format!("bounded({})", &p[4..]),
            p if p.starts_with("load=") => match &p[5..] {
                n if n.parse::<u32>().is_ok() => format!("{n} busy processes beside"),
                kind => format!("{kind} load beside"),
            },
            p => p.to_string(),
        });
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_cells_read_as_words() {
        assert_eq!(small_cell("small/cap=0/1:1"), "rendezvous, 1:1");
        assert_eq!(
            small_cell("small/cap=1/8:1/load=2"),
            "bounded(1), 8:1, 2 busy processes beside"
        );
    }
}
