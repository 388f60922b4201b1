//! Files written beside the JSON: SVG plots of the sweeps and a Markdown report.
//!
//! Plots use plotters' SVG backend only. Its text goes out as SVG `<text>` elements, sized by
//! plotters' built-in estimate, so no font files or fontconfig are needed to produce them.

use crate::model::{Group, Report, Section};
use crate::summary::group_table;
use crate::{Error, Result};
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One line plot: a sweep of the section's sweep parameter with every other parameter fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    /// The fixed parameters, as `k=v` joined by `, `.
    pub label: String,
    /// File-name-safe form of the label.
    pub slug: String,
    /// Groups along the sweep, ordered by the swept value.
    pub points: Vec<(f64, usize)>,
}

fn param_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The parameter a group names its swept value's meaning by, when the section's sweep parameter
/// stands for different things in different workloads (the channel's `x`: element bytes in W1,
/// producers in W9). It is left out of a sweep's label.
pub const SWEEP_NAME_PARAM: &str = "x_is";

/// What the swept value of `group` is, for headings: its [`SWEEP_NAME_PARAM`] where it has one,
/// else the section's sweep parameter.
pub fn sweep_name(section: &Section, group: &Group) -> String {
    group
        .params
        .get(SWEEP_NAME_PARAM)
        .and_then(serde_json::Value::as_str)
        .map_or_else(|| section.sweep.clone().unwrap_or_default(), str::to_string)
}

/// Groups the section's groups into sweeps along `section.sweep` (groups lacking a numeric value
/// of the swept parameter are left out).
pub fn sweeps(section: &Section) -> Vec<Sweep> {
    let Some(x) = section.sweep.as_deref() else {
        return Vec::new();
    };
    let mut by_rest: BTreeMap<String, Vec<(f64, usize)>> = BTreeMap::new();
    for (i, g) in section.groups.iter().enumerate() {
        let Some(xv) = g.params.get(x).and_then(serde_json::Value::as_f64) else {
            continue;
        };
        let rest: Vec<String> = g
            .params
            .iter()
            .filter(|(k, _)| k.as_str() != x && k.as_str() != SWEEP_NAME_PARAM)
            .map(|(k, v)| format!("{k}={}", param_text(v)))
            .collect();
        by_rest.entry(rest.join(", ")).or_default().push((xv, i));
    }
    by_rest
        .into_iter()
        .filter(|(_, pts)| pts.len() >= 2)
        .map(|(label, mut points)| {
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            let slug: String = label
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '=' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            Sweep {
                label,
                slug,
                points,
            }
        })
        .collect()
}

/// The Okabe–Ito palette (Okabe & Ito, "Color Universal Design", 2008,
/// <https://jfly.uni-koeln.de/color/>): eight colours told apart with every common colour-vision
/// deficiency, black first. Variants beyond eight reuse them with another marker.
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 0, 0),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 158, 115),
    RGBColor(240, 228, 66),
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(204, 121, 167),
];

/// One variant's line in a sweep plot: per swept point, the median paired ratio to the
/// baseline and its 95% interval.
type RatioLine = (String, Vec<(usize, crate::stats::Estimate)>);

/// The ratio lines of a sweep against `baseline`, one per variant of its first group.
fn ratio_lines(section: &Section, sweep: &Sweep, baseline: &str) -> Vec<RatioLine> {
    let groups: Vec<&Group> = sweep
        .points
        .iter()
        .map(|&(_, i)| &section.groups[i])
        .collect();
    groups[0]
        .variants
        .iter()
        .map(|v| {
            let pts = groups
                .iter()
                .enumerate()
                .filter_map(|(i, g)| {
                    let e = crate::stats::estimate(&crate::summary::paired_ratios(g, v, baseline))?;
                    (e.lo > 0.0 && e.hi.is_finite()).then_some((i, e))
                })
                .collect();
            (v.clone(), pts)
        })
        .collect()
}

