//! The team's configuration and its environment variables, mirroring OpenMP's `OMP_*`
//! (OpenMP 5.2 §21: `OMP_NUM_THREADS`, `OMP_SCHEDULE`, `OMP_WAIT_POLICY`, `OMP_PROC_BIND`).
//!
//! | variable | accepted forms |
//! |---|---|
//! | `WELLTEMPERED_NUM_THREADS` | a positive integer |
//! | `WELLTEMPERED_SCHEDULE` | `static`, `static,N`, `dynamic`, `dynamic,N`, `guided`, `guided,N` (N > 0) |
//! | `WELLTEMPERED_WAIT_POLICY` | `active`, `passive`, `spin-then-sleep`, `spin-then-sleep,MICROS` |
//! | `WELLTEMPERED_PROC_BIND` | `false`/`off`, `true`/`on`, or a core list such as `0,1,3` |
//! | `WELLTEMPERED_LOCK` | a `LockKind` name (`mutex`, `hemlock`, `mcs-park`, ...) |
//! | `WELLTEMPERED_BARRIER` | `central`, `tree`, `dissemination` |
//! | `WELLTEMPERED_REDUCTION` | `linear`, `tree` |
//!
//! Names and values are matched without case and surrounding whitespace; an unset (or empty)
//! variable keeps the default. A malformed value is an [`EnvError`] naming the variable, the
//! value and the accepted forms. Parsing goes through a lookup function
//! ([`Config::from_lookup`]) so that tests need not touch the process environment.

use crate::barrier::BarrierKind;
use crate::pin::Pinning;
use crate::reduce::ReductionKind;
use crate::schedule::Schedule;
use crate::wait::WaitPolicy;
use std::fmt;
use std::time::Duration;
use welltempered_lock::LockKind;

/// A team's configuration: every primitive the runtime uses can be swapped here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The team size, master included (0 counts as 1).
    pub threads: usize,
    /// The schedule of `parallel_for`, `for_range` and `reduce`.
    pub schedule: Schedule,
    /// The barrier of `Context::barrier` and of every implicit barrier.
    pub barrier: BarrierKind,
    /// How team reductions combine.
    pub reduction: ReductionKind,
    /// The lock of `Context::critical`.
    pub lock: LockKind,
    /// Where the team's threads run.
    pub pinning: Pinning,
    /// How threads wait, in barriers and idle between regions.
    pub wait: WaitPolicy,
}

impl Default for Config {
    /// `available_parallelism` threads, `Static`, `Central`, `Tree`, the default mutex, no
    /// pinning, spin-then-sleep with [`crate::DEFAULT_SPIN_WINDOW`].
    fn default() -> Self {
        Config {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            schedule: Schedule::Static,
            barrier: BarrierKind::Central,
            reduction: ReductionKind::Tree,
            lock: LockKind::default(),
            pinning: Pinning::Off,
            wait: WaitPolicy::default(),
        }
    }
}

/// The variables, with their accepted forms.
const VARIABLES: [(&str, &str); 7] = [
    ("WELLTEMPERED_NUM_THREADS", "a positive integer"),
    (
        "WELLTEMPERED_SCHEDULE",
        "static, static,N, dynamic, dynamic,N, guided, guided,N (N a positive integer)",
    ),
    (
        "WELLTEMPERED_WAIT_POLICY",
        "active, passive, spin-then-sleep, spin-then-sleep,MICROS",
    ),
    (
        "WELLTEMPERED_PROC_BIND",
        "false, off, true, on, or a list of CPU numbers such as 0,1,3",
    ),
    ("WELLTEMPERED_LOCK", ""),
    ("WELLTEMPERED_BARRIER", "central, tree, dissemination"),
    ("WELLTEMPERED_REDUCTION", "linear, tree"),
];

