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

/// How far apart an interval's ends may be before its ratio is not worth quoting: an interval
/// spanning more than this factor (`hi / lo`) is reported as inconclusive, not as a number.
pub const WIDE: f64 = 10.0;

/// Whether an estimate's interval spans more than [`WIDE`] (or reaches zero), so that its median
/// means nothing on its own.
pub fn is_wide(e: &Estimate) -> bool {
    !(e.lo > 0.0 && e.hi / e.lo <= WIDE)
}

/// Formats a ratio estimate as `1.23 [1.10, 1.40]`; one whose interval spans more than
/// [`WIDE`] as `inconclusive [0.10, 5.05]`; a missing one as "n/a".
pub fn fmt_estimate(e: Option<Estimate>) -> String {
    match e {
        Some(e) if is_wide(&e) => format!("inconclusive [{:.2}, {:.2}]", e.lo, e.hi),
        Some(e) => format!("{:.2} [{:.2}, {:.2}]", e.median, e.lo, e.hi),
        None => "n/a".to_string(),
    }
}

/// Formats a value with three significant figures and no exponent (`1234`, `12.3`, `1.23`,
/// `0.0123`); below a millionth it reads `0`. "inf" and "n/a" as [`fmt_opt`].
pub fn fmt_value(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() && v.abs() < 5e-7 => "0".to_string(),
        Some(v) if v.is_finite() => {
            let magnitude = v.abs().log10().floor() as i32;
            let decimals = (2 - magnitude).clamp(0, 6) as usize;
            format!("{v:.decimals$}")
        }
        other => fmt_opt(other, 2),
    }
}

/// How far apart two groups of a variant's samples must be to count as two modes rather than
/// noise: a gap of this factor between neighbouring values.
pub const MODE_GAP: f64 = 3.0;

/// Two modes in a variant's samples (a child process whose threads landed on one CPU, a
/// preempted lock holder): the median of each side of the widest gap, and how many samples
/// fell on each side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Modes {
    /// Median of the samples below the gap.
    pub low: f64,
    /// Median of the samples above the gap.
    pub high: f64,
    /// Samples below the gap.
    pub n_low: usize,
    /// Samples above the gap.
    pub n_high: usize,
}

/// The two modes of `values`, when sorted neighbours are [`MODE_GAP`] apart somewhere; `None`
/// for fewer than three values, and for values that are not all positive (a figure that has
/// had a delay subtracted can sit at zero, where factors mean nothing).
pub fn modes(values: &[f64]) -> Option<Modes> {
    if values.len() < 3 || values.iter().any(|v| !(v.is_finite() && *v > 0.0)) {
        return None;
    }
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let (split, gap) = (1..v.len())
        .map(|i| (i, v[i] / v[i - 1]))
        .max_by(|a, b| a.1.total_cmp(&b.1))?;
    (gap >= MODE_GAP).then(|| Modes {
        low: median(&v[..split]).unwrap_or(v[0]),
        high: median(&v[split..]).unwrap_or(v[v.len() - 1]),
        n_low: split,
        n_high: v.len() - split,
    })
}

/// The values of `variant` in `group`, one per repetition where it ran.
pub fn values(group: &Group, variant: &str) -> Vec<f64> {
    group
        .reps
        .iter()
        .filter_map(|r| r.sample(variant).map(|s| s.value))
        .collect()
}

/// Of a section's repetitions: how many in all, how many were run again after a disturbance
/// (attempts discarded), and how many were kept still disturbed.
pub fn disturbances(section: &Section) -> (usize, u32, usize) {
    let reps = section.groups.iter().flat_map(|g| &g.reps);
    let total = reps.clone().count();
    let retried = reps.clone().map(|r| r.retried).sum();
    let flagged = reps.filter(|r| r.disturbed).count();
    (total, retried, flagged)
}

/// The line the report gives a section's disturbances, or `None` when there were none.
pub fn disturbance_line(section: &Section) -> Option<String> {
    let (total, retried, flagged) = disturbances(section);
    (retried > 0 || flagged > 0).then(|| {
        format!(
            "disturbances: {retried} attempt{} discarded and run again (another process took \
             CPU time during it); {flagged} of {total} repetitions kept still disturbed",
            if retried == 1 { "" } else { "s" }
        )
    })
}

