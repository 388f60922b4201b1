//! The paired, interleaved runner (WTC's method) and the child-process protocol.
//!
//! Each repetition runs every variant once; the order is rotated by one place per repetition, so
//! no variant always runs first (cold caches, turbo) or last (a warmed-up, thermally throttled
//! machine). Ratios are taken within a repetition ([`crate::summary`]).
//!
//! A variant may run in a child process: the binary re-executes itself
//! ([`std::env::current_exe`]) as `welltempered __child <section> <spec-json>`, the child runs one
//! measurement and prints one [`Sample`] as JSON on its last stdout line.

use crate::disturbance;
use crate::model::{Rep, Sample};
use crate::{Error, Result};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::process::Command;

/// The order of the variants in repetition `rep`: `variants` rotated left by `rep` places.
pub fn rotated_order<T: Clone>(variants: &[T], rep: usize) -> Vec<T> {
    let n = variants.len();
    (0..n).map(|i| variants[(i + rep) % n].clone()).collect()
}

/// Repetition counts from this one up run adaptively: while a paired ratio's interval is wide,
/// more repetitions are run, up to half as many again as asked for (the time budget: 5
/// become at most 7). Smaller counts (a smoke test's `--reps 1`) run exactly as asked.
pub const ADAPTIVE_FROM: usize = 5;

/// An interval is narrow enough when its width is at most this fraction of its median.
pub const NARROW_ENOUGH: f64 = 0.5;

/// Whether every variant's paired ratio to the first variant has a narrow enough interval in
/// `reps` (a figure that is not positive everywhere is judged on nothing and counts as narrow:
/// a delay-subtracted cost near zero has no relative width).
pub fn intervals_narrow(variants: &[String], reps: &[Rep]) -> bool {
    let Some(base) = variants.first() else {
        return true;
    };
    variants.iter().skip(1).all(|v| {
        let ratios: Vec<f64> = reps
            .iter()
            .filter_map(|r| Some(r.sample(v)?.value / r.sample(base)?.value))
            .collect();
        if ratios.iter().any(|x| !(x.is_finite() && *x > 0.0)) {
            return true;
        }
        crate::stats::estimate(&ratios).is_none_or(|e| (e.hi - e.lo) <= NARROW_ENOUGH * e.median)
    })
}

/// Runs `reps` repetitions of every variant, rotating the order, and returns the raw samples.
/// `run` measures one variant once; its error aborts the whole group.
///
/// Each sample records the foreign CPU time it saw ([`crate::disturbance`]). A repetition with
/// a disturbed sample is run again, whole (its ratios are taken within it), at most
/// [`disturbance::RETRIES`] times; the attempt kept says how many were discarded and whether it
/// was still disturbed.
///
/// From [`ADAPTIVE_FROM`] repetitions up, the stop is adaptive: after the repetitions asked
/// for, more are run one at a time while [`intervals_narrow`] says no, up to half as many
/// again.
pub fn run_paired(
    variants: &[String],
    reps: usize,
    progress: &Progress,
    mut run: impl FnMut(&str) -> Result<Sample>,
) -> Result<Vec<Rep>> {
    let most = if reps >= ADAPTIVE_FROM {
        reps + reps / 2
    } else {
        reps
    };
    let mut out = Vec::with_capacity(reps);
    for r in 0..most {
        if r >= reps {
            if intervals_narrow(variants, &out) {
                break;
            }
            progress.add_steps(variants.len() as u64);
        }
        let order = rotated_order(variants, r);
        let mut retried = 0;
        loop {
            let mut samples = Vec::with_capacity(order.len());
            let mut disturbed = false;
            for v in &order {
                progress.message(v);
                let meter = disturbance::Meter::start();
                let mut s = run(v)?;
                if let Some((foreign, wall)) = meter.and_then(|m| m.read()) {
                    s.foreign_cpu_s = Some(foreign);
                    disturbed |= !disturbance::under_deliberate_load()
                        && disturbance::is_disturbed(foreign, wall);
                }
                s.variant = v.clone();
                samples.push(s);
                progress.inc();
            }
            if disturbed && retried < disturbance::RETRIES {
                retried += 1;
                progress.add_steps(order.len() as u64);
                continue;
            }
            out.push(Rep {
                order: order.clone(),
                samples,
                retried,
                disturbed,
            });
            break;
        }
    }
    Ok(out)
}