impl Config {
    /// The default configuration overridden by the `WELLTEMPERED_*` variables.
    pub fn from_env() -> Result<Config, EnvError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// The default configuration overridden by the variables `lookup` returns (a name to its
    /// value, `None` when unset); the first malformed one is the error.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, EnvError> {
        let (config, mut errors) = Config::from_lookup_lenient(lookup);
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors.swap_remove(0))
        }
    }

    /// Like [`Config::from_lookup`], but a malformed variable keeps its default and is
    /// returned among the errors.
    pub fn from_lookup_lenient(lookup: impl Fn(&str) -> Option<String>) -> (Config, Vec<EnvError>) {
        let mut c = Config::default();
        let mut errors = Vec::new();
        for (name, _) in VARIABLES {
            let Some(raw) = lookup(name) else { continue };
            let v = raw.trim().to_ascii_lowercase();
            if v.is_empty() {
                continue;
            }
            let ok = match name {
                "WELLTEMPERED_NUM_THREADS" => parse_positive(&v).map(|n| c.threads = n),
                "WELLTEMPERED_SCHEDULE" => parse_schedule(&v).map(|s| c.schedule = s),
                "WELLTEMPERED_WAIT_POLICY" => parse_wait(&v).map(|w| c.wait = w),
                "WELLTEMPERED_PROC_BIND" => parse_bind(&v).map(|p| c.pinning = p),
                "WELLTEMPERED_LOCK" => v.parse::<LockKind>().ok().map(|k| c.lock = k),
                "WELLTEMPERED_BARRIER" => BarrierKind::ALL
                    .into_iter()
                    .find(|k| k.name() == v)
                    .map(|k| c.barrier = k),
                "WELLTEMPERED_REDUCTION" => ReductionKind::ALL
                    .into_iter()
                    .find(|k| k.name() == v)
                    .map(|k| c.reduction = k),
                _ => Some(()),
            };
            if ok.is_none() {
                errors.push(EnvError {
                    variable: name.to_owned(),
                    value: raw,
                });
            }
        }
        (c, errors)
    }
}

fn parse_positive(s: &str) -> Option<usize> {
    s.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

fn parse_schedule(s: &str) -> Option<Schedule> {
    let (kind, n) = match s.split_once(',') {
        Some((k, n)) => (k.trim(), Some(parse_positive(n)?)),
        None => (s, None),
    };
    Some(match (kind, n) {
        ("static", None) => Schedule::Static,
        ("static", Some(chunk)) => Schedule::StaticChunked { chunk },
        ("dynamic", n) => Schedule::Dynamic {
            chunk: n.unwrap_or(1),
        },
        ("guided", n) => Schedule::Guided {
            min_chunk: n.unwrap_or(1),
        },
        _ => return None,
    })
}

fn parse_wait(s: &str) -> Option<WaitPolicy> {
    let (kind, micros) = match s.split_once(',') {
        Some((k, n)) => (k.trim(), Some(n.trim().parse::<u64>().ok()?)),
        None => (s, None),
    };
    Some(match (kind, micros) {
        ("active", None) => WaitPolicy::Active,
        ("passive", None) => WaitPolicy::Passive,
        ("spin-then-sleep", None) => WaitPolicy::default(),
        ("spin-then-sleep", Some(us)) => WaitPolicy::SpinThenSleep {
            window: Duration::from_micros(us),
        },
        _ => return None,
    })
}

fn parse_bind(s: &str) -> Option<Pinning> {
    match s {
        "false" | "off" => Some(Pinning::Off),
        "true" | "on" => Some(Pinning::On),
        _ => s
            .split(',')
            .map(|c| c.trim().parse::<usize>().ok())
            .collect::<Option<Vec<_>>>()
            .map(Pinning::Cores),
    }
}

/// A malformed `WELLTEMPERED_*` variable: its name, its value and the forms it accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvError {
    variable: String,
    value: String,
}

impl EnvError {
    /// The variable's name.
    pub fn variable(&self) -> &str {
        &self.variable
    }

    /// The malformed value, as it was set.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The forms the variable accepts.
    pub fn accepted(&self) -> String {
        if self.variable == "WELLTEMPERED_LOCK" {
            let names: Vec<&str> = LockKind::ALL.iter().map(|k| k.name()).collect();
            return names.join(", ");
        }
        VARIABLES
            .iter()
            .find(|(n, _)| *n == self.variable)
            .map_or(String::new(), |(_, a)| (*a).to_owned())
    }
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?} is malformed; accepted: {}",
            self.variable,
            self.value,
            self.accepted()
        )
    }
}