/// A log axis's tick as a person writes it: `1`, `0.1`, `0.02`, `50`.
fn tick(y: f64) -> String {
    let s = crate::summary::fmt_value(Some(y));
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Draws one sweep as SVG text: x = the swept values (one labelled tick each), y = each
/// variant's median paired speed-up over the section's first baseline with its 95% interval
/// as a bar, on a log scale (ratios of 0.02 and 50 are the same distance from 1), a line at 1
/// for the baseline; the title says what is measured and on which host.
pub fn sweep_svg(section: &Section, sweep: &Sweep, host: &str) -> Result<String> {
    let first = &section.groups[sweep.points[0].1];
    let Some(baseline) = section.baselines_for(first).into_iter().next() else {
        return Err(Error::new(format!(
            "{}: {} has no baseline to plot ratios against",
            section.name, sweep.label
        )));
    };
    let lines = ratio_lines(section, sweep, &baseline);
    let (mut lo, mut hi) = (1.0f64, 1.0f64);
    for (_, pts) in &lines {
        for (_, e) in pts {
            lo = lo.min(e.lo);
            hi = hi.max(e.hi);
        }
    }
    let (lo, hi) = (lo / 1.3, hi * 1.3);
    let n = sweep.points.len();
    let xs: Vec<String> = sweep.points.iter().map(|p| format!("{}", p.0)).collect();
    let x_name = sweep_name(section, first);
    let err = |e: &dyn std::fmt::Display| Error::new(format!("plot {}: {e}", sweep.label));
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let mut chart = ChartBuilder::on(&root)
            .caption(
                format!(
                    "{}, {}: speed-up over {baseline} by {x_name} ({host})",
                    section.title, sweep.label
                ),
                ("sans-serif", 15),
            )
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(-0.5..(n as f64 - 0.5), (lo..hi).log_scale())
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc(x_name)
            .y_desc(format!(
                "speed-up over {baseline} in {}: median, 95% interval (log)",
                first.metric.label()
            ))
            .x_labels(n)
            .x_label_formatter(&|x| {
                let i = x.round();
                if (x - i).abs() < 1e-6 && i >= 0.0 {
                    xs.get(i as usize).cloned().unwrap_or_default()
                } else {
                    String::new()
                }
            })
            .y_label_formatter(&|y| tick(*y))
            .draw()
            .map_err(|e| err(&e))?;
        chart
            .draw_series(LineSeries::new(
                [(-0.5, 1.0), (n as f64 - 0.5, 1.0)],
                BLACK.mix(0.4).stroke_width(1),
            ))
            .map_err(|e| err(&e))?;
        let count = lines.len().max(1) as f64;
        for (k, (name, pts)) in lines.iter().enumerate() {
            let color = PALETTE[k % PALETTE.len()];
            // Side by side within a point, so that intervals do not hide each other.
            let dx = (k as f64 - (count - 1.0) / 2.0) * (0.6 / count);
            let at = |i: usize| i as f64 + dx;
            chart
                .draw_series(LineSeries::new(
                    pts.iter().map(|(i, e)| (at(*i), e.median)),
                    color.stroke_width(2),
                ))
                .map_err(|e| err(&e))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
                });
            chart
                .draw_series(pts.iter().map(|(i, e)| {
                    ErrorBar::new_vertical(at(*i), e.lo, e.median, e.hi, color.filled(), 6)
                }))
                .map_err(|e| err(&e))?;
            if k >= PALETTE.len() {
                chart
                    .draw_series(
                        pts.iter().map(|(i, e)| {
                            TriangleMarker::new((at(*i), e.median), 5, color.filled())
                        }),
                    )
                    .map_err(|e| err(&e))?;
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.7))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(svg)
}

/// One plot of the report: its label, the SVG file written, and the SVG text (for the HTML
/// report, which inlines it).
pub type Plot = (String, PathBuf, String);

/// Draws every sweep plot of the report into `dir`; returns the plots per section.
pub fn write_plots(report: &Report, dir: &Path) -> Result<BTreeMap<String, Vec<Plot>>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    let host = report.host.label();
    let mut out: BTreeMap<String, Vec<Plot>> = BTreeMap::new();
    for s in &report.sections {
        for sw in sweeps(s) {
            let first = &s.groups[sw.points[0].1];
            if s.baselines_for(first).is_empty() {
                continue;
            }
            let svg = sweep_svg(s, &sw, &host)?;
            let path = dir.join(format!("{}-{}.svg", s.name, sw.slug));
            std::fs::write(&path, &svg)
                .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
            out.entry(s.name.clone())
                .or_default()
                .push((sw.label, path, svg));
        }
    }
    Ok(out)
}

