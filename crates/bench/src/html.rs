//! `report.html`: the whole report as one self-contained page, beside the JSON and the Markdown
//! report. The summary comes first, then per section its plots (the same SVG text as the plot
//! files, inlined) and its tables. No script, no font, no image or style sheet from anywhere:
//! the file opens offline and can be mailed as it is.

use crate::headline::{Verdict, for_section};
use crate::model::Report;
use crate::output::Plot;
use crate::summary::{Table, disturbance_line, group_table, preformatted, reps_note, skipped};
use std::collections::BTreeMap;

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A table as HTML; the cells of `verdict_column`, when given, get the class of their verdict.
fn table_html(t: &Table, verdict_column: Option<usize>) -> String {
    let mut out = String::from("<table>\n<thead><tr>");
    for h in &t.header {
        out.push_str(&format!("<th>{}</th>", escape(h)));
    }
    out.push_str("</tr></thead>\n<tbody>\n");
    for row in &t.rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let verdict = [Verdict::Met, Verdict::NotMet, Verdict::Inconclusive]
                .into_iter()
                .find(|v| Some(i) == verdict_column && v.text() == c);
            let class = match verdict {
                Some(v) => format!(" class=\"{}\"", verdict_class(v)),
                None if i == 0 => " class=\"name\"".to_string(),
                None => String::new(),
            };
            out.push_str(&format!("<td{class}>{}</td>", escape(c)));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody>\n</table>\n");
    out
}

/// Plotters writes a standalone SVG document; inline, only the `<svg>` element belongs.
fn inline_svg(svg: &str) -> &str {
    svg.find("<svg").map_or(svg, |i| &svg[i..])
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1200px;color:#111;\
padding:0 1em}table{border-collapse:collapse;margin:.5em 0 1em;font-size:14px}\
th,td{border:1px solid #bbb;padding:2px 8px;text-align:right;white-space:nowrap}\
th{background:#eee}th:first-child,td.name{text-align:left}td.met{background:#cde6f5}\
td.not-met{background:#f6d2bf;font-weight:bold}td.open{background:#eee}\
figure{margin:1em 0}figcaption{font-size:13px;color:#444}\
pre{font-size:12px;overflow-x:auto;background:#f6f6f6;padding:.5em}\
.note{color:#444}svg{max-width:100%;height:auto}";

/// The HTML report.
pub fn html(report: &Report, plots: &BTreeMap<String, Vec<Plot>>) -> String {
    let h = &report.host;
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <title>welltempered report: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n\
         <h1>welltempered report</h1>\n<p class=\"host\">{}; {}; {}</p>\n",
        escape(&h.label()),
        escape(&h.facts()),
        escape(&h.rustc),
        escape(&h.date_utc)
    );
    out.push_str(
        "<p class=\"note\">Ratios are speed-ups of ours over the named anchor, taken within each \
         repetition (paired), with the median and a bootstrap 95% interval; above 1 is better. \
         A verdict is read off the interval: met, NOT MET, or inconclusive when it straddles the \
         target, spans more than 10x, or the figure has two modes.</p>\n<h2 id=\"summary\">Summary</h2>\n",
    );
    for s in &report.sections {
        out.push_str(&format!("<h3>{}</h3>\n", escape(&s.title)));
        if let Some(why) = skipped(s) {
            out.push_str(&format!(
                "<p class=\"note\">Skipped: {}</p>\n",
                escape(&why)
            ));
            if s.groups.is_empty() {
                continue;
            }
        }
        let lines = for_section(s);
        if lines.is_empty() {
            out.push_str("<p class=\"note\">No headlines: see its tables below.</p>\n");
            continue;
        }
        out.push_str(&table_html(&crate::headline::table(&lines), Some(5)));
        if let Some(t) = crate::headline::tally(&lines) {
            out.push_str(&format!("<p class=\"note\">{}</p>\n", escape(&t)));
        }
        if let Some(d) = disturbance_line(s) {
            out.push_str(&format!("<p class=\"note\">{}</p>\n", escape(&d)));
        }
    }
    for s in &report.sections {
        out.push_str(&format!(
            "<h2 id=\"{}\">{}</h2>\n",
            escape(&s.name),
            escape(&s.title)
        ));
        if let Some(why) = skipped(s) {
            out.push_str(&format!(
                "<p class=\"note\">Skipped: {}</p>\n",
                escape(&why)
            ));
        }
        if let Some(text) = preformatted(s) {
            out.push_str(&format!("<pre>{}</pre>\n", escape(text)));
        }
        for (label, _, svg) in plots.get(&s.name).into_iter().flatten() {
            out.push_str(&format!(
                "<figure class=\"plot\">\n{}\n<figcaption>{}: {}</figcaption>\n</figure>\n",
                inline_svg(svg),
                escape(&s.title),
                escape(label)
            ));
        }
        for g in &s.groups {
            out.push_str(&format!(
                "<h4>{} ({})</h4>\n",
                escape(&g.title),
                escape(&reps_note(g))
            ));
            out.push_str(&table_html(&group_table(s, g), None));
        }
    }
    out.push_str("</body>\n</html>\n");
    out
}

/// The class the page gives a verdict's cell (coloured by the style sheet).
pub fn verdict_class(verdict: Verdict) -> &'static str {
    match verdict {
        Verdict::Met => "met",
        Verdict::NotMet => "not-met",
        Verdict::Inconclusive => "open",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::tests::tiny_report;

    #[test]
    fn text_is_escaped() {
        assert_eq!(
            escape("a<b & \"c\" 'd'>"),
            "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;"
        );
    }

    #[test]
    fn verdict_cells_are_classed() {
        let t = Table {
            header: vec!["cell".into(), "verdict".into()],
            rows: vec![vec!["a".into(), "NOT MET".into()]],
        };
        let h = table_html(&t, Some(1));
        assert!(h.contains(&format!(
            "<td class=\"{}\">NOT MET</td>",
            verdict_class(Verdict::NotMet)
        )));
        assert!(h.contains("<td class=\"name\">a</td>"));
    }

    #[test]
    #[cfg_attr(miri, ignore)] // plotters' text layout is slow under Miri
    fn the_page_is_self_contained_and_inlines_its_plots() {
        let r = tiny_report();
        let svg = "<?xml version=\"1.0\"?>\n<svg width=\"10\"></svg>".to_string();
        let plots = BTreeMap::from([(
            "mutex".to_string(),
            vec![("threads".to_string(), "x.svg".into(), svg)],
        )]);
        let page = html(&r, &plots);
        assert!(page.starts_with("<!DOCTYPE html>"));
        assert!(page.contains("<h2 id=\"summary\">Summary</h2>"));
        assert!(page.contains("<svg width=\"10\"></svg>") && !page.contains("<?xml"));
        assert!(!page.contains("src=") && !page.contains("href=") && !page.contains("<script"));
        assert!(page.find("Summary").unwrap() < page.find("<figure").unwrap());
    }
}