/// The hidden subcommand a child process runs.
pub const CHILD_COMMAND: &str = "__child";

/// Measures one variant in a child process: runs this executable as
/// `__child <section> <spec>` and parses the [`Sample`] it prints.
pub fn run_in_child(section: &str, spec: &serde_json::Value) -> Result<Sample> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot find the harness executable: {e}")))?;
    run_child_exe(&exe, section, spec)
}

/// [`run_in_child`] with these environment variables set in the child (e.g. the allocator it
/// should use).
pub fn run_in_child_env(
    section: &str,
    spec: &serde_json::Value,
    env: &[(&str, &str)],
) -> Result<Sample> {
    let exe = std::env::current_exe()
        .map_err(|e| Error::new(format!("cannot find the harness executable: {e}")))?;
    run_child_exe_env(&exe, section, spec, env)
}

/// [`run_in_child`] with an explicit executable (tests use the built binary).
pub fn run_child_exe(
    exe: &std::path::Path,
    section: &str,
    spec: &serde_json::Value,
) -> Result<Sample> {
    run_child_exe_env(exe, section, spec, &[])
}

/// [`run_child_exe`] with environment variables.
pub fn run_child_exe_env(
    exe: &std::path::Path,
    section: &str,
    spec: &serde_json::Value,
    env: &[(&str, &str)],
) -> Result<Sample> {
    let out = Command::new(exe)
        .envs(env.iter().copied())
        .arg(CHILD_COMMAND)
        .arg(section)
        .arg(spec.to_string())
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| Error::new(format!("cannot start {}: {e}", exe.display())))?;
    if !out.status.success() {
        return Err(Error::new(format!(
            "child {section} run failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    parse_child_output(&String::from_utf8_lossy(&out.stdout))
}

/// Parses the child's stdout: the last non-empty line is the sample.
pub fn parse_child_output(stdout: &str) -> Result<Sample> {
    let line = stdout
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .ok_or_else(|| Error::new("child printed no sample"))?;
    let mut s: Sample = serde_json::from_str(line)
        .map_err(|e| Error::new(format!("child printed a bad sample ({e}): {line}")))?;
    s.child = true;
    Ok(s)
}

/// A progress bar on stderr; hidden when stderr is not a terminal or when asked to be quiet.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
}

impl Progress {
    /// A bar with no steps yet; visible only when `visible` and stderr is a terminal.
    pub fn new(visible: bool) -> Self {
        let target = if visible && std::io::stderr().is_terminal() {
            ProgressDrawTarget::stderr()
        } else {
            ProgressDrawTarget::hidden()
        };
        let bar = ProgressBar::with_draw_target(Some(0), target);
        if let Ok(style) =
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} eta {eta} {msg}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Self { bar }
    }

    /// A bar that never draws.
    pub fn hidden() -> Self {
        Self::new(false)
    }

    /// Announces `n` more steps.
    pub fn add_steps(&self, n: u64) {
        self.bar.inc_length(n);
    }

    /// Sets the message shown beside the bar.
    pub fn message(&self, msg: &str) {
        self.bar.set_message(msg.to_string());
    }

    /// Sets the section/group prefix of the message.
    pub fn stage(&self, stage: &str) {
        self.bar.set_prefix(stage.to_string());
        self.bar.set_message(stage.to_string());
    }

    /// One step done.
    pub fn inc(&self) {
        self.bar.inc(1);
    }

    /// Steps done so far.
    pub fn position(&self) -> u64 {
        self.bar.position()
    }

    /// Removes the bar.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rotation_visits_every_position() {
        let v: Vec<String> = ["a", "b", "c"].iter().map(|s| s.to_string()).collect();
        assert_eq!(rotated_order(&v, 0), v);
        assert_eq!(rotated_order(&v, 1), ["b", "c", "a"]);
        assert_eq!(rotated_order(&v, 2), ["c", "a", "b"]);
        assert_eq!(rotated_order(&v, 3), v);
        // Over n repetitions each variant runs first exactly once.
        let firsts: Vec<String> = (0..3).map(|r| rotated_order(&v, r)[0].clone()).collect();
        assert_eq!(firsts, ["a", "b", "c"]);
    }

    #[test]
    fn paired_runner_runs_each_variant_once_per_rep() {
        let v: Vec<String> = ["x", "y"].iter().map(|s| s.to_string()).collect();
        let p = Progress::hidden();
        p.add_steps(6);
        let mut calls = Vec::new();
        let reps = run_paired(&v, 3, &p, |name| {
            calls.push(name.to_string());
            Ok(Sample {
                value: if name == "x" { 1.0 } else { 2.0 },
                ..Default::default()
            })
        })
        .unwrap();
        assert_eq!(calls, ["x", "y", "y", "x", "x", "y"]);
        assert_eq!(reps.len(), 3);
        assert_eq!(p.position(), 6);
        for r in &reps {
            assert_eq!(r.sample("y").unwrap().value, 2.0);
            assert_eq!(r.samples.len(), 2);
        }
    }

    #[test]
    fn wide_intervals_get_more_repetitions_up_to_a_bound() {
        let v: Vec<String> = ["x", "y"].iter().map(|s| s.to_string()).collect();
        let p = Progress::hidden();
        // Steady: exactly the repetitions asked for.
        let steady = run_paired(&v, 5, &p, |name| {
            Ok(Sample {
                value: if name == "x" { 1.0 } else { 2.0 },
                ..Default::default()
            })
        })
        .unwrap();
        assert_eq!(steady.len(), 5);
        // y alternates between 1 and 3 times x: wide, so up to half as many again.
        let mut y_runs = 0;
        let noisy = run_paired(&v, 5, &p, |name| {
            if name == "y" {
                y_runs += 1;
            }
            Ok(Sample {
                value: match name {
                    "x" => 1.0,
                    _ if y_runs % 2 == 0 => 1.0,
                    _ => 3.0,
                },
                ..Default::default()
            })
        })
        .unwrap();
        assert_eq!(noisy.len(), 7);
        // Under the adaptive threshold, as asked, however wide.
        let mut y_runs = 0;
        let few = run_paired(&v, 3, &p, |name| {
            if name == "y" {
                y_runs += 1;
            }
            Ok(Sample {
                value: if name == "y" && y_runs % 2 == 0 {
                    3.0
                } else {
                    1.0
                },
                ..Default::default()
            })
        })
        .unwrap();
        assert_eq!(few.len(), 3);
    }

    #[test]
    fn paired_runner_stops_at_first_error() {
        let v = vec!["x".to_string()];
        let err = run_paired(&v, 2, &Progress::hidden(), |_| Err(Error::new("boom"))).unwrap_err();
        assert_eq!(err.to_string(), "boom");
    }

    #[test]
    fn child_output_parsing() {
        let s = Sample {
            variant: "std".into(),
            value: 3.5,
            ..Default::default()
        };
        let text = format!("noise\n{}\n\n", serde_json::to_string(&s).unwrap());
        let back = parse_child_output(&text).unwrap();
        assert_eq!(back.value, 3.5);
        assert!(back.child);
        assert!(parse_child_output("").is_err());
        assert!(parse_child_output("{not json").is_err());
    }
}
