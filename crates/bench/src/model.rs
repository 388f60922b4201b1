//! The report's data model, which is also its JSON format (`schema` = [`SCHEMA`]).
//!
//! A [`Report`] holds the host facts, the configuration and one [`Section`] per workload family
//! (`mutex`, later `channel`, `par`, `preload`). A section holds [`Group`]s: one cell of the
//! experiment (say, workload `max`, critical section 0 ns, 4 threads). A group holds every
//! repetition ([`Rep`]), and a repetition one raw [`Sample`] per variant, in the order they ran.
//! Summaries (medians, ratios, intervals) are never stored: they are recomputed from the raw
//! samples, so `compare` can merge reports from several machines.

use crate::counters::HwCounts;
use crate::host::Host;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The schema name written into every report.
pub const SCHEMA: &str = "welltempered-report/1";

/// A whole report: host, configuration, sections.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: String,
    /// Facts about the machine and the build.
    pub host: Host,
    /// The command line and the options in effect.
    pub config: serde_json::Value,
    /// One entry per workload family.
    pub sections: Vec<Section>,
}

impl Report {
    /// Reads a report from a JSON file.
    pub fn load(path: &Path) -> crate::Result<Self> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| crate::Error::new(format!("cannot read {}: {e}", path.display())))?;
        let r: Report = serde_json::from_str(&text)
            .map_err(|e| crate::Error::new(format!("{} is not a report: {e}", path.display())))?;
        if r.schema != SCHEMA {
            return Err(crate::Error::new(format!(
                "{}: schema {:?}, expected {SCHEMA:?}",
                path.display(),
                r.schema
            )));
        }
        Ok(r)
    }

    /// Writes the report as pretty-printed JSON.
    pub fn save(&self, path: &Path) -> crate::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| crate::Error::new(format!("cannot create {}: {e}", dir.display())))?;
        }
        let text =
            serde_json::to_string_pretty(self).map_err(|e| crate::Error::new(e.to_string()))?;
        std::fs::write(path, text)
            .map_err(|e| crate::Error::new(format!("cannot write {}: {e}", path.display())))
    }
}

/// How a group's primary figure reads.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Metric {
    /// Unit shown in tables, e.g. "M/s" or "ns/op".
    pub unit: String,
    /// Whether larger values are better (throughput) or smaller (latency). Ratios are always
    /// reported as speed-ups: above 1 means better than the baseline.
    pub higher_is_better: bool,
    /// What one operation is called in per-operation columns (e.g. "acq").
    pub op: String,
}

impl Metric {
    /// The unit as a table heading says it: a rate in millions names its operation
    /// (`M acq/s`, `M elem/s`); any other unit reads as it is.
    pub fn label(&self) -> String {
        if self.unit == "M/s" && !self.op.is_empty() {
            format!("M {}/s", self.op)
        } else {
            self.unit.clone()
        }
    }
}

/// One workload family's results.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Section {
    /// Section name, also its subcommand (`mutex`).
    pub name: String,
    /// Human title.
    pub title: String,
    /// Variants that ratios are taken against, in table order (e.g. `std`, `parking_lot`).
    pub baselines: Vec<String>,
    /// The group parameter plotted on the x axis of the sweep plots (e.g. `threads`), if any.
    pub sweep: Option<String>,
    /// The section's own options.
    pub config: serde_json::Value,
    /// The cells of the experiment.
    pub groups: Vec<Group>,
}

impl Section {
    /// The section's baselines that `group` ran, in the section's order: a section whose groups
    /// compare against different references (libgomp for constructs, serial for speed-ups) lists
    /// them all, and each group's table shows the ones it has.
    pub fn baselines_for(&self, group: &Group) -> Vec<String> {
        self.baselines
            .iter()
            .filter(|b| group.variants.contains(b))
            .cloned()
            .collect()
    }
}

/// One cell of an experiment: fixed parameters, every variant, every repetition.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Group {
    /// Stable identifier, unique in the section (e.g. `max/cs=0ns/t=4`), used to match groups
    /// across reports.
    pub id: String,
    /// Human title for the table heading.
    pub title: String,
    /// The parameters (e.g. `workload`, `cs_ns`, `threads`).
    pub params: BTreeMap<String, serde_json::Value>,
    /// What [`Sample::value`] measures.
    pub metric: Metric,
    /// Variants in table order.
    pub variants: Vec<String>,
    /// Repetitions, each running every variant once.
    pub reps: Vec<Rep>,
}

