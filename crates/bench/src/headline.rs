//! The summary a person reads first: per section, the headline paired ratios of ours against
//! each anchor, with their 95% intervals and a verdict per target.
//!
//! Each section names its headlines ([`Suite::summary`]): a cell of the experiment, the variant
//! of ours, the anchor it is compared with and, where the project set one, the target. A
//! verdict is read off the interval, never off the median alone:
//! - **met**: the whole interval is on the target's side;
//! - **not met**: the whole interval is on the other side;
//! - **inconclusive**: the interval straddles the target, or spans more than
//!   [`WIDE`] (then the ratio is not shown as a number either).
//!
//! A headline whose cell or variants did not run (a narrower `--locks`, `--quick`) is left out.
//!
//! [`Suite::summary`]: crate::sections::Suite::summary

use crate::model::{Group, Section};
use crate::stats::{Estimate, estimate};
use crate::summary::{Table, WIDE, fmt_estimate, fmt_value, is_wide, modes, paired_ratios, values};

/// What a target says of an interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interval is on the target's side.
    Met,
    /// The whole interval is on the other side.
    NotMet,
    /// The interval straddles the target, or is too wide to tell.
    Inconclusive,
}

impl Verdict {
    /// The verdict as the summary prints it.
    pub fn text(self) -> &'static str {
        match self {
            Verdict::Met => "met",
            Verdict::NotMet => "NOT MET",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// A target for a figure.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Target {
    /// At least this (a speed-up, a throughput).
    AtLeast(f64),
    /// At most this (a cost: memory, latency).
    AtMost(f64),
}

impl Target {
    /// The verdict on an estimate: met or not met only when its whole interval says so, and
    /// inconclusive whenever the interval spans more than [`WIDE`].
    pub fn verdict(self, e: &Estimate) -> Verdict {
        if is_wide(e) {
            return Verdict::Inconclusive;
        }
        let (met, not_met) = match self {
            Target::AtLeast(t) => (e.lo >= t, e.hi < t),
            Target::AtMost(t) => (e.hi <= t, e.lo > t),
        };
        if met {
            Verdict::Met
        } else if not_met {
            Verdict::NotMet
        } else {
            Verdict::Inconclusive
        }
    }

    /// The target as the summary prints it (`≥ 0.95`).
    pub fn text(self) -> String {
        match self {
            Target::AtLeast(t) => format!("≥ {t}"),
            Target::AtMost(t) => format!("≤ {t}"),
        }
    }
}

/// One line of a section's summary.
#[derive(Clone, Debug, PartialEq)]
pub struct Line {
    /// The cell, as a person names it ("max contention, 4 threads").
    pub cell: String,
    /// The variant of ours.
    pub ours: String,
    /// What it is compared with: an anchor (the ratio is a speed-up over it), or the unit of
    /// ours' own figure.
    pub against: String,
    /// The figure: a ratio or a value with its interval, or a count.
    pub result: String,
    /// The target, or empty.
    pub target: String,
    /// The verdict on the target, when there is one.
    pub verdict: Option<Verdict>,
}

fn group<'a>(section: &'a Section, id: &str) -> Option<&'a Group> {
    section.groups.iter().find(|g| g.id == id)
}

/// The headline "`ours` against `anchor` in the group `id`": the median paired speed-up with
/// its interval, and the verdict on `at_least` when given. `None` when the group or either
/// variant did not run.
pub fn ratio(
    section: &Section,
    id: &str,
    cell: &str,
    ours: &str,
    anchor: &str,
    at_least: Option<f64>,
) -> Option<Line> {
    let g = group(section, id)?;
    if !g.variants.iter().any(|v| v == ours) || !g.variants.iter().any(|v| v == anchor) {
        return None;
    }
    let target = at_least.map(Target::AtLeast);
    if let Some(split) = split(g, &[ours, anchor]) {
        return Some(Line {
            cell: cell.to_string(),
            ours: ours.to_string(),
            against: format!("vs {anchor}"),
            result: split,
            target: target.map(Target::text).unwrap_or_default(),
            verdict: target.map(|_| Verdict::Inconclusive),
        });
    }
    let e = estimate(&paired_ratios(g, ours, anchor));
    Some(Line {
        cell: cell.to_string(),
        ours: ours.to_string(),
        against: format!("vs {anchor}"),
        result: fmt_estimate(e),
        target: target.map(Target::text).unwrap_or_default(),
        verdict: target.map(|t| e.map_or(Verdict::Inconclusive, |e| t.verdict(&e))),
    })
}

