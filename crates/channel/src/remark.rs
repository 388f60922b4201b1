//! Remarks: with `WELLTEMPERED_REMARKS=1` each channel reports on stderr where it was built,
//! which implementation it runs, and every change of implementation with the site that caused
//! it, in the style of WTC's `remark: wtc: queue @q1: spsc (producers: 1, consumers: 1)`.

use core::panic::Location;
use std::sync::OnceLock;

/// Whether `WELLTEMPERED_REMARKS=1` is set (read once per process).
pub(crate) fn enabled() -> bool {
    static ENABLED: OnceLock<bool> = OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os("WELLTEMPERED_REMARKS").is_some_and(|v| v == "1"))
}

/// The implementation a side count selects: `spsc`, `mpsc`, `spmc` or `mpmc`.
pub(crate) fn topology(senders: usize, receivers: usize) -> &'static str {
    match (senders > 1, receivers > 1) {
        (false, false) => "spsc",
        (true, false) => "mpsc",
        (false, true) => "spmc",
        (true, true) => "mpmc",
    }
}

/// The line for a channel built at `site`, or changed at `cause`.
pub(crate) fn line(
    site: &Location<'_>,
    kind: &str,
    senders: usize,
    receivers: usize,
    cause: Option<(&str, &Location<'_>)>,
) -> String {
    let mut s = format!(
        "remark: channel at {}:{}:{}: {} (senders: {senders}, receivers: {receivers})",
        site.file(),
        site.line(),
        site.column(),
        kind,
    );
    if let Some((what, at)) = cause {
        s.push_str(&format!(
            " after {what} at {}:{}:{}",
            at.file(),
            at.line(),
            at.column()
        ));
    }
    s
}

/// The last line of a channel built at `site`, when it is dropped: the most handles of each
/// side that were alive at once, and the implementation that many handles select.
pub(crate) fn closing_line(site: &Location<'_>, senders: usize, receivers: usize) -> String {
    format!(
        "remark: channel at {}:{}:{}: dropped; at most {senders} senders and {receivers} receivers at once ({} by its handles)",
        site.file(),
        site.line(),
        site.column(),
        topology(senders, receivers),
    )
}

/// Prints a remark line on stderr. Never panics (`eprintln!` does when stderr fails, e.g. a
/// closed pipe): remarks are printed in the middle of `clone` and `drop`, after the handle
/// count has changed, where an unwind would leave the count wrong for good.
pub(crate) fn emit(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_issue() {
        let here = Location::caller();
        let l = line(here, "spsc", 1, 1, None);
        assert!(l.starts_with("remark: channel at "));
        assert!(l.ends_with(": spsc (senders: 1, receivers: 1)"));
        let l = line(here, topology(2, 1), 2, 1, Some(("clone", here)));
        assert!(l.contains("mpsc (senders: 2, receivers: 1) after clone at "));
        assert_eq!(topology(1, 3), "spmc");
        assert_eq!(topology(2, 2), "mpmc");
        let l = closing_line(here, 3, 1);
        assert!(l.ends_with(
            ": dropped; at most 3 senders and 1 receivers at once (mpsc by its handles)"
        ));
    }
}
