//! Files written beside the JSON: SVG plots of the sweeps and a Markdown report.
//!
//! Plots use plotters' SVG backend only. Its text goes out as SVG `<text>` elements, sized by
//! plotters' built-in estimate, so no font files or fontconfig are needed to produce them.

use crate::model::{Group, Report, Section};
use crate::summary::{group_table, rows};
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

/// Draws one sweep to `path`: x = swept parameter (log scale), y = median primary figure, one
/// line per variant.
pub fn plot_sweep(section: &Section, sweep: &Sweep, path: &Path) -> Result<()> {
    let groups: Vec<&Group> = sweep
        .points
        .iter()
        .map(|&(_, i)| &section.groups[i])
        .collect();
    let first = groups[0];
    let mut lines: Vec<(String, Vec<(f64, f64)>)> = first
        .variants
        .iter()
        .map(|v| (v.clone(), Vec::new()))
        .collect();
    for (&(x, _), g) in sweep.points.iter().zip(&groups) {
        for r in rows(g, &[]) {
            if let (Some(line), Some(y)) = (lines.iter_mut().find(|l| l.0 == r.variant), r.value)
                && y.is_finite()
            {
                line.1.push((x, y));
            }
        }
    }
    let xs: Vec<f64> = sweep.points.iter().map(|p| p.0.max(1e-9)).collect();
    let (x0, x1) = (xs[0], xs[xs.len() - 1].max(xs[0] * 1.0001));
    let ymax = lines
        .iter()
        .flat_map(|l| l.1.iter().map(|p| p.1))
        .fold(0.0f64, f64::max)
        .max(1e-9)
        * 1.1;
    let x_name = sweep_name(section, first);
    let err = |e: &dyn std::fmt::Display| Error::new(format!("plot {}: {e}", path.display()));
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: {}", section.title, sweep.label),
            ("sans-serif", 18),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((x0..x1).log_scale(), 0.0..ymax)
        .map_err(|e| err(&e))?;
    chart
        .configure_mesh()
        .x_desc(x_name)
        .y_desc(first.metric.label())
        .x_label_formatter(&|x| format!("{x:.0}"))
        .draw()
        .map_err(|e| err(&e))?;
    for (i, (name, pts)) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
            .map_err(|e| err(&e))?
            .label(name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], color.stroke_width(2))
            });
        chart
            .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| err(&e))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))?;
    Ok(())
}

/// Writes every sweep plot of the report into `dir`; returns the files per section.
pub fn write_plots(
    report: &Report,
    dir: &Path,
) -> Result<BTreeMap<String, Vec<(String, PathBuf)>>> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::new(format!("cannot create {}: {e}", dir.display())))?;
    let mut out: BTreeMap<String, Vec<(String, PathBuf)>> = BTreeMap::new();
    for s in &report.sections {
        for sw in sweeps(s) {
            let path = dir.join(format!("{}-{}.svg", s.name, sw.slug));
            plot_sweep(s, &sw, &path)?;
            out.entry(s.name.clone())
                .or_default()
                .push((sw.label, path));
        }
    }
    Ok(out)
}

/// The Markdown report: host, configuration, then per section its plots and tables.
pub fn markdown(report: &Report, plots: &BTreeMap<String, Vec<(String, PathBuf)>>) -> String {
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
        for (label, path) in plots.get(&s.name).into_iter().flatten() {
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
            continue;
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

/// Writes the plots and the Markdown report (`<stem>.md`) into `dir`; returns the report's path.
pub fn write_files(report: &Report, dir: &Path, stem: &str) -> Result<PathBuf> {
    let plots = write_plots(report, dir)?;
    let path = dir.join(format!("{stem}.md"));
    std::fs::write(&path, markdown(report, &plots))
        .map_err(|e| Error::new(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;

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
