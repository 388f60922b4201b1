//! The options, the plan they give, and the groups of a run.

use super::*;

/// Options of `welltempered channel` (lists are comma-separated).
#[derive(Args, Clone, Debug, Default)]
pub struct ChannelArgs {
    /// Workloads [default: all; quick: w1,w9,w10,small,async,onecore,memory,first with fewer
    /// cells].
    #[arg(long, value_delimiter = ',', value_enum)]
    pub workloads: Option<Vec<Workload>>,
    /// Channels [default: all; quick: a subset]. Unknown names list the valid ones.
    #[arg(long, value_delimiter = ',')]
    pub channels: Option<Vec<String>>,
    /// Measured window of each run, e.g. 200ms, 1.5s or 1m [default: 200ms; quick: 100ms].
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Repetitions (each runs every channel once) [default: 5, in --quick too].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
    /// Run every measurement in a child process.
    #[arg(long)]
    pub isolate: bool,
    /// Allocators for the workloads whose elements go through the heap (W1, W11, memory):
    /// system, mimalloc, jemalloc. A channel under a non-system allocator runs in a child process
    /// as `<channel>@<allocator>` [default: system,mimalloc,jemalloc; quick: system].
    #[arg(long, value_delimiter = ',')]
    pub allocators: Option<Vec<String>>,
    /// Foreign load beside the measurements, one or more levels: N (N busy processes spinning,
    /// not pinned; 0: none) or mixed (one process starting and joining short-lived threads that
    /// do a little work each, as a parallel build does). Every group runs once per level, the
    /// load processes started before its measurement and stopped after it [default: 0; quick:
    /// 0,2 for small, 0 for the other workloads].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_load)]
    pub load: Option<Vec<Load>>,
}

/// The options in effect after defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Channels in table order.
    pub channels: Vec<String>,
    /// Workloads in report order.
    pub workloads: Vec<Workload>,
    /// Quick mode: fewer cells per workload.
    pub quick: bool,
    /// Window per run, nanoseconds.
    pub duration_ns: u64,
    /// Repetitions.
    pub reps: usize,
    /// Whether runs go to child processes.
    pub isolate: bool,
    /// Calibrated busy-loop iterations per nanosecond.
    pub busy_iters_per_ns: f64,
    /// Allocators of the heap-bound workloads; `system` first.
    #[serde(default)]
    pub allocators: Vec<String>,
    /// Load levels of every workload but `small`, in order.
    #[serde(default = "quiet_only")]
    pub load: Vec<Load>,
    /// Load levels of the `small` workload, in order.
    #[serde(default = "quiet_only")]
    pub load_small: Vec<Load>,
}

pub(super) fn quiet_only() -> Vec<Load> {
    vec![Load::QUIET]
}

impl Plan {
    /// The load levels the workload called `workload` runs under, in order.
    pub fn loads(&self, workload: &str) -> &[Load] {
        if workload == Workload::Small.name() {
            &self.load_small
        } else {
            &self.load
        }
    }
}

