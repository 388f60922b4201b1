//! Summaries recomputed from raw samples: paired ratios with bootstrap intervals and the
//! per-operation figures, laid out as tables (plain text for the terminal, Markdown for the
//! report).

use crate::counters::{fmt_opt, per_op};
use crate::model::{Group, Sample, Section};
use crate::stats::{Estimate, estimate, median};

/// The ratios of `variant` to `baseline`, one per repetition where both ran, as speed-ups
/// (above 1 means `variant` is better): `v / b` for throughput, `b / v` for latency.
pub fn paired_ratios(group: &Group, variant: &str, baseline: &str) -> Vec<f64> {
    group
        .reps
        .iter()
        .filter_map(|r| {
            let v = r.sample(variant)?.value;
            let b = r.sample(baseline)?.value;
            let ratio = if group.metric.higher_is_better {
                v / b
            } else {
                b / v
            };
            ratio.is_finite().then_some(ratio)
        })
        .collect()
}

/// One row of a group's table.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The variant.
    pub variant: String,
    /// Median of the primary figure.
    pub value: Option<f64>,
    /// Per baseline: the median paired ratio and its interval.
    pub ratios: Vec<(String, Option<Estimate>)>,
    /// Median over repetitions of the per-thread max/min operation counts.
    pub max_min: Option<f64>,
    /// Median CPU microseconds per operation.
    pub cpu_us_per_op: Option<f64>,
    /// Median context switches (voluntary + involuntary) per operation.
    pub csw_per_op: Option<f64>,
    /// Median cycles per operation.
    pub cycles_per_op: Option<f64>,
    /// Median instructions per operation.
    pub instructions_per_op: Option<f64>,
    /// Median cache misses per operation.
    pub misses_per_op: Option<f64>,
}

/// Median over the samples of `variant` of a figure that may be missing; `None` if it is
/// missing in any repetition (a partial figure would mislead).
fn median_of(group: &Group, variant: &str, f: impl Fn(&Sample) -> Option<f64>) -> Option<f64> {
    let xs: Option<Vec<f64>> = group
        .reps
        .iter()
        .filter_map(|r| r.sample(variant))
        .map(f)
        .collect();
    median(&xs?)
}

/// Max/min of per-thread counts (`inf` when a thread completed nothing, `None` without threads).
pub fn max_min(per_thread: &[u64]) -> Option<f64> {
    let max = *per_thread.iter().max()?;
    let min = *per_thread.iter().min()?;
    Some(if min == 0 {
        f64::INFINITY
    } else {
        max as f64 / min as f64
    })
}

/// Whether a sample's CPU time and context switches were counted: a measured window always
/// uses some CPU time, so zero means the section did not count them (a memory reading, a
/// static analysis, a construct timed inside its child process), shown as "n/a", never 0.
fn counted(s: &crate::model::Sample) -> bool {
    s.cpu_s > 0.0
}

/// The rows of one group, in the group's variant order.
pub fn rows(group: &Group, baselines: &[String]) -> Vec<Row> {
    group
        .variants
        .iter()
        .map(|v| Row {
            variant: v.clone(),
            value: median_of(group, v, |s| Some(s.value)),
            ratios: baselines
                .iter()
                .map(|b| (b.clone(), estimate(&paired_ratios(group, v, b))))
                .collect(),
            max_min: median_of(group, v, |s| max_min(&s.per_thread)),
            cpu_us_per_op: median_of(group, v, |s| {
                per_op(counted(s).then_some(s.cpu_s * 1e6), s.ops)
            }),
            csw_per_op: median_of(group, v, |s| {
                per_op(counted(s).then_some((s.vcsw + s.ivcsw) as f64), s.ops)
            }),
            cycles_per_op: median_of(group, v, |s| per_op(s.hw.cycles, s.ops)),
            instructions_per_op: median_of(group, v, |s| per_op(s.hw.instructions, s.ops)),
            misses_per_op: median_of(group, v, |s| per_op(s.hw.cache_misses, s.ops)),
        })
        .collect()
}