/// The Markdown report: host, configuration, then per section its plots and tables.
pub fn markdown(report: &Report, plots: &BTreeMap<String, Vec<Plot>>) -> String {
    let h = &report.host;
    let mut md = String::from("# welltempered report\n\n");
    md.push_str("| host fact | value |\n|---|---|\n");
    for (k, v) in [
        ("date (UTC)", h.date_utc.clone()),
        ("host", h.hostname.clone()),
        ("cpu", h.cpu_model.clone()),
        (
            "cpus usable / online",
            format!("{} / {}", h.cores, h.cpus_online),
        ),
        ("kernel", h.kernel.clone()),
        ("rustc", h.rustc.clone()),
        ("optimized build", h.optimized.to_string()),
        (
            "hardware counters",
            if h.pmu { "yes" } else { "no (n/a)" }.to_string(),
        ),
    ] {
        md.push_str(&format!("| {k} | {v} |\n"));
    }
    for (k, v) in &h.versions {
        md.push_str(&format!("| {k} | {v} |\n"));
    }
    md.push_str(
        "\nRatios are speed-ups over the named baseline taken within each repetition (paired), \
         summarised by their median and a bootstrap 95% interval; above 1 is better.\n",
    );
    md.push_str(&summary_markdown(report));
    md.push_str(&format!(
        "\n<details><summary>configuration</summary>\n\n```json\n{}\n```\n</details>\n",
        serde_json::to_string_pretty(&report.config).unwrap_or_default()
    ));
    for s in &report.sections {
        md.push_str(&format!("\n## {}\n", s.title));
        if let Some(why) = crate::summary::skipped(s) {
            md.push_str(&format!("\nSkipped: {why}\n"));
        }
        if let Some(text) = crate::summary::preformatted(s) {
            md.push_str(&format!("\n```text\n{text}```\n"));
        }
        md.push_str(&format!(
            "\n<details><summary>{} options</summary>\n\n```json\n{}\n```\n</details>\n",
            s.name,
            serde_json::to_string_pretty(&s.config).unwrap_or_default()
        ));
        for sw in sweeps(s) {
            md.push_str(&format!("\n### {}: {}\n\n", s.title, sw.label));
            md.push_str(&crate::summary::sweep_table(s, &sw).to_markdown());
        }
        for (label, path, _) in plots.get(&s.name).into_iter().flatten() {
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            md.push_str(&format!("\n![{label}]({file})\n"));
        }
        for g in &s.groups {
            md.push_str(&format!(
                "\n### {} ({})\n\n",
                g.title,
                crate::summary::reps_note(g)
            ));
            md.push_str(&group_table(s, g).to_markdown());
        }
    }
    md
}

/// The report's summary in Markdown: per section its headlines (ours against each anchor, with
/// the interval and the verdict per target) and the tally of verdicts, or why it was skipped.
pub fn summary_markdown(report: &Report) -> String {
    let mut md = String::from("\n## Summary\n");
    for s in &report.sections {
        md.push_str(&format!("\n### {}\n\n", s.title));
        if let Some(why) = crate::summary::skipped(s) {
            md.push_str(&format!("Skipped: {why}\n"));
            if s.groups.is_empty() {
                continue;
            }
        }
        let lines = crate::headline::for_section(s);
        if lines.is_empty() {
            md.push_str("No headlines: the tables below are the results.\n");
            continue;
        }
        md.push_str(&crate::headline::table(&lines).to_markdown());
        if let Some(t) = crate::headline::tally(&lines) {
            md.push_str(&format!("\n{t}\n"));
        }
        if let Some(d) = crate::summary::disturbance_line(s) {
            md.push_str(&format!("\n{d}\n"));
        }
    }
    md
}

/// Writes the plots, the Markdown report (`<stem>.md`) and the HTML report (`<stem>.html`)
/// into `dir`; returns the Markdown report's path.
pub fn write_files(report: &Report, dir: &Path, stem: &str) -> Result<PathBuf> {
    let plots = write_plots(report, dir)?;
    let write = |path: &Path, text: String| {
        std::fs::write(path, text)
            .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))
    };
    write(
        &dir.join(format!("{stem}.html")),
        crate::html::html(report, &plots),
    )?;
    let path = dir.join(format!("{stem}.md"));
    write(&path, markdown(report, &plots))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;

    #[test]
    fn ticks_read_as_written() {
        assert_eq!(tick(1.0), "1");
        assert_eq!(tick(0.1), "0.1");
        assert_eq!(tick(0.0100), "0.01");
        assert_eq!(tick(50.0), "50");
        assert_eq!(tick(2.5), "2.5");
    }

    #[test]
    fn sweeps_group_by_fixed_parameters() {
        let mut r = tiny_report();
        let s = &mut r.sections[0];
        let g = s.groups[0].clone();
        let mut g4 = g.clone();
        g4.id = "t4".into();
        g4.params.insert("threads".into(), serde_json::json!(4));
        s.groups.push(g4);
        let mut other = g.clone();
        other
            .params
            .insert("workload".into(), serde_json::json!("moderate"));
        s.groups.push(other);
        let sw = sweeps(s);
        // The lone "moderate" group makes no line; the two "threads" groups do.
        assert_eq!(sw.len(), 1);
        assert_eq!(
            sw[0].points.iter().map(|p| p.0).collect::<Vec<_>>(),
            [2.0, 4.0]
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn plots_and_markdown_are_written_with_text() {
        let mut r = tiny_report();
        let s = &mut r.sections[0];
        let mut g4 = s.groups[0].clone();
        g4.id = "t4".into();
        g4.params.insert("threads".into(), serde_json::json!(4));
        s.groups.push(g4);
        let dir = std::env::temp_dir().join(format!("wt-out-{}", std::process::id()));
        let md = write_files(&r, &dir, "report").unwrap();
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(text.contains("## MutexBench"));
        assert!(text.contains(".svg)"));
        let svg: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.path().extension().is_some_and(|x| x == "svg"))
            .collect();
        assert_eq!(svg.len(), 1);
        let body = std::fs::read_to_string(svg[0].path()).unwrap();
        assert!(body.contains("<svg") && body.contains("<text"), "{body}");
        assert!(body.contains("spin"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