/// The headline "the figure of `ours` in the group `id`" (a cost or a rate with no anchor to
/// pair it with): its median with a bootstrap interval over the repetitions, and the verdict on
/// `target`. `None` when the group or the variant did not run.
pub fn value(
    section: &Section,
    id: &str,
    cell: &str,
    ours: &str,
    target: Option<Target>,
) -> Option<Line> {
    let g = group(section, id)?;
    let xs: Vec<f64> = g
        .reps
        .iter()
        .filter_map(|r| r.sample(ours).map(|s| s.value))
        .filter(|v| v.is_finite())
        .collect();
    if xs.is_empty() {
        return None;
    }
    if let Some(split) = split(g, &[ours]) {
        return Some(Line {
            cell: cell.to_string(),
            ours: ours.to_string(),
            against: g.metric.label(),
            result: split,
            target: target.map(Target::text).unwrap_or_default(),
            verdict: target.map(|_| Verdict::Inconclusive),
        });
    }
    let e = estimate(&xs);
    let result = match e {
        Some(e) => format!(
            "{} [{}, {}]",
            fmt_value(Some(e.median)),
            fmt_value(Some(e.lo)),
            fmt_value(Some(e.hi))
        ),
        None => "n/a".to_string(),
    };
    Some(Line {
        cell: cell.to_string(),
        ours: ours.to_string(),
        against: g.metric.label(),
        result,
        target: target.map(Target::text).unwrap_or_default(),
        verdict: target.map(|t| e.map_or(Verdict::Inconclusive, |e| t.verdict(&e))),
    })
}

/// When one of `variants` has two modes in `g` ([`modes`]), the result that says so instead of
/// a ratio that would average them in: `modes: wt-gomp 0.129 ×3, 6.22 ×2 µs` (each mode's
/// median and how many repetitions fell in it).
fn split(g: &Group, variants: &[&str]) -> Option<String> {
    variants.iter().find_map(|v| {
        let m = modes(&values(g, v))?;
        Some(format!(
            "modes: {v} {} ×{}, {} ×{} {}",
            fmt_value(Some(m.low)),
            m.n_low,
            fmt_value(Some(m.high)),
            m.n_high,
            g.metric.label()
        ))
    })
}

/// The groups of `section` whose id starts with `prefix`, in the section's order.
pub fn groups_with_prefix<'a>(
    section: &'a Section,
    prefix: &'a str,
) -> impl Iterator<Item = &'a Group> + 'a {
    section
        .groups
        .iter()
        .filter(move |g| g.id.starts_with(prefix))
}

/// The headlines of `section`, from the section that measured it (looked up by name, so a
/// report read back from JSON gets the same summary); empty for a section without headlines.
pub fn for_section(section: &Section) -> Vec<Line> {
    crate::sections::find(&section.name).map_or_else(Vec::new, |s| s.summary(section))
}

/// The summary of one section as plain text: its headlines' table and the tally of verdicts,
/// or `None` when it has no headlines.
pub fn section_summary(section: &Section) -> Option<String> {
    let lines = for_section(section);
    if lines.is_empty() {
        return None;
    }
    let mut out = table(&lines).to_text();
    if let Some(t) = tally(&lines) {
        out.push_str(&t);
        out.push('\n');
    }
    if let Some(d) = crate::summary::disturbance_line(section) {
        out.push_str(&d);
        out.push('\n');
    }
    Some(out)
}

/// The summary lines as a table.
pub fn table(lines: &[Line]) -> Table {
    Table {
        header: [
            "cell",
            "ours",
            "against",
            "result [95% CI]",
            "target",
            "verdict",
        ]
        .map(str::to_string)
        .to_vec(),
        rows: lines
            .iter()
            .map(|l| {
                vec![
                    l.cell.clone(),
                    l.ours.clone(),
                    l.against.clone(),
                    l.result.clone(),
                    l.target.clone(),
                    l.verdict.map_or("", Verdict::text).to_string(),
                ]
            })
            .collect(),
    }
}