/// Formats a ratio estimate as `1.23 [1.10, 1.40]`, or "n/a".
pub fn fmt_estimate(e: Option<Estimate>) -> String {
    match e {
        Some(e) => format!("{:.2} [{:.2}, {:.2}]", e.median, e.lo, e.hi),
        None => "n/a".to_string(),
    }
}

/// Formats a value with about three significant figures.
pub fn fmt_value(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() && v.abs() >= 100.0 => format!("{v:.0}"),
        Some(v) if v.is_finite() && v.abs() >= 10.0 => format!("{v:.1}"),
        Some(v) if v.is_finite() && v.abs() >= 0.01 || v == 0.0 => format!("{v:.2}"),
        Some(v) if v.is_finite() => format!("{v:.2e}"),
        other => fmt_opt(other, 2),
    }
}

/// A table as a header and rows of cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Column headings.
    pub header: Vec<String>,
    /// Cells, row by row.
    pub rows: Vec<Vec<String>>,
}

/// The table of one group: one row per variant.
pub fn group_table(section: &Section, group: &Group) -> Table {
    let op = &group.metric.op;
    let baselines = section.baselines_for(group);
    let mut header = vec!["variant".to_string(), group.metric.unit.clone()];
    for b in &baselines {
        header.push(format!("vs {b} [95% CI]"));
    }
    for h in ["max/min", "cpu-us/", "csw/", "cyc/", "ins/", "miss/"] {
        header.push(if h.ends_with('/') {
            format!("{h}{op}")
        } else {
            h.to_string()
        });
    }
    let rows = rows(group, &baselines)
        .into_iter()
        .map(|r| {
            let mut cells = vec![r.variant.clone(), fmt_value(r.value)];
            cells.extend(r.ratios.iter().map(|(_, e)| fmt_estimate(*e)));
            cells.push(fmt_opt(r.max_min, 2));
            cells.push(fmt_value(r.cpu_us_per_op));
            cells.push(fmt_value(r.csw_per_op));
            cells.push(fmt_value(r.cycles_per_op));
            cells.push(fmt_value(r.instructions_per_op));
            cells.push(fmt_value(r.misses_per_op));
            cells
        })
        .collect();
    Table { header, rows }
}

impl Table {
    /// Plain text with aligned columns (first column left, the rest right).
    pub fn to_text(&self) -> String {
        let n = self.header.len();
        let mut width = vec![0; n];
        for row in std::iter::once(&self.header).chain(&self.rows) {
            for (i, c) in row.iter().enumerate().take(n) {
                width[i] = width[i].max(c.chars().count());
            }
        }
        let mut out = String::new();
        let line = |row: &Vec<String>, out: &mut String| {
            for (i, c) in row.iter().enumerate().take(n) {
                if i == 0 {
                    out.push_str(&format!("{c:<w$}", w = width[i]));
                } else {
                    out.push_str(&format!("  {c:>w$}", w = width[i]));
                }
            }
            out.push('\n');
        };
        line(&self.header, &mut out);
        let total: usize = width.iter().sum::<usize>() + 2 * (n.saturating_sub(1));
        out.push_str(&"-".repeat(total));
        out.push('\n');
        for r in &self.rows {
            line(r, &mut out);
        }
        out
    }

    /// A Markdown table.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("| {} |\n|", self.header.join(" | "));
        for i in 0..self.header.len() {
            out.push_str(if i == 0 { "---|" } else { "---:|" });
        }
        out.push('\n');
        for r in &self.rows {
            out.push_str(&format!("| {} |\n", r.join(" | ")));
        }
        out
    }
}

