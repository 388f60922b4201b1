//! Reach: WTC's table of how far the static analysis gets on real code (`welltempered reach`).
//!
//! Two pinned corpora of crates.io crates, the one the rules were tuned on
//! (`crates/analyze/reach/corpus.toml`) and a validation set held out from that work
//! (`crates/analyze/reach/validation/`), are fetched with cargo into the cargo registry (once; it
//! needs network the first time), every crate is analysed by `welltempered-analyze`, and each
//! channel's verdict is judged against its audited expected verdict (`expected.toml` beside each
//! corpus): channels, exact, conservative, refused and wrong per crate, with the tool's own
//! account of every verdict. The analysis is
//! also timed, `--reps` times, as milliseconds per 10,000 lines of each crate (WTC's speed
//! figure). Without network and without a corpus in the registry the section says so and skips
//! that corpus.

use super::{Ctx, Suite};
use crate::args::parse_positive;
use crate::headline::{Line, Verdict};
use crate::model::{Group, Metric, Rep, Sample, Section};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches};
use std::collections::BTreeMap;
use welltempered_analyze::reach;

/// Options of `welltempered reach`.
#[derive(Args, Clone, Debug, Default)]
pub struct ReachArgs {
    /// Timed repetitions of the analysis [default: 3; quick: 1].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
    /// Do not fetch the corpus; use what is already in the cargo registry.
    #[arg(long)]
    pub offline: bool,
}

/// Runs the reach study: the tuning corpus, then the validation corpus, each a group of its own
/// (`reach/speed`, `reach/validation/speed`) and an entry of the section's config (`tuning`,
/// `validation`: the verdict counts and the table); a corpus that cannot be fetched or read is
/// skipped with its reason in the config (`skipped`), the other still runs.
pub fn run_reach(args: &ReachArgs, ctx: &Ctx<'_>) -> Result<Section> {
    let reps = args.reps.unwrap_or(if ctx.quick { 1 } else { 3 });
    let mut section = Section {
        name: "reach".into(),
        title: "Reach of the static channel analysis (WTC's table)".into(),
        baselines: Vec::new(),
        sweep: None,
        config: serde_json::json!({ "reps": reps, "offline": args.offline }),
        groups: Vec::new(),
    };
    ctx.progress.stage("reach");
    for (corpus, key, group_id) in [
        (reach::Corpus::Tuning, "tuning", "reach/speed"),
        (
            reach::Corpus::Validation,
            "validation",
            "reach/validation/speed",
        ),
    ] {
        let opts = reach::Options::for_corpus(corpus);
        if !args.offline
            && let Err(e) = reach::fetch(&opts)
        {
            eprintln!("welltempered: {e}; trying the registry as it is");
        }
        match corpus_group(&opts, key, group_id, reps, ctx) {
            Ok((group, config)) => {
                section.config[key] = config;
                section.groups.push(group);
            }
            Err(e) => {
                let why = e.to_string();
                eprintln!("welltempered: reach: the {key} corpus skipped: {why}");
                section.config[key] = serde_json::json!({ "skipped": why });
            }
        }
    }
    Ok(section)
}