/// One repetition: every variant once, in a rotated order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Rep {
    /// The order in which the variants ran.
    pub order: Vec<String>,
    /// One sample per variant (same order as `order`).
    pub samples: Vec<Sample>,
    /// How many earlier attempts at this repetition were discarded as disturbed
    /// ([`crate::disturbance`]).
    #[serde(default)]
    pub retried: u32,
    /// Whether this repetition was still disturbed when the retries ran out: kept, and counted
    /// in the report.
    #[serde(default)]
    pub disturbed: bool,
}

impl Rep {
    /// The sample of `variant` in this repetition.
    pub fn sample(&self, variant: &str) -> Option<&Sample> {
        self.samples.iter().find(|s| s.variant == variant)
    }
}

/// One raw measurement of one variant.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Sample {
    /// The variant measured.
    pub variant: String,
    /// The primary figure, in the group's [`Metric::unit`].
    pub value: f64,
    /// Operations completed in the measured window (e.g. lock acquisitions).
    pub ops: u64,
    /// Length of the measured window, seconds.
    pub wall_s: f64,
    /// CPU time of the process during the run (all threads), seconds; 0 where the section does
    /// not count it (tables then show "n/a" for CPU time and context switches).
    pub cpu_s: f64,
    /// Voluntary context switches during the run.
    pub vcsw: u64,
    /// Involuntary context switches during the run.
    pub ivcsw: u64,
    /// Hardware counters during the run; `null` where not available.
    pub hw: HwCounts,
    /// Operations per thread (empty where not meaningful).
    pub per_thread: Vec<u64>,
    /// Whether the sample was measured in a child process.
    pub child: bool,
    /// Any further figures of the workload.
    pub extra: BTreeMap<String, f64>,
    /// CPU seconds that something other than the measurement took on the machine while this
    /// sample ran ([`crate::disturbance`]); `null` where not measured.
    #[serde(default)]
    pub foreign_cpu_s: Option<f64>,
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn tiny_report() -> Report {
        let sample = |v: &str, x: f64| Sample {
            variant: v.to_string(),
            value: x,
            ops: 1000,
            wall_s: 0.01,
            cpu_s: 0.02,
            vcsw: 3,
            ivcsw: 1,
            hw: HwCounts {
                cycles: None,
                instructions: Some(12.5),
                cache_misses: None,
            },
            per_thread: vec![600, 400],
            child: false,
            extra: BTreeMap::from([("x".to_string(), 1.5)]),
            foreign_cpu_s: Some(0.001),
        };
        Report {
            schema: SCHEMA.to_string(),
            host: Host::default(),
            config: serde_json::json!({"command": "mutex"}),
            sections: vec![Section {
                name: "mutex".into(),
                title: "MutexBench".into(),
                baselines: vec!["std".into()],
                sweep: Some("threads".into()),
                config: serde_json::json!({}),
                groups: vec![Group {
                    id: "max/cs=0ns/t=2".into(),
                    title: "max".into(),
                    params: BTreeMap::from([("threads".to_string(), serde_json::json!(2))]),
                    metric: Metric {
                        unit: "M/s".into(),
                        higher_is_better: true,
                        op: "acq".into(),
                    },
                    variants: vec!["std".into(), "spin".into()],
                    reps: vec![Rep {
                        order: vec!["spin".into(), "std".into()],
                        samples: vec![sample("spin", 2.0), sample("std", 1.0)],
                        ..Default::default()
                    }],
                }],
            }],
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // file system
    fn json_round_trip() {
        let r = tiny_report();
        let text = serde_json::to_string_pretty(&r).unwrap();
        let back: Report = serde_json::from_str(&text).unwrap();
        assert_eq!(r, back);
        assert!(text.contains("\"cycles\": null"));
        let dir = std::env::temp_dir().join(format!("wt-model-{}", std::process::id()));
        let path = dir.join("r.json");
        r.save(&path).unwrap();
        assert_eq!(Report::load(&path).unwrap(), r);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    #[cfg_attr(miri, ignore)] // file system
    fn wrong_schema_is_rejected() {
        let mut r = tiny_report();
        r.schema = "other/9".into();
        let dir = std::env::temp_dir().join(format!("wt-model-bad-{}", std::process::id()));
        let path = dir.join("r.json");
        r.save(&path).unwrap();
        let err = Report::load(&path).unwrap_err().to_string();
        assert!(err.contains("schema"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