/// The overview of one sweep: a row per variant, a column per swept value, each cell the median
/// figure and, in parentheses, the median paired ratio to the section's first baseline.
pub fn sweep_table(section: &Section, sweep: &crate::output::Sweep) -> Table {
    let x = section.sweep.clone().unwrap_or_default();
    let groups: Vec<&Group> = sweep
        .points
        .iter()
        .map(|&(_, i)| &section.groups[i])
        .collect();
    let base = groups
        .first()
        .and_then(|g| section.baselines_for(g).into_iter().next());
    let base = base.as_ref();
    let mut header = vec![format!(
        "{} by {x}{}",
        groups.first().map_or("", |g| g.metric.unit.as_str()),
        base.map_or(String::new(), |b| format!(" (vs {b})"))
    )];
    header.extend(sweep.points.iter().map(|p| format!("{}", p.0)));
    let variants = groups
        .first()
        .map(|g| g.variants.clone())
        .unwrap_or_default();
    let rows = variants
        .iter()
        .map(|v| {
            let mut cells = vec![v.clone()];
            for g in &groups {
                let value = median(
                    &g.reps
                        .iter()
                        .filter_map(|r| r.sample(v).map(|s| s.value))
                        .collect::<Vec<_>>(),
                );
                let ratio = base.and_then(|b| median(&paired_ratios(g, v, b)));
                cells.push(match ratio {
                    Some(r) => format!("{} ({r:.2})", fmt_value(value)),
                    None => fmt_value(value),
                });
            }
            cells
        })
        .collect();
    Table { header, rows }
}

/// A section's own preformatted table (its `config.text`), for results that are not paired
/// samples (the reach section's verdict counts).
pub fn preformatted(section: &Section) -> Option<&str> {
    section.config.get("text").and_then(|v| v.as_str())
}

/// Why a section did not run, when it was skipped (a missing prerequisite, recorded by the
/// section in its `config.skipped`).
pub fn skipped(section: &Section) -> Option<&str> {
    section.config.get("skipped").and_then(|v| v.as_str())
}

