//! Remarks in WTC's form (`remark: channel at FILE:LINE:COL: ...`), as text and JSON.

use crate::verdict::{Channel, Count, Side, Site};
use std::fmt;

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.column)
    }
}

impl fmt::Display for Count {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Count::One => write!(f, "1"),
            Count::N(n) => write!(f, "{n}"),
            Count::Many => write!(f, "many"),
        }
    }
}

fn short(side: &Side) -> String {
    match side {
        Side::Exact { count, .. } => count.to_string(),
        Side::Conservative { at_least, .. } => format!("at least {at_least}"),
        Side::Refused { .. } => "unknown".to_string(),
    }
}

fn detail(name: &str, side: &Side) -> Option<String> {
    match side {
        Side::Exact {
            count: Count::One, ..
        } => None,
        Side::Exact {
            count: Count::Many,
            why,
            ..
        } => Some(match why {
            Some((r, s)) => format!("{name}: many: {r} at {s}"),
            None => format!("{name}: many"),
        }),
        Side::Exact {
            count,
            threads,
            constructing,
            ..
        } => Some(if threads.is_empty() && count.value() == Some(0) {
            format!("{name}: 0: not used by any thread")
        } else if threads.is_empty() {
            format!("{name}: {count}: on the constructing thread")
        } else {
            let t: Vec<String> = threads.iter().map(|s| s.to_string()).collect();
            let also = if *constructing {
                "the constructing thread and "
            } else {
                ""
            };
            format!("{name}: {count}: {also}threads spawned at {}", t.join(", "))
        }),
        Side::Conservative {
            at_least,
            reason,
            site,
        } => Some(format!("{name}: at least {at_least}: {reason} at {site}")),
        Side::Refused { reason, site } => Some(format!("{name}: refused: {reason} at {site}")),
    }
}

impl Channel {
    /// The topology name when both sides are exact.
    pub fn kind(&self) -> &'static str {
        match (&self.senders, &self.receivers) {
            (Side::Exact { .. }, Side::Exact { .. }) => {
                match (self.senders.is_single(), self.receivers.is_single()) {
                    (true, true) => "spsc",
                    (false, true) => "mpsc",
                    (true, false) => "spmc",
                    (false, false) => "mpmc",
                }
            }
            _ => "unproved",
        }
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "remark: channel at {}: {} (senders: {}, receivers: {})",
            self.site,
            self.kind(),
            short(&self.senders),
            short(&self.receivers)
        )?;
        for (n, s) in [("senders", &self.senders), ("receivers", &self.receivers)] {
            if let Some(d) = detail(n, s) {
                writeln!(f, "remark: channel at {}: {d}", self.site)?;
            }
        }
        Ok(())
    }
}

/// The analysis as JSON for tools.
pub fn to_json(a: &crate::Analysis) -> String {
    serde_json::to_string_pretty(a).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}
