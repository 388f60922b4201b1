//! `welltempered compare`: merges reports from several machines into one cross-machine table,
//! as omp0 compared its 8- and 128-core hosts. Needs only the JSON format.

use crate::headline::{Line, for_section};
use crate::model::{Group, Report};
use crate::stats::{estimate, median};
use crate::summary::{Table, fmt_estimate, fmt_value, paired_ratios};

/// One report with the name its column gets.
#[derive(Clone, Debug)]
pub struct Labeled {
    /// Column label (file stem and host).
    pub label: String,
    /// The report.
    pub report: Report,
}

/// The cross-machine table of one section: a row per (group, variant), and per report the
/// median primary figure and the paired ratio to the section's first baseline.
pub fn compare_section(reports: &[Labeled], section: &str) -> Option<(String, Table)> {
    let sections: Vec<_> = reports
        .iter()
        .map(|l| l.report.sections.iter().find(|s| s.name == section))
        .collect();
    let first = sections.iter().flatten().next()?;
    let baseline = first.baselines.first().cloned();
    let mut header = vec!["group".to_string(), "variant".to_string()];
    for l in reports {
        header.push(l.label.clone());
        if let Some(b) = &baseline {
            header.push(format!("vs {b}"));
        }
    }
    // Groups and variants in first-seen order across all reports.
    let mut keys: Vec<(String, String)> = Vec::new();
    for s in sections.iter().flatten() {
        for g in &s.groups {
            for v in &g.variants {
                let k = (g.id.clone(), v.clone());
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
        }
    }
    let rows = keys
        .into_iter()
        .map(|(gid, v)| {
            let mut cells = vec![gid.clone(), v.clone()];
            for s in &sections {
                let g: Option<&Group> = s.and_then(|s| s.groups.iter().find(|g| g.id == gid));
                let value = g.and_then(|g| {
                    let xs: Vec<f64> = g
                        .reps
                        .iter()
                        .filter_map(|r| r.sample(&v).map(|s| s.value))
                        .collect();
                    median(&xs)
                });
                cells.push(match (value, g) {
                    (Some(x), Some(g)) => format!("{} {}", fmt_value(Some(x)), g.metric.unit),
                    _ => "-".to_string(),
                });
                if let Some(b) = &baseline {
                    cells.push(match g {
                        Some(g) => fmt_estimate(estimate(&paired_ratios(g, &v, b))),
                        None => "-".to_string(),
                    });
                }
            }
            cells
        })
        .collect();
    Some((first.title.clone(), Table { header, rows }))
}

/// The summary of every section found in any report, one column per report: a row per headline
/// (cell, ours, against, target) and, per report, its result and verdict ([`crate::headline`]),
/// so that one table says which lock, channel or construct wins on which machine and how the
/// ratios move with the machine. A section without headlines in any report is left out.
pub fn compare_summary(reports: &[Labeled]) -> Vec<(String, Table)> {
    let mut out = Vec::new();
    for name in section_names(reports) {
        let per_report: Vec<Vec<Line>> = reports
            .iter()
            .map(|l| {
                l.report
                    .sections
                    .iter()
                    .find(|s| s.name == name)
                    .map(for_section)
                    .unwrap_or_default()
            })
            .collect();
        let key = |l: &Line| {
            (
                l.cell.clone(),
                l.ours.clone(),
                l.against.clone(),
                l.target.clone(),
            )
        };
        let mut keys = Vec::new();
        for l in per_report.iter().flatten() {
            if !keys.contains(&key(l)) {
                keys.push(key(l));
            }
        }
        if keys.is_empty() {
            continue;
        }
        let mut header: Vec<String> = ["cell", "ours", "against", "target"]
            .map(str::to_string)
            .to_vec();
        header.extend(reports.iter().map(|l| l.label.clone()));
        let rows = keys
            .iter()
            .map(|k| {
                let mut cells = vec![k.0.clone(), k.1.clone(), k.2.clone(), k.3.clone()];
                for lines in &per_report {
                    cells.push(match lines.iter().find(|l| key(l) == *k) {
                        Some(l) => match l.verdict {
                            Some(v) => format!("{} {}", l.result, v.text()),
                            None => l.result.clone(),
                        },
                        None => "-".to_string(),
                    });
                }
                cells
            })
            .collect();
        let title = reports
            .iter()
            .flat_map(|l| &l.report.sections)
            .find(|s| s.name == name)
            .map_or(name.clone(), |s| s.title.clone());
        out.push((title, Table { header, rows }));
    }
    out
}

fn section_names(reports: &[Labeled]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for l in reports {
        for s in &l.report.sections {
            if !names.contains(&s.name) {
                names.push(s.name.clone());
            }
        }
    }
    names
}

/// Every section found in any report, in first-seen order, as (title, table).
pub fn compare(reports: &[Labeled]) -> Vec<(String, Table)> {
    section_names(reports)
        .iter()
        .filter_map(|n| compare_section(reports, n))
        .collect()
}

/// The host line of each report, for the heading of the comparison.
pub fn hosts(reports: &[Labeled]) -> Vec<String> {
    reports
        .iter()
        .map(|l| {
            let h = &l.report.host;
            format!("{}: {}; {}, {}", l.label, h.facts(), h.rustc, h.date_utc)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;

    #[test]
    fn merges_two_reports_side_by_side() {
        let a = tiny_report();
        let mut b = tiny_report();
        for s in &mut b.sections[0].groups[0].reps[0].samples {
            s.value *= 10.0;
        }
        b.sections[0].groups[0].variants.push("extra".into());
        let ls = vec![
            Labeled {
                label: "a".into(),
                report: a,
            },
            Labeled {
                label: "b".into(),
                report: b,
            },
        ];
        let t = compare(&ls);
        assert_eq!(t.len(), 1);
        let table = &t[0].1;
        assert_eq!(
            table.header,
            ["group", "variant", "a", "vs std", "b", "vs std"]
        );
        let spin = table.rows.iter().find(|r| r[1] == "spin").unwrap();
        assert_eq!(spin[2], "2.00 M/s");
        assert_eq!(spin[4], "20.0 M/s");
        assert_eq!(spin[3], "2.00 [2.00, 2.00]");
        let extra = table.rows.iter().find(|r| r[1] == "extra").unwrap();
        assert_eq!(extra[2], "-");
        assert_eq!(extra[4], "-");
        assert_eq!(hosts(&ls).len(), 2);
    }
}