/// All tables of a section as plain text: the sweep overviews, then each group under its title.
pub fn section_text(section: &Section) -> String {
    let mut out = format!("== {} ==\n", section.title);
    if let Some(why) = skipped(section) {
        out.push_str(&format!("skipped: {why}\n"));
    }
    if let Some(text) = preformatted(section) {
        out.push_str(&format!("\n{text}"));
    }
    for sw in crate::output::sweeps(section) {
        out.push_str(&format!("\n{}: {}\n", section.title, sw.label));
        out.push_str(&sweep_table(section, &sw).to_text());
    }
    for g in &section.groups {
        out.push_str(&format!("\n{}  ({} reps)\n", g.title, g.reps.len()));
        out.push_str(&group_table(section, g).to_text());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;
    use crate::model::{Metric, Rep};

    fn group_with(values: &[(f64, f64)], higher_is_better: bool) -> Group {
        let mut g = tiny_report().sections[0].groups[0].clone();
        g.metric = Metric {
            unit: "x".into(),
            higher_is_better,
            op: "op".into(),
        };
        g.reps = values
            .iter()
            .map(|&(std, spin)| Rep {
                order: vec!["std".into(), "spin".into()],
                samples: vec![
                    Sample {
                        variant: "std".into(),
                        value: std,
                        ops: 10,
                        ..Default::default()
                    },
                    Sample {
                        variant: "spin".into(),
                        value: spin,
                        ops: 10,
                        ..Default::default()
                    },
                ],
            })
            .collect();
        g
    }

    #[test]
    fn uncounted_cpu_time_reads_na_not_zero() {
        let mut g = group_with(&[(1.0, 2.0), (1.0, 2.0)], true);
        for r in &mut g.reps {
            r.samples[0].cpu_s = 0.5;
            r.samples[0].vcsw = 3;
        }
        let rows = rows(&g, &[]);
        assert_eq!(rows[0].cpu_us_per_op, Some(0.5e6 / 10.0));
        assert_eq!(rows[0].csw_per_op, Some(0.3));
        assert_eq!(rows[1].cpu_us_per_op, None);
        assert_eq!(rows[1].csw_per_op, None);
    }

    #[test]
    fn ratios_are_paired_within_repetitions() {
        // Repetition-level noise moves both variants together; pairing cancels it.
        let g = group_with(&[(1.0, 2.0), (10.0, 20.0), (100.0, 200.0)], true);
        assert_eq!(paired_ratios(&g, "spin", "std"), vec![2.0, 2.0, 2.0]);
        let e = estimate(&paired_ratios(&g, "spin", "std")).unwrap();
        assert_eq!((e.lo, e.median, e.hi), (2.0, 2.0, 2.0));
        // Unpaired medians would give 20 / 10 too here, but not in general:
        let g2 = group_with(&[(1.0, 3.0), (10.0, 20.0), (100.0, 110.0)], true);
        assert_eq!(paired_ratios(&g2, "spin", "std"), vec![3.0, 2.0, 1.1]);
    }

    #[test]
    fn latency_ratios_are_speedups() {
        let g = group_with(&[(10.0, 5.0)], false);
        assert_eq!(paired_ratios(&g, "spin", "std"), vec![2.0]);
    }

    #[test]
    fn missing_and_zero_baselines_are_skipped() {
        let mut g = group_with(&[(0.0, 1.0), (2.0, 1.0)], true);
        assert_eq!(paired_ratios(&g, "spin", "std"), vec![0.5]);
        g.reps[1].samples.remove(0);
        assert!(paired_ratios(&g, "spin", "std").is_empty());
        assert_eq!(paired_ratios(&g, "spin", "nope"), Vec::<f64>::new());
    }

    #[test]
    fn max_min_handles_edges() {
        assert_eq!(max_min(&[]), None);
        assert_eq!(max_min(&[4, 2]), Some(2.0));
        assert_eq!(max_min(&[4, 0]), Some(f64::INFINITY));
    }

    #[test]
    fn table_shows_na_for_missing_counters() {
        let r = tiny_report();
        let s = &r.sections[0];
        let t = group_table(s, &s.groups[0]);
        assert_eq!(t.header[0], "variant");
        assert!(t.header.contains(&"cpu-us/acq".to_string()));
        let spin = t.rows.iter().find(|row| row[0] == "spin").unwrap();
        assert_eq!(spin[1], "2.00");
        assert_eq!(spin[2], "2.00 [2.00, 2.00]");
        // cycles missing -> n/a, instructions present -> a number.
        let cyc = t.header.iter().position(|h| h == "cyc/acq").unwrap();
        assert_eq!(spin[cyc], "n/a");
        assert_ne!(spin[cyc + 1], "n/a");
        let text = t.to_text();
        assert!(text.lines().count() == 4, "{text}");
        let md = t.to_markdown();
        assert!(md.starts_with("| variant |"));
    }

    #[test]
    fn sweep_overview_has_a_column_per_thread_count() {
        let mut r = tiny_report();
        let s = &mut r.sections[0];
        let mut g4 = s.groups[0].clone();
        g4.id = "t4".into();
        g4.params.insert("threads".into(), serde_json::json!(4));
        s.groups.push(g4);
        let sw = crate::output::sweeps(s);
        let t = sweep_table(s, &sw[0]);
        assert_eq!(t.header, ["M/s by threads (vs std)", "2", "4"]);
        let spin = t.rows.iter().find(|r| r[0] == "spin").unwrap();
        assert_eq!(spin[1], "2.00 (2.00)");
        assert!(section_text(s).contains("M/s by threads"));
    }

    #[test]
    fn value_formatting() {
        assert_eq!(fmt_value(Some(1234.5)), "1234");
        assert_eq!(fmt_value(Some(12.34)), "12.3");
        assert_eq!(fmt_value(Some(1.234)), "1.23");
        assert_eq!(fmt_value(Some(0.0)), "0.00");
        assert_eq!(fmt_value(Some(0.00012)), "1.20e-4");
        assert_eq!(fmt_value(None), "n/a");
    }
}
