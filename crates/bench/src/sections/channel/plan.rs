//! The options, the plan they give, and the groups of a run.

use super::*;

/// Options of `welltempered channel` (lists are comma-separated).
#[derive(Args, Clone, Debug, Default)]
pub struct ChannelArgs {
    /// Workloads [default: all; quick: w1,w9,w10,small,onecore,memory,first with fewer cells].
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
    let q = plan.quick;
    let iters = |ns: u64| {
        if ns == 0 {
            0
        } else {
            ((ns as f64 * plan.busy_iters_per_ns).round() as u64).max(1)
        }
    };
    let base = Spec {
        channel: String::new(),
        workload: String::new(),
        bytes: 8,
        producers: 1,
        consumers: 1,
        batch: 1,
        limit: IN_FLIGHT,
        duration_ns: plan.duration_ns,
        ..Spec::default()
    };
    let throughput = Metric {
        unit: "M/s".into(),
        higher_is_better: true,
        op: "elem".into(),
    };
    let mut out = Vec::new();
    let mut push = |w: Workload,
                    id: String,
                    title: String,
                    x: Option<(&str, serde_json::Value)>,
                    mut params: BTreeMap<String, serde_json::Value>,
                    metric: &Metric,
                    spec: Spec,
                    variants: Vec<String>| {
        if variants.is_empty() {
            return;
        }
        params.insert("workload".into(), serde_json::json!(w.name()));
        if let Some((name, x)) = x {
            params.insert("x".into(), x);
            params.insert(
                crate::output::SWEEP_NAME_PARAM.into(),
                serde_json::json!(name),
            );
        }
        out.push(Cell {
            group: Group {
                id,
                title,
                params,
                metric: metric.clone(),
                variants,
                reps: Vec::new(),
            },
            spec: Spec {
                workload: w.name().into(),
                ..spec
            },
            load: Load::QUIET,
        });
    };
    let fit = |multi_tx: bool, multi_rx: bool| -> Vec<String> {
        plan.channels
            .iter()
            .filter(|c| {
                channel_entry(c)
                    .map(|e| (e.multi_tx || !multi_tx) && (e.multi_rx || !multi_rx))
                    .unwrap_or(false)
            })
            .cloned()
            .collect()
    };
    for &w in &plan.workloads {
        match w {
            Workload::W1 => {
                let sizes: &[usize] = if q { &[8, 64] } else { &[8, 64, 256] };
                for &b in sizes {
                    push(
                        w,
                        format!("w1/{b}B"),
                        format!("W1 SPSC hand-over, {b}-byte elements"),
                        Some(("element bytes", serde_json::json!(b))),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            bytes: b,
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W2 => {
                let rates: &[u64] = if q {
                    &[100_000]
                } else {
                    &[10_000, 100_000, 1_000_000]
                };
                let metric = Metric {
                    unit: "ns".into(),
                    higher_is_better: false,
                    op: "elem".into(),
                };
                for &r in rates {
                    push(
                        w,
                        format!("w2/rate={r}"),
                        format!("W2 latency from due time (median; p99 in extra), {r}/s"),
                        Some(("target rate (elements/s)", serde_json::json!(r))),
                        BTreeMap::new(),
                        &metric,
                        Spec {
                            rate: r,
                            latency: true,
                            limit: 0,
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W3 => {
                let grains: &[u64] = if q {
                    &[0, 10_000]
                } else {
                    &[0, 1_000, 10_000, 100_000, 1_000_000]
                };
                for &g in grains {
                    push(
                        w,
                        format!("w3/grain={}", fmt_ns(g)),
                        format!(
                            "W3 three-stage pipeline, 64-byte records, {} per stage",
                            fmt_ns(g)
                        ),
                        Some(("work per stage (ns)", serde_json::json!(g))),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            bytes: 64,
                            pipeline: true,
                            work_iters: iters(g),
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W7 => {
                let ks: &[usize] = if q {
                    &[1, 64]
                } else {
                    &[1, 4, 16, 64, 256, 1024]
                };
                for &k in ks {
                    push(
                        w,
                        format!("w7/k={k}"),
                        format!("W7 batching, {k} elements per send and per receive"),
                        Some(("elements per batch", serde_json::json!(k))),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            batch: k,
                            limit: IN_FLIGHT.max(4 * k as u64),
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W9 => {
                let shapes: &[(usize, usize)] = if q {
                    &[(2, 1), (2, 2)]
                } else {
                    &[(2, 1), (1, 2), (2, 2), (4, 4)]
                };
                for &(p, c) in shapes {
                    push(
                        w,
                        format!("w9/{p}:{c}"),
                        format!("W9 {p} producers, {c} consumers"),
                        None,
                        BTreeMap::from([(
                            "shape".to_string(),
                            serde_json::json!(format!("{p}:{c}")),
                        )]),
                        &throughput,
                        Spec {
                            producers: p,
                            consumers: c,
                            ..base.clone()
                        },
                        fit(p > 1, c > 1),
                    );
                }
                if !q {
                    push(
                        w,
                        "w9/pairwise-4".into(),
                        "W9 pairwise: 4 threads each send one, then receive one".into(),
                        None,
                        BTreeMap::from([("shape".to_string(), serde_json::json!("pairwise-4"))]),
                        &throughput,
                        Spec {
                            producers: 4,
                            consumers: 4,
                            pairwise: true,
                            limit: 0,
                            ..base.clone()
                        },
                        fit(true, true),
                    );
                }
            }
            Workload::W10 => {
                if plan.channels.iter().any(|c| c == "ours") {
                    let mut variants: Vec<String> =
                        ABLATION.iter().map(|s| s.to_string()).collect();
                    if plan.channels.iter().any(|c| c == "crossbeam") {
                        variants.push("crossbeam".into());
                    }
                    push(
                        w,
                        "w10".into(),
                        "W10 ablation, 1:1: plain, shared producer side (+tx), shared consumer \
                         side (+rx), both"
                            .into(),
                        None,
                        BTreeMap::new(),
                        &throughput,
                        base.clone(),
                        variants,
                    );
                }
            }
            Workload::W11 => {
                let workers: &[usize] = if q { &[2] } else { &[1, 2, 4, 8] };
                let tasks: &[u64] = if q { &[100] } else { &[0, 100, 1000] };
                for &t in tasks {
                    for &n in workers {
                        push(
                            w,
                            format!("w11/task={}/workers={n}", fmt_ns(t)),
                            format!(
                                "W11 thread pool, 1 submitter, {n} workers, {} tasks",
                                fmt_ns(t)
                            ),
                            Some(("workers", serde_json::json!(n))),
                            BTreeMap::from([("task_ns".to_string(), serde_json::json!(t))]),
                            &throughput,
                            Spec {
                                consumers: n,
                                work_iters: iters(t),
                                limit: POOL_IN_FLIGHT,
                                ..base.clone()
                            },
                            fit(false, n > 1),
                        );
                    }
                }
            }
            Workload::Small => {
                for cap in SMALL_CAPACITIES {
                    let kind = if cap == 0 {
                        "rendezvous bounded(0)".to_string()
                    } else {
                        format!("bounded({cap})")
                    };
                    for senders in [1usize, 8] {
                        let variants = fit(senders > 1, false)
                            .into_iter()
                            .filter(|c| small_channels().any(|s| s == c.as_str()))
                            .collect();
                        push(
                            w,
                            format!("small/cap={cap}/{senders}:1"),
                            format!(
                                "small: {kind}, {senders} sender{} : 1 receiver",
                                if senders == 1 { "" } else { "s" }
                            ),
                            Some(("senders", serde_json::json!(senders))),
                            BTreeMap::from([("capacity".to_string(), serde_json::json!(cap))]),
                            &throughput,
                            Spec {
                                producers: senders,
                                consumers: 1,
                                capacity: Some(cap),
                                limit: 0,
                                ..base.clone()
                            },
                            variants,
                        );
                    }
                }
            }
            Workload::Select => {
                for k in SELECT_WIDTHS {
                    for per_channel in [1usize, 2] {
                        let variants = plan
                            .channels
                            .iter()
                            .filter(|c| SELECT_CHANNELS.contains(&c.as_str()))
                            .cloned()
                            .collect();
                        push(
                            w,
                            format!("select/{k}ch/{per_channel}p"),
                            format!(
                                "select! over {k} bounded({BOUND}) channels, {per_channel} \
                                 producer{} each : 1 selecting consumer",
                                if per_channel == 1 { "" } else { "s" }
                            ),
                            Some(("producers per channel", serde_json::json!(per_channel))),
                            BTreeMap::from([("channels".to_string(), serde_json::json!(k))]),
                            &throughput,
                            Spec {
                                producers: per_channel,
                                consumers: 1,
                                select: k,
                                limit: 0,
                                ..base.clone()
                            },
                            variants,
                        );
                    }
                }
            }
            Workload::Memory => {
                let metric = Metric {
                    unit: "x idle".into(),
                    higher_is_better: false,
                    op: "burst".into(),
                };
                push(
                    w,
                    "memory/burst=1e6".into(),
                    "memory: resident memory after 10^6 queued 8-byte elements are drained, over \
                     the idle channel's (whole process)"
                        .into(),
                    None,
                    BTreeMap::new(),
                    &metric,
                    Spec {
                        burst: 1_000_000,
                        ..base.clone()
                    },
                    plan.channels
                        .iter()
                        .filter(|c| HEAP_CHANNELS.contains(&c.as_str()))
                        .cloned()
                        .collect(),
                );
            }
            Workload::First => {
                let metric = Metric {
                    unit: "us".into(),
                    higher_is_better: false,
                    op: "channel".into(),
                };
                for how in FirstUse::ALL {
                    push(
                        w,
                        format!("first/{}", how.name()),
                        how.title(),
                        None,
                        BTreeMap::from([("first".to_string(), serde_json::json!(how.name()))]),
                        &metric,
                        Spec {
                            first: Some(how),
                            limit: 0,
                            ..base.clone()
                        },
                        plan.channels
                            .iter()
                            .filter(|c| {
                                how == FirstUse::OneThread
                                    || channel_entry(c).is_ok_and(|e| e.blocks)
                            })
                            .cloned()
                            .collect(),
                    );
                }
            }
            Workload::Onecore => {
                push(
                    w,
                    "onecore/8B".into(),
                    "one core: W1 at 8 bytes, both ends pinned to one CPU".into(),
                    None,
                    BTreeMap::new(),
                    &throughput,
                    Spec {
                        pin: true,
                        ..base.clone()
                    },
                    fit(false, false),
                );
            }
        }
    }
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