/// One corpus analysed `reps` times: its group of timings per crate and its config entry.
fn corpus_group(
    opts: &reach::Options,
    key: &str,
    group_id: &str,
    reps: usize,
    ctx: &Ctx<'_>,
) -> Result<(Group, serde_json::Value)> {
    let mut report = reach::run(opts).map_err(|e| Error::new(e.to_string()))?;
    let names: Vec<String> = report.crates.iter().map(|c| c.name.clone()).collect();
    ctx.progress.add_steps(reps as u64);
    let mut timed = Vec::with_capacity(reps);
    for r in 0..reps {
        if r > 0 {
            report = reach::run(opts).map_err(|e| Error::new(e.to_string()))?;
        }
        timed.push(Rep {
            order: names.clone(),
            samples: report
                .crates
                .iter()
                .map(|c| Sample {
                    variant: c.name.clone(),
                    value: c.seconds * 1e3 / (c.lines.max(1) as f64 / 1e4),
                    ops: c.lines as u64,
                    wall_s: c.seconds,
                    extra: BTreeMap::from([
                        ("channels".to_string(), c.channels as f64),
                        ("exact".to_string(), c.exact as f64),
                        ("conservative".to_string(), c.conservative as f64),
                        ("refused".to_string(), c.refused as f64),
                        ("wrong".to_string(), c.wrong as f64),
                    ]),
                    ..Default::default()
                })
                .collect(),
            retried: 0,
            disturbed: false,
        });
        ctx.progress.inc();
    }
    let total = |f: fn(&reach::CrateRow) -> usize| report.crates.iter().map(f).sum::<usize>();
    let (channels, exact, wrong) = (
        total(|c| c.channels),
        total(|c| c.exact),
        total(|c| c.wrong),
    );
    let config = serde_json::json!({
        "crates": report.crates.len(),
        "channels": channels,
        "exact": exact,
        "conservative": total(|c| c.conservative),
        "refused": total(|c| c.refused),
        "wrong": wrong,
        "lines": total(|c| c.lines),
        "text": report.to_text(),
    });
    let group = Group {
        id: group_id.into(),
        title: format!(
            "{key} corpus: analysis time per crate, ms per 10,000 lines ({exact} of {channels} \
             channels exact, {wrong} wrong)"
        ),
        params: BTreeMap::new(),
        metric: Metric {
            unit: "ms/10kloc".into(),
            higher_is_better: false,
            op: "line".into(),
        },
        variants: names,
        reps: timed,
    };
    Ok((group, config))
}

/// The targets of the analysis on each corpus: no wrong verdict on either, and on the
/// validation corpus (crates its rules were not tuned on) at least 60% of the channels exact.
const VALIDATION_EXACT: f64 = 0.6;

/// The reach section's headlines: per corpus, the wrong and the exact verdicts against the
/// audited truths. These are counts over the corpus, not samples, so they have no interval: a
/// count meets its target or does not.
fn summary(s: &Section) -> Vec<Line> {
    let mut out = Vec::new();
    for (key, what) in [
        ("tuning", "tuning corpus"),
        ("validation", "validation corpus"),
    ] {
        let c = &s.config[key];
        let (Some(channels), Some(exact), Some(wrong), Some(crates)) = (
            c["channels"].as_u64(),
            c["exact"].as_u64(),
            c["wrong"].as_u64(),
            c["crates"].as_u64(),
        ) else {
            continue;
        };
        let cell = format!("{what}, {crates} crates");
        let met = |ok: bool| Some(if ok { Verdict::Met } else { Verdict::NotMet });
        out.push(Line {
            cell: cell.clone(),
            ours: "the analysis".into(),
            against: "audited truth".into(),
            result: format!("{wrong} wrong of {channels} channels"),
            target: "0 wrong".into(),
            verdict: met(wrong == 0),
        });
        let share = exact as f64 / channels.max(1) as f64;
        let validation = key == "validation";
        out.push(Line {
            cell,
            ours: "the analysis".into(),
            against: "audited truth".into(),
            result: format!("{exact} exact ({:.0}%)", share * 100.0),
            target: if validation {
                format!("≥ {:.0}% exact", VALIDATION_EXACT * 100.0)
            } else {
                String::new()
            },
            verdict: if validation {
                met(share >= VALIDATION_EXACT)
            } else {
                None
            },
        });
    }
    out
}

/// The reach section.
#[derive(Clone, Copy, Debug)]
pub struct ReachBench;

impl Suite for ReachBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        summary(section)
    }

    fn name(&self) -> &'static str {
        "reach"
    }

    fn about(&self) -> &'static str {
        "The static channel analysis over a pinned corpus of real crates: exact, conservative, \
         refused and wrong verdicts against audited truths (WTC's reach table)"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        ReachArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = ReachArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_reach(&a, ctx)
    }

    fn run_child(&self, _spec: &serde_json::Value) -> Result<Sample> {
        Err(Error::new(
            "the reach section runs in the harness's own process",
        ))
    }
}