/// The count of verdicts, as one line (`targets: 3 met, 1 not met, 2 inconclusive`), or
/// `None` when no line has a target.
pub fn tally(lines: &[Line]) -> Option<String> {
    let count = |v: Verdict| lines.iter().filter(|l| l.verdict == Some(v)).count();
    let (met, not_met, open) = (
        count(Verdict::Met),
        count(Verdict::NotMet),
        count(Verdict::Inconclusive),
    );
    (met + not_met + open > 0).then(|| {
        format!(
            "targets: {met} met, {not_met} not met, {open} inconclusive (an interval that \
             straddles its target or spans more than {WIDE}x, or two modes, decide nothing)"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;
    use crate::model::{Rep, Sample};

    fn est(lo: f64, median: f64, hi: f64) -> Estimate {
        Estimate { median, lo, hi }
    }

    #[test]
    fn verdicts_follow_the_interval_not_the_median() {
        let t = Target::AtLeast(1.0);
        assert_eq!(t.verdict(&est(1.0, 1.2, 1.4)), Verdict::Met);
        assert_eq!(t.verdict(&est(0.7, 0.8, 0.99)), Verdict::NotMet);
        // The median is above the target, the interval is not.
        assert_eq!(t.verdict(&est(0.9, 1.1, 1.3)), Verdict::Inconclusive);
        // Entirely above, but spanning more than 10x: nothing to quote.
        assert_eq!(t.verdict(&est(1.5, 3.0, 20.0)), Verdict::Inconclusive);
        let cost = Target::AtMost(2.0);
        assert_eq!(cost.verdict(&est(1.1, 1.2, 2.0)), Verdict::Met);
        assert_eq!(cost.verdict(&est(2.1, 2.5, 3.0)), Verdict::NotMet);
        assert_eq!(cost.verdict(&est(1.5, 1.9, 2.5)), Verdict::Inconclusive);
        assert_eq!(Target::AtLeast(0.95).text(), "≥ 0.95");
        assert_eq!(Target::AtMost(50.0).text(), "≤ 50");
    }

    fn section(values: &[(f64, f64)]) -> Section {
        let mut s = tiny_report().sections[0].clone();
        s.groups[0].reps = values
            .iter()
            .map(|&(std, spin)| Rep {
                order: vec!["std".into(), "spin".into()],
                samples: vec![
                    Sample {
                        variant: "std".into(),
                        value: std,
                        ..Default::default()
                    },
                    Sample {
                        variant: "spin".into(),
                        value: spin,
                        ..Default::default()
                    },
                ],
                ..Default::default()
            })
            .collect();
        s
    }

    #[test]
    fn a_ratio_headline_pairs_within_repetitions() {
        let s = section(&[(1.0, 2.0), (2.0, 4.2), (4.0, 7.6), (1.0, 2.1), (3.0, 6.0)]);
        let id = s.groups[0].id.clone();
        let l = ratio(&s, &id, "2 threads", "spin", "std", Some(1.5)).unwrap();
        assert_eq!(l.against, "vs std");
        assert!(l.result.starts_with("2.00 ["), "{}", l.result);
        assert_eq!(l.verdict, Some(Verdict::Met));
        assert_eq!(
            ratio(&s, &id, "", "spin", "std", Some(2.5))
                .unwrap()
                .verdict,
            Some(Verdict::NotMet)
        );
        assert_eq!(
            ratio(&s, &id, "", "spin", "std", None).unwrap().verdict,
            None
        );
        // A headline over what did not run is left out, not shown empty.
        assert!(ratio(&s, "nosuch", "", "spin", "std", None).is_none());
        assert!(ratio(&s, &id, "", "hemlock", "std", None).is_none());
    }

    #[test]
    fn a_wide_interval_is_inconclusive_and_not_quoted() {
        // Spread out, but with no gap of 3x between neighbours: one wide mode.
        let s = section(&[(1.0, 0.2), (1.0, 3.0), (1.0, 1.2), (1.0, 0.5), (1.0, 7.0)]);
        let id = s.groups[0].id.clone();
        let l = ratio(&s, &id, "", "spin", "std", Some(1.0)).unwrap();
        assert!(l.result.starts_with("inconclusive ["), "{}", l.result);
        assert_eq!(l.verdict, Some(Verdict::Inconclusive));
    }

    #[test]
    fn two_modes_are_reported_as_such_not_averaged() {
        // The anchor ran fast three times and 40x slower twice (its threads on one CPU).
        let s = section(&[
            (0.1, 0.2),
            (4.0, 0.2),
            (0.1, 0.21),
            (4.2, 0.19),
            (0.11, 0.2),
        ]);
        let id = s.groups[0].id.clone();
        let l = ratio(&s, &id, "", "spin", "std", Some(1.0)).unwrap();
        assert_eq!(l.result, "modes: std 0.100 ×3, 4.10 ×2 M acq/s");
        assert_eq!(l.verdict, Some(Verdict::Inconclusive));
        let v = value(&s, &id, "", "std", None).unwrap();
        assert!(v.result.starts_with("modes: std"), "{}", v.result);
        // The other variant alone is one mode.
        assert!(
            !value(&s, &id, "", "spin", None)
                .unwrap()
                .result
                .contains("modes")
        );
    }

    #[test]
    fn a_value_headline_checks_a_cost() {
        let s = section(&[(1.0, 1.2), (1.0, 1.3), (1.0, 1.25)]);
        let id = s.groups[0].id.clone();
        let l = value(&s, &id, "memory", "spin", Some(Target::AtMost(2.0))).unwrap();
        assert_eq!(l.against, "M acq/s");
        assert_eq!(l.result, "1.25 [1.20, 1.30]");
        assert_eq!(l.verdict, Some(Verdict::Met));
    }

    #[test]
    fn table_and_tally() {
        let s = section(&[(1.0, 2.0), (1.0, 2.0), (1.0, 2.0)]);
        let id = s.groups[0].id.clone();
        let lines: Vec<Line> = [
            ratio(&s, &id, "a", "spin", "std", Some(1.0)),
            ratio(&s, &id, "b", "spin", "std", Some(3.0)),
            ratio(&s, &id, "c", "spin", "std", None),
        ]
        .into_iter()
        .flatten()
        .collect();
        let t = table(&lines);
        assert_eq!(t.rows.len(), 3);
        assert_eq!(t.rows[0][5], "met");
        assert_eq!(t.rows[1][5], "NOT MET");
        assert_eq!(t.rows[2][4], "");
        assert!(
            tally(&lines)
                .unwrap()
                .starts_with("targets: 1 met, 1 not met, 0 inconclusive")
        );
        assert_eq!(tally(&lines[2..]), None);
    }
}