/// The median of a column's finite, positive figures (what a unit is chosen by).
fn positive_median(column: &[Option<f64>]) -> Option<f64> {
    let values: Vec<f64> = column
        .iter()
        .flatten()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .collect();
    median(&values)
}

/// A power of 1000 to scale a column of per-operation figures by, chosen so that the column's
/// median reads between 1 and 1000: `(factor, prefix)` among none, "1k" (per thousand
/// operations) and "1M" (per million).
fn per_ops_scale(column: &[Option<f64>]) -> (f64, &'static str) {
    match positive_median(column) {
        Some(m) if m < 1e-3 => (1e6, "1M "),
        Some(m) if m < 1.0 => (1e3, "1k "),
        _ => (1.0, ""),
    }
}

/// The unit to show CPU time per operation in, from a column in microseconds: `(factor, unit)`
/// so that the column's median reads between 1 and 1000 where it can (ns, µs or ms).
fn cpu_time_scale(column_us: &[Option<f64>]) -> (f64, &'static str) {
    match positive_median(column_us) {
        Some(m) if m < 1.0 => (1e3, "ns"),
        Some(m) if m >= 1e3 => (1e-3, "ms"),
        _ => (1.0, "µs"),
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

/// The table of one group: one row per variant. CPU time and context switches per operation
/// are scaled per table so that they read naturally (`cpu-ns/acq`, `csw/1k acq`), and a column
/// that is "n/a" on every row (hardware counters on a machine without a PMU) is left out.
pub fn group_table(section: &Section, group: &Group) -> Table {
    let op = &group.metric.op;
    let baselines = section.baselines_for(group);
    let rows = rows(group, &baselines);
    let cpu: Vec<Option<f64>> = rows.iter().map(|r| r.cpu_us_per_op).collect();
    let csw: Vec<Option<f64>> = rows.iter().map(|r| r.csw_per_op).collect();
    let (cpu_factor, cpu_unit) = cpu_time_scale(&cpu);
    let (csw_factor, csw_per) = per_ops_scale(&csw);
    let mut header = vec!["variant".to_string(), group.metric.label()];
    for b in &baselines {
        header.push(format!("vs {b} [95% CI]"));
    }
    header.push("max/min".to_string());
    header.push(format!("cpu-{cpu_unit}/{op}"));
    header.push(format!("csw/{csw_per}{op}"));
    for h in ["cycles/", "instr/", "misses/"] {
        header.push(format!("{h}{op}"));
    }
    let scaled = |x: Option<f64>, f: f64| x.map(|v| v * f);
    let rows = rows
        .into_iter()
        .map(|r| {
            let mut cells = vec![r.variant.clone(), fmt_value(r.value)];
            cells.extend(r.ratios.iter().map(|(_, e)| fmt_estimate(*e)));
            cells.push(fmt_value(r.max_min));
            cells.push(fmt_value(scaled(r.cpu_us_per_op, cpu_factor)));
            cells.push(fmt_value(scaled(r.csw_per_op, csw_factor)));
            cells.push(fmt_value(r.cycles_per_op));
            cells.push(fmt_value(r.instructions_per_op));
            cells.push(fmt_value(r.misses_per_op));
            cells
        })
        .collect();
    Table { header, rows }.without_empty_columns(2)
}

impl Table {
    /// This table without the columns from `from` on whose every cell reads "n/a" (nothing was
    /// counted there: a machine without a PMU, a section that does not count CPU time).
    #[must_use]
    pub fn without_empty_columns(self, from: usize) -> Self {
        let keep: Vec<bool> = (0..self.header.len())
            .map(|i| {
                i < from
                    || self
                        .rows
                        .iter()
                        .any(|r| r.get(i).is_some_and(|c| c != "n/a"))
            })
            .collect();
        let pick = |row: Vec<String>| -> Vec<String> {
            row.into_iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(c, _)| c)
                .collect()
        };
        Table {
            header: pick(self.header),
            rows: self.rows.into_iter().map(pick).collect(),
        }
    }

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
/// figure and, in parentheses, the median paired ratio to the section's first baseline (`(?)`
/// where that ratio's interval spans more than [`WIDE`]).
pub fn sweep_table(section: &Section, sweep: &crate::output::Sweep) -> Table {
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
        "{} by {}{}",
        groups.first().map_or(String::new(), |g| g.metric.label()),
        groups.first().map_or_else(
            || section.sweep.clone().unwrap_or_default(),
            |g| { crate::output::sweep_name(section, g) }
        ),
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
                let ratio = base.and_then(|b| estimate(&paired_ratios(g, v, b)));
                cells.push(match ratio {
                    Some(r) if is_wide(&r) => format!("{} (?)", fmt_value(value)),
                    Some(r) => format!("{} ({:.2})", fmt_value(value), r.median),
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

/// Why a section, or some of its parts, did not run (a missing prerequisite, recorded by the
/// section in its `config.skipped`: one reason, or a list of them, one per part not run).
pub fn skipped(section: &Section) -> Option<String> {
    match section.config.get("skipped")? {
        serde_json::Value::String(why) => Some(why.clone()),
        serde_json::Value::Array(whys) => {
            let whys: Vec<&str> = whys.iter().filter_map(|w| w.as_str()).collect();
            (!whys.is_empty()).then(|| whys.join("; "))
        }
        _ => None,
    }
}

/// All tables of a section as plain text: the sweep overviews, then each group under its title.
pub fn section_text(section: &Section) -> String {
    let mut out = format!("== {} ==\n", section.title);
    if let Some(why) = skipped(section) {
        out.push_str(&format!("skipped: {why}\n"));
    }
    out.push_str(&section_detail(section));
    out
}

/// A section's detail as plain text, without its heading: its own preformatted text, the sweep
/// overviews, then each group's table under its title.
pub fn section_detail(section: &Section) -> String {
    let mut out = String::new();
    if let Some(text) = preformatted(section) {
        out.push_str(&format!("\n{text}"));
    }
    for sw in crate::output::sweeps(section) {
        out.push_str(&format!("\n{}: {}\n", section.title, sw.label));
        out.push_str(&sweep_table(section, &sw).to_text());
    }
    for g in &section.groups {
        out.push_str(&format!("\n{}  ({})\n", g.title, reps_note(g)));
        out.push_str(&group_table(section, g).to_text());
    }
    out
}

/// "5 reps", and what disturbed them: "5 reps, 2 run again, 1 disturbed".
pub fn reps_note(group: &Group) -> String {
    let retried: u32 = group.reps.iter().map(|r| r.retried).sum();
    let flagged = group.reps.iter().filter(|r| r.disturbed).count();
    let mut note = format!("{} reps", group.reps.len());
    if retried > 0 {
        note.push_str(&format!(", {retried} run again"));
    }
    if flagged > 0 {
        note.push_str(&format!(", {flagged} disturbed"));
    }
    note
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
                ..Default::default()
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
    fn skipped_reads_one_reason_or_a_list() {
        let mut s = tiny_report().sections[0].clone();
        assert_eq!(skipped(&s), None);
        s.config["skipped"] = serde_json::json!("no LevelDB");
        assert_eq!(skipped(&s).as_deref(), Some("no LevelDB"));
        s.config["skipped"] = serde_json::json!(["fd: not built", "pool: not built"]);
        assert_eq!(
            skipped(&s).as_deref(),
            Some("fd: not built; pool: not built")
        );
        s.config["skipped"] = serde_json::json!([]);
        assert_eq!(skipped(&s), None);
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
        assert_eq!(t.header[1], "M acq/s");
        // 0.02 s of CPU for 1000 acquisitions: 20 µs each; 4 switches: 4 per thousand.
        let cpu = t.header.iter().position(|h| h == "cpu-µs/acq").unwrap();
        let csw = t.header.iter().position(|h| h == "csw/1k acq").unwrap();
        let spin = t.rows.iter().find(|row| row[0] == "spin").unwrap();
        assert_eq!(spin[1], "2.00");
        assert_eq!(spin[2], "2.00 [2.00, 2.00]");
        assert_eq!((spin[cpu].as_str(), spin[csw].as_str()), ("20.0", "4.00"));
        // Cycles and misses were counted on no row: their columns are left out; instructions
        // were, and stay.
        assert!(
            !t.header.iter().any(|h| h.starts_with("cycles/")),
            "{:?}",
            t.header
        );
        assert!(!t.header.iter().any(|h| h.starts_with("misses/")));
        let ins = t.header.iter().position(|h| h == "instr/acq").unwrap();
        assert_eq!(spin[ins], "0.0125");
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
        assert_eq!(t.header, ["M acq/s by threads (vs std)", "2", "4"]);
        let spin = t.rows.iter().find(|r| r[0] == "spin").unwrap();
        assert_eq!(spin[1], "2.00 (2.00)");
        assert!(section_text(s).contains("M acq/s by threads"));
        // A group that says what its swept value is gets that name.
        for g in &mut s.groups {
            g.params.insert(
                crate::output::SWEEP_NAME_PARAM.into(),
                serde_json::json!("element bytes"),
            );
        }
        let sw = crate::output::sweeps(s);
        assert_eq!(sw.len(), 1, "the name is not a parameter of the sweep");
        assert_eq!(
            sweep_table(s, &sw[0]).header[0],
            "M acq/s by element bytes (vs std)"
        );
    }

    #[test]
    fn value_formatting() {
        assert_eq!(fmt_value(Some(1234.5)), "1234");
        assert_eq!(fmt_value(Some(12.34)), "12.3");
        assert_eq!(fmt_value(Some(1.234)), "1.23");
        assert_eq!(fmt_value(Some(0.0)), "0");
        assert_eq!(fmt_value(Some(0.00012)), "0.000120");
        assert_eq!(fmt_value(Some(-0.0123)), "-0.0123");
        assert_eq!(fmt_value(Some(1e-9)), "0");
        assert_eq!(fmt_value(Some(f64::INFINITY)), "inf");
        assert_eq!(fmt_value(None), "n/a");
    }

    #[test]
    fn modes_need_a_gap_of_three() {
        let m = modes(&[0.13, 6.0, 6.5, 0.12, 0.13]).unwrap();
        assert_eq!((m.low, m.high, m.n_low, m.n_high), (0.13, 6.25, 3, 2));
        // One slow outlier is a mode of its own.
        assert_eq!(modes(&[0.42, 0.45, 3004.0, 0.40, 0.40]).unwrap().n_high, 1);
        // Gaps under 3x are spread, not modes.
        assert_eq!(modes(&[0.2, 0.5, 1.2, 3.0, 7.0]), None);
        // Too few samples, or values at or below zero.
        assert_eq!(modes(&[1.0, 10.0]), None);
        assert_eq!(modes(&[-0.01, 0.02, 0.5]), None);
    }

    #[test]
    fn disturbances_are_counted() {
        let mut s = tiny_report().sections[0].clone();
        assert_eq!(disturbance_line(&s), None);
        s.groups[0].reps[0].retried = 2;
        s.groups[0].reps[0].disturbed = true;
        assert_eq!(disturbances(&s), (1, 2, 1));
        let line = disturbance_line(&s).unwrap();
        assert!(
            line.contains("2 attempts discarded") && line.contains("1 of 1"),
            "{line}"
        );
        assert_eq!(reps_note(&s.groups[0]), "1 reps, 2 run again, 1 disturbed");
    }

    #[test]
    fn wide_intervals_are_not_quoted() {
        let narrow = Estimate {
            median: 1.0,
            lo: 0.5,
            hi: 4.9,
        };
        assert_eq!(fmt_estimate(Some(narrow)), "1.00 [0.50, 4.90]");
        let wide = Estimate { hi: 5.1, ..narrow };
        assert_eq!(fmt_estimate(Some(wide)), "inconclusive [0.50, 5.10]");
        let to_zero = Estimate { lo: 0.0, ..narrow };
        assert!(is_wide(&to_zero));
    }
}