impl ChannelArgs {
    /// Applies the defaults (quick or full) and validates the names.
    pub fn plan(&self, quick: bool) -> Result<Plan> {
        let channels: Vec<String> = match &self.channels {
            Some(l) => {
                let mut out: Vec<String> = Vec::new();
                for given in l.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
                    let name = channel_entry(given)?.name;
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_string());
                    }
                }
                if out.is_empty() {
                    return Err(Error::new("--channels names no channel"));
                }
                out
            }
            None if quick => QUICK_CHANNELS.iter().map(|n| n.to_string()).collect(),
            None => channels().iter().map(|e| e.name.to_string()).collect(),
        };
        let mut workloads = self.workloads.clone().unwrap_or_else(|| {
            if quick {
                vec![
                    Workload::W1,
                    Workload::W9,
                    Workload::W10,
                    Workload::Small,
                    Workload::Async,
                    Workload::Onecore,
                    Workload::Memory,
                    Workload::First,
                ]
            } else {
                Workload::ALL.to_vec()
            }
        });
        workloads.sort_by_key(|w| Workload::ALL.iter().position(|a| a == w));
        workloads.dedup();
        let duration =
            self.duration
                .unwrap_or(Duration::from_millis(if quick { 100 } else { 200 }));
        if duration.is_zero() {
            return Err(Error::new("--duration must be more than 0"));
        }
        let mut allocators = vec!["system".to_string()];
        let chosen: Vec<String> = match &self.allocators {
            Some(a) => a.iter().map(|s| s.trim().to_string()).collect(),
            None if quick => Vec::new(),
            None => crate::alloc::ALLOCATORS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        for a in chosen.into_iter().filter(|a| !a.is_empty()) {
            if !crate::alloc::ALLOCATORS.contains(&a.as_str()) {
                return Err(Error::new(format!(
                    "unknown allocator {a:?}; valid allocators: {}",
                    crate::alloc::ALLOCATORS.join(", ")
                )));
            }
            if !allocators.contains(&a) {
                allocators.push(a);
            }
        }
        let (load, load_small) = match &self.load {
            Some(levels) => {
                let mut out: Vec<Load> = Vec::new();
                for &l in levels {
                    if !out.contains(&l) {
                        out.push(l);
                    }
                }
                if out.is_empty() {
                    return Err(Error::new("--load names no load level"));
                }
                (out.clone(), out)
            }
            None if quick => (quiet_only(), vec![Load::QUIET, Load::Busy(2)]),
            None => (quiet_only(), quiet_only()),
        };
        Ok(Plan {
            allocators,
            channels,
            load,
            load_small,
            workloads,
            quick,
            duration_ns: duration.as_nanos() as u64,
            reps: self.reps.unwrap_or(crate::sections::REPS),
            isolate: self.isolate,
            busy_iters_per_ns: busy_iters_per_ns(),
        })
    }
}

pub(super) fn fmt_ns(ns: u64) -> String {
    match ns {
        0 => "0".to_string(),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1000 == 0 => format!("{}us", n / 1000),
        n => format!("{n}ns"),
    }
}

/// One group of the plan, not yet run.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The group (no repetitions yet).
    pub group: Group,
    /// The measurement, less its channel.
    pub spec: Spec,
    /// The foreign load beside the measurement.
    pub load: Load,
}

/// The section's groups, not yet run. Channels that cannot take a cell's topology (several
/// senders or receivers) are left out of it; a cell with no channel left is dropped.
pub fn groups(plan: &Plan) -> Vec<Cell> {
    let mut planner = Planner::new(plan);
    for &w in &plan.workloads {
        planner.workload(w);
    }
    let mut out = planner.cells;
    // The allocator factor: the heap-bound channels again under each other allocator.
    for cell in &mut out {
        if !matches!(cell.spec.workload.as_str(), "w1" | "w11" | "memory") {
            continue;
        }
        let heap: Vec<String> = cell
            .group
            .variants
            .iter()
            .filter(|v| HEAP_CHANNELS.contains(&v.as_str()))
            .cloned()
            .collect();
        for a in plan.allocators.iter().filter(|a| *a != "system") {
            for v in &heap {
                cell.group.variants.push(format!("{v}@{a}"));
            }
        }
    }
    // The load factor: each cell once per load level of its workload, its levels one after the
    // other. The quiet group keeps the cell's id.
    let mut loaded = Vec::with_capacity(out.len());
    for cell in out {
        let levels = plan.loads(&cell.spec.workload);
        let marked = levels.iter().any(|l| !l.is_quiet());
        for &load in levels {
            let mut c = cell.clone();
            c.group
                .params
                .insert("load".into(), serde_json::json!(load.to_string()));
            if !load.is_quiet() {
                c.group.id.push_str(&format!("/load={load}"));
            }
            if marked {
                c.group.title.push_str(&format!(", {}", load.describe()));
            }
            c.load = load;
            loaded.push(c);
        }
    }
    loaded
}

/// The channels whose elements or segments go through the heap as they flow (unbounded lists
/// and deques): the allocator factor and the memory workload apply to them.
pub const HEAP_CHANNELS: &[&str] = &[
    "ours",
    "crossbeam",
    "std",
    "flume",
    "kanal",
    "crossbeam-queue",
];

/// Splits an `@allocator` suffix off a variant name.
pub fn split_allocator(name: &str) -> (&str, Option<&str>) {
    match name.split_once('@') {
        Some((c, a)) => (c, Some(a)),
        None => (name, None),
    }
}