impl std::error::Error for EnvError {}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn with(vars: &[(&str, &str)]) -> Result<Config, EnvError> {
        Config::from_lookup(|name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        })
    }

    #[test]
    fn unset_is_default() {
        assert_eq!(with(&[]), Ok(Config::default()));
        assert_eq!(
            with(&[("WELLTEMPERED_SCHEDULE", " ")]),
            Ok(Config::default())
        );
    }

    #[test]
    fn every_variable_parses() {
        let c = with(&[
            ("WELLTEMPERED_NUM_THREADS", "7"),
            ("WELLTEMPERED_SCHEDULE", "Dynamic, 4"),
            ("WELLTEMPERED_WAIT_POLICY", "spin-then-sleep,250"),
            ("WELLTEMPERED_PROC_BIND", "0,1, 3"),
            ("WELLTEMPERED_LOCK", "hemlock-park"),
            ("WELLTEMPERED_BARRIER", "dissemination"),
            ("WELLTEMPERED_REDUCTION", "linear"),
        ])
        .unwrap();
        assert_eq!(c.threads, 7);
        assert_eq!(c.schedule, Schedule::Dynamic { chunk: 4 });
        assert_eq!(
            c.wait,
            WaitPolicy::SpinThenSleep {
                window: Duration::from_micros(250)
            }
        );
        assert_eq!(c.pinning, Pinning::Cores(vec![0, 1, 3]));
        assert_eq!(c.lock, LockKind::HemlockPark);
        assert_eq!(c.barrier, BarrierKind::Dissemination);
        assert_eq!(c.reduction, ReductionKind::Linear);
    }

    #[test]
    fn schedule_forms() {
        let s = |v: &str| with(&[("WELLTEMPERED_SCHEDULE", v)]).map(|c| c.schedule);
        assert_eq!(s("static"), Ok(Schedule::Static));
        assert_eq!(s("static,8"), Ok(Schedule::StaticChunked { chunk: 8 }));
        assert_eq!(s("dynamic"), Ok(Schedule::Dynamic { chunk: 1 }));
        assert_eq!(s("guided"), Ok(Schedule::Guided { min_chunk: 1 }));
        assert_eq!(s("guided,8"), Ok(Schedule::Guided { min_chunk: 8 }));
        let w = |v: &str| with(&[("WELLTEMPERED_WAIT_POLICY", v)]).map(|c| c.wait);
        assert_eq!(w("active"), Ok(WaitPolicy::Active));
        assert_eq!(w("PASSIVE"), Ok(WaitPolicy::Passive));
        assert_eq!(w("spin-then-sleep"), Ok(WaitPolicy::default()));
        let b = |v: &str| with(&[("WELLTEMPERED_PROC_BIND", v)]).map(|c| c.pinning);
        assert_eq!(b("true"), Ok(Pinning::On));
        assert_eq!(b("on"), Ok(Pinning::On));
        assert_eq!(b("false"), Ok(Pinning::Off));
        assert_eq!(b("off"), Ok(Pinning::Off));
        assert_eq!(b("2"), Ok(Pinning::Cores(vec![2])));
    }

    #[test]
    fn every_variable_rejects_malformed_values() {
        let bad = [
            ("WELLTEMPERED_NUM_THREADS", "0", "positive integer"),
            ("WELLTEMPERED_NUM_THREADS", "-2", "positive integer"),
            ("WELLTEMPERED_NUM_THREADS", "four", "positive integer"),
            ("WELLTEMPERED_SCHEDULE", "auto", "dynamic,N"),
            ("WELLTEMPERED_SCHEDULE", "dynamic,0", "dynamic,N"),
            ("WELLTEMPERED_SCHEDULE", "dynamic,x", "guided,N"),
            ("WELLTEMPERED_SCHEDULE", "static,4,5", "static,N"),
            (
                "WELLTEMPERED_WAIT_POLICY",
                "sleepy",
                "spin-then-sleep,MICROS",
            ),
            ("WELLTEMPERED_WAIT_POLICY", "active,5", "passive"),
            ("WELLTEMPERED_WAIT_POLICY", "spin-then-sleep,-1", "active"),
            ("WELLTEMPERED_PROC_BIND", "maybe", "0,1,3"),
            ("WELLTEMPERED_PROC_BIND", "0,,1", "true"),
            ("WELLTEMPERED_LOCK", "no-such-lock", "hemlock-park"),
            ("WELLTEMPERED_BARRIER", "butterfly", "dissemination"),
            ("WELLTEMPERED_REDUCTION", "parallel", "linear, tree"),
        ];
        for (var, value, form) in bad {
            let e = with(&[(var, value)]).unwrap_err();
            assert_eq!(e.variable(), var);
            assert_eq!(e.value(), value);
            let msg = e.to_string();
            assert!(
                msg.contains(var) && msg.contains(value) && msg.contains(form),
                "{msg}"
            );
        }
    }

    #[test]
    fn lenient_keeps_the_good_ones() {
        let (c, errors) = Config::from_lookup_lenient(|name| match name {
            "WELLTEMPERED_NUM_THREADS" => Some("3".into()),
            "WELLTEMPERED_BARRIER" => Some("nope".into()),
            _ => None,
        });
        assert_eq!(c.threads, 3);
        assert_eq!(c.barrier, BarrierKind::Central);
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].variable(), "WELLTEMPERED_BARRIER");
    }
}
