//! Parsers of the command line's values that every section shares: durations, positive counts
//! and thread lists.

use std::time::Duration;

/// The longest duration any option takes (a measured window, a time budget).
pub const MAX_DURATION: Duration = Duration::from_secs(24 * 3600);

/// The largest thread count any option takes.
pub const MAX_THREADS: usize = 1024;

/// Parses a duration: a decimal number with unit `ns`, `us` (or `µs`), `ms` or `s` (`1.5ms`),
/// or anything [`humantime`] reads (`1m`, `2h`, `1m30s`); a bare `0` is zero. At most
/// [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let d = if t == "0" {
        Duration::ZERO
    } else if let Some(d) = decimal_duration(t) {
        d?
    } else {
        humantime::parse_duration(t).map_err(|e| {
            format!("{s:?} is not a duration ({e}); write e.g. 100ns, 1.5us, 200ms, 2s, 1m, 2h")
        })?
    };
    if d > MAX_DURATION {
        return Err(format!("{s:?} is out of range (at most 24 hours)"));
    }
    Ok(d)
}

/// `t` as a decimal number and one of the units `ns`, `us`, `µs`, `ms`, `s`; `None` if `t` has
/// another shape (left to [`humantime`]), an error if the number does not parse.
fn decimal_duration(t: &str) -> Option<Result<Duration, String>> {
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.'))?;
    let (num, unit) = t.split_at(split);
    let scale = match unit.trim() {
        "ns" => 1e-9,
        "us" | "µs" => 1e-6,
        "ms" => 1e-3,
        "s" => 1.0,
        _ => return None,
    };
    Some(match num.parse::<f64>() {
        Ok(x) if (x * scale).is_finite() && x * scale <= MAX_DURATION.as_secs_f64() => {
            Ok(Duration::from_secs_f64(x * scale))
        }
        Ok(_) => Err(format!("{t:?} is out of range (at most 24 hours)")),
        Err(_) => Err(format!("{t:?} is not a number followed by a unit")),
    })
}

/// Whether `given` names `name`: case does not matter, nor `-` against `_` (`Parking-Lot`
/// names `parking_lot`, `hemlock_park` names `hemlock-park`).
pub fn same_name(name: &str, given: &str) -> bool {
    let norm = |c: char| {
        if c == '_' {
            '-'
        } else {
            c.to_ascii_lowercase()
        }
    };
    name.len() == given.len() && name.chars().map(norm).eq(given.chars().map(norm))
}

/// Parses a positive integer option (repetitions, sizes).
pub fn parse_positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("{s:?} must be a positive integer")),
    }
}

/// One item of a thread list: a count (`4`) or an inclusive range (`2-8`), each in
/// 1..=[`MAX_THREADS`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Threads(Vec<usize>);

impl Threads {
    /// The thread counts of a list of items, in order.
    pub fn flatten(items: Vec<Threads>) -> Vec<usize> {
        items.into_iter().flat_map(|t| t.0).collect()
    }
}

/// Parses one item of a comma-separated thread list (see [`Threads`]).
pub fn parse_threads(s: &str) -> Result<Threads, String> {
    let one = |x: &str| -> Result<usize, String> {
        let n: usize = x
            .trim()
            .parse()
            .map_err(|_| format!("{s:?} is not a thread count or a range such as 2-8"))?;
        if !(1..=MAX_THREADS).contains(&n) {
            return Err(format!("thread count {n} out of range 1..={MAX_THREADS}"));
        }
        Ok(n)
    };
    match s.split_once('-') {
        None => Ok(Threads(vec![one(s)?])),
        Some((a, b)) => {
            let (a, b) = (one(a)?, one(b)?);
            if a > b {
                return Err(format!(
                    "{s:?} is an empty range (write the smaller count first)"
                ));
            }
            Ok(Threads((a..=b).collect()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_decimals_units_and_humantime() {
        assert_eq!(parse_duration("0"), Ok(Duration::ZERO));
        assert_eq!(parse_duration("100ns"), Ok(Duration::from_nanos(100)));
        assert_eq!(parse_duration("1.5us"), Ok(Duration::from_nanos(1500)));
        assert_eq!(parse_duration("2µs"), Ok(Duration::from_micros(2)));
        assert_eq!(parse_duration(" 200ms "), Ok(Duration::from_millis(200)));
        assert_eq!(parse_duration("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_duration("1m"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("2h"), Ok(Duration::from_secs(7200)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("24h"), Ok(MAX_DURATION));
        for bad in ["", "5", "ms", "1.2.3ms", "-1s", "10 parsecs", "25h", "1e9s"] {
            assert!(parse_duration(bad).is_err(), "{bad:?} was accepted");
        }
        assert!(parse_duration("25h").unwrap_err().contains("24 hours"));
    }

    #[test]
    fn thread_lists_take_counts_and_ranges() {
        assert_eq!(parse_threads("4"), Ok(Threads(vec![4])));
        assert_eq!(parse_threads("2-5"), Ok(Threads(vec![2, 3, 4, 5])));
        assert_eq!(parse_threads("3-3"), Ok(Threads(vec![3])));
        let list = ["1", "2-4", "16"]
            .map(|s| parse_threads(s).unwrap())
            .to_vec();
        assert_eq!(Threads::flatten(list), vec![1, 2, 3, 4, 16]);
        for bad in ["0", "1025", "8-2", "x", "2-", "-3", "1-2-3", ""] {
            assert!(parse_threads(bad).is_err(), "{bad:?} was accepted");
        }
    }

    #[test]
    fn names_ignore_case_and_dash_or_underscore() {
        assert!(same_name("parking_lot", "Parking-Lot"));
        assert!(same_name("hemlock-park", "HEMLOCK_PARK"));
        assert!(same_name("std", "std"));
        assert!(!same_name("mcs", "mcs-park"));
        assert!(!same_name("ticket", "tickets"));
    }

    #[test]
    fn positive_counts() {
        assert_eq!(parse_positive(" 7"), Ok(7));
        assert!(parse_positive("0").is_err());
        assert!(parse_positive("-1").is_err());
    }
}
