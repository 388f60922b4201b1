//! The channel workloads of WTC (W1, W2, W3, W7, W9, W10, W11 and the one-core mode), and
//! small bounded channels, run on the `welltempered-channel` crate and on the usual Rust channels
//! and queues.
//!
//! - `w1`: SPSC hand-over of 8, 64 and 256-byte elements, one producer and one consumer.
//! - `w2`: latency. The producer sends element `i` when it falls due (`i / rate` after the
//!   start); the consumer records the time from the due time to its arrival. Median (the
//!   primary figure) and p99 (`extra.p99_ns`), at several rates.
//! - `w3`: a three-stage pipeline of 64-byte records (source, transform, sink over two
//!   channels), each stage doing a calibrated amount of work per record: 0 to 1 ms (the grain
//!   sweep).
//! - `w7`: batching, `K` = 1 to 1024 elements per send and per receive (the channel's
//!   `send_iter`/`recv_many` where it has them, else a loop of single operations).
//! - `w9`: many threads: producers:consumers 2:1, 1:2, 2:2, 4:4, and the pairwise workload in
//!   which every thread sends one element and then receives one, on one shared channel.
//! - `w10`: the ablation of our channel's claiming disciplines. A side turns shared when its
//!   handle is cloned, so 1:1 runs plain (`ours`), with an idle extra sender alive (`ours+tx`,
//!   shared producer side), with an idle extra receiver (`ours+rx`, shared consumer side), and
//!   both (`ours+tx+rx`).
//! - `w11`: a thread pool: one submitter, 1 to 8 workers taking tasks of 0 to 1000 ns from one
//!   channel.
//! - `small`: the smallest bounded channels, a rendezvous (`bounded(0)`: each send waits for a
//!   receive) and `bounded(1)`, with 1 sender : 1 receiver and 8 senders : 1 receiver, 8-byte
//!   elements. The channels are ours (`welltempered_channel::bounded`), crossbeam-channel's
//!   `bounded`, flume's `bounded` and std's `sync_channel`, each at the group's capacity
//!   ([`small_channels`]; [`Spec::capacity`]), so every row of a group, and its ratio to crossbeam,
//!   has the same capacity and topology. The groups' `x` is the number of senders.
//! - `select`: one consumer receives with `select!` over 2 or 4 bounded channels, fed by 1 or 2
//!   producers each, and one producer sends with `select!` over 2 or 4 bounded channels, each
//!   drained by its own consumer; on our channel and crossbeam-channel (`select.rs`).
//! - `async`: tasks under tokio, a ping-pong and a fan-in, on the current-thread and the
//!   multi-thread runtime; on our channel, flume, kanal and tokio's `mpsc` (`tasks.rs`).
//! - `onecore`: W1 (8 bytes) with both threads pinned to one CPU (the first this process may
//!   use: CPU 0 on an unrestricted machine).
//!
//! Throughput is in millions of elements per second: the elements received while the window
//! was open, over its length. Every run checks delivery: each element carries its producer and
//! its sequence number; every consumer must see each producer's numbers strictly increasing
//! (FIFO per producer), and in the end the count and the sum of the numbers received from each
//! producer must equal what it sent (exactly once). Larger elements also carry the complement of
//! their tag in their last word. A mismatch fails the run.
//!
//! Unbounded channels would let a fast producer pile up an arbitrary backlog (memory, and a long
//! drain after the window); producers therefore keep at most [`IN_FLIGHT`] elements ahead of the
//! consumers (W11: [`POOL_IN_FLIGHT`]), reading the consumers' counts every 64 sends. Bounded
//! variants hold [`BOUND`] elements.
//!
//! - `first`: the first channel of a fresh process: make, send, receive and drop on one thread,
//!   and a first receive that sleeps (its thread's CPU time); one child process per
//!   measurement (`first.rs`).
//! - `memory`: 10^6 8-byte elements queued on one thread, then drained; the figure is the
//!   process's resident memory after the drain over its resident memory with the channel idle
//!   (1.0: everything given back; lower is better), with the peak and the figure 200 ms later
//!   in `extra`. Always in a child process of its own.
//!
//! The allocator is a factor where elements or segments go through the heap ([`HEAP_CHANNELS`]
//! in W1, W11 and `memory`): with `--allocators`, each such channel also runs as
//! `<channel>@mimalloc` and `<channel>@jemalloc`, in a child process whose global allocator is
//! chosen by `WELLTEMPERED_ALLOCATOR` ([`crate::alloc`]). Other variants use the system
//! allocator.
//!
//! Each group's `x` parameter is its swept value (bytes, rate per second, grain in ns, `K`,
//! workers, senders), so the report draws one plot per sweep.
//!
//! Foreign load is a factor with `--load` (comma-separated levels; default `0`, quick mode `0,2`
//! for `small` and `0` for the others): each level runs every group again, `N` with N busy
//! processes spinning beside the measurement (not pinned), `mixed` with one process starting and
//! joining short-lived threads that do a little work each, as a parallel build does
//! ([`crate::load`]). The load processes are child processes of the harness, started before a
//! group's measurement and killed and reaped after it. Each group records its level in the
//! `load` parameter (`"0"`, `"2"`, `"mixed"`); loaded groups carry `/load=<level>` at the end of
//! their id and the level in their title, and follow the quiet group of the same cell, so the
//! report shows them side by side. Nothing else about the measurements changes.

use super::{Ctx, Suite};
use crate::args::{parse_duration, parse_positive, same_name};
use crate::counters::{HwCounters, Rusage};
use crate::harness::{self, Progress};
use crate::load::{Load, LoadGuard, parse_load};
use crate::model::{Group, Metric, Sample, Section};
use crate::work::{busy, busy_iters_per_ns};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use crossbeam_utils::{Backoff, CachePadded};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use welltempered_channel as wc;

mod flavors;
mod plan;
mod summary;
mod workloads;
pub use flavors::*;
pub use plan::*;
pub use workloads::first::FirstUse;
pub use workloads::select::{SELECT_CHANNELS, SELECT_WIDTHS};
pub use workloads::tasks::ASYNC_CHANNELS;
pub use workloads::*;

/// Capacity of the bounded variants (ring buffers, bounded channels).
pub const BOUND: usize = 1024;

/// Most elements a producer keeps ahead of the consumers on unbounded channels.
pub const IN_FLIGHT: u64 = 1 << 14;

/// Most tasks the W11 submitter keeps queued (so the drain after the window stays short).
pub const POOL_IN_FLIGHT: u64 = 1 << 11;

/// Bits of a tag holding the sequence number; the producer index sits above them.
const SEQ_BITS: u32 = 40;

/// Runs every group of the plan.
pub fn run_plan(plan: &Plan, progress: &Progress) -> Result<Section> {
    let cells = groups(plan);
    progress.add_steps(
        cells
            .iter()
            .map(|c| (plan.reps * c.group.variants.len()) as u64)
            .sum(),
    );
    let mut done = Vec::with_capacity(cells.len());
    for Cell {
        mut group,
        spec,
        load,
    } in cells
    {
        progress.stage(&group.id);
        // Started before the group's measurement; dropping it (after the group, on an error or
        // a panic) kills and reaps the load processes.
        let load_guard = LoadGuard::start(load)?;
        group.reps = harness::run_paired(&group.variants, plan.reps, progress, |ch| {
            progress.message(&format!("{} {ch}", group.id));
            let spec = Spec {
                channel: ch.to_string(),
                ..spec.clone()
            };
            let (_, allocator) = split_allocator(ch);
            if plan.isolate || allocator.is_some() || spec.burst > 0 || spec.first.is_some() {
                harness::run_in_child_env(
                    "channel",
                    &serde_json::to_value(&spec).unwrap_or_default(),
                    &[(crate::alloc::ALLOCATOR_VAR, allocator.unwrap_or("system"))],
                )
            } else {
                run_spec(&spec)
            }
        })?;
        drop(load_guard);
        done.push(group);
    }
    Ok(Section {
        name: "channel".into(),
        title: "WTC channel workloads".into(),
        baselines: RATIO_BASELINES
            .iter()
            .filter(|b| plan.channels.iter().any(|c| c == *b))
            .map(|b| b.to_string())
            .collect(),
        sweep: Some("x".into()),
        config: serde_json::to_value(plan).unwrap_or_default(),
        groups: done,
    })
}

/// The channel section.
#[derive(Clone, Copy, Debug)]
pub struct ChannelBench;

impl Suite for ChannelBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        summary::lines(section)
    }

    fn name(&self) -> &'static str {
        "channel"
    }

    fn help_after(&self) -> String {
        let names: Vec<&str> = channels().iter().map(|e| e.name).collect();
        let time = |quick| {
            let plan = ChannelArgs::default().plan(quick).ok()?;
            let ns: u64 = groups(&plan)
                .iter()
                .map(|c| (plan.reps * c.group.variants.len()) as u64 * c.spec.duration_ns)
                .sum();
            Some(Duration::from_nanos(ns))
        };
        format!(
            "{}\n\n{}",
            super::names_paragraph("Channels (--channels)", &names),
            super::run_time_paragraph(time(false), time(true))
        )
    }

    fn about(&self) -> &'static str {
        "WTC channel workloads: SPSC hand-over, latency, pipeline, batching, many threads, \
         ablation, thread pool, small bounded channels, select! over receives and sends, async \
         tasks under tokio, one core; against crossbeam, std, flume, kanal, rtrb, ringbuf (and \
         tokio's mpsc in the async cells); optionally under foreign load (--load)"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        ChannelArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = ChannelArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_plan(&a.plan(ctx.quick).map_err(Error::into_usage)?, ctx.progress)
    }

    fn run_child(&self, spec: &serde_json::Value) -> Result<Sample> {
        let spec: Spec = serde_json::from_value(spec.clone())
            .map_err(|e| Error::new(format!("bad channel spec: {e}")))?;
        run_spec(&spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<ChannelArgs, clap::Error> {
        let cmd = ChannelBench.args(clap::Command::new("channel"));
        let m = cmd.try_get_matches_from(std::iter::once("channel").chain(args.iter().copied()))?;
        ChannelArgs::from_arg_matches(&m)
    }

    /// A window short enough for tests (and for Miri).
    fn tiny_ns() -> u64 {
        if cfg!(miri) { 50_000 } else { 2_000_000 }
    }

    #[test]
    fn cli_accepts_the_documented_form() {
        let a = parse(&[
            "--workloads",
            "w10,w1,w9",
            "--channels",
            "ours,crossbeam,rtrb",
            "--duration",
            "150ms",
            "--reps",
            "4",
        ])
        .unwrap();
        let p = a.plan(false).unwrap();
        assert_eq!(p.channels, ["ours", "crossbeam", "rtrb"]);
        // Report order, whatever the command line's order.
        assert_eq!(p.workloads, [Workload::W1, Workload::W9, Workload::W10]);
        assert_eq!(p.duration_ns, 150_000_000);
        assert_eq!(p.reps, 4);
        assert!(!p.quick);
    }

    #[test]
    fn cli_rejects_bad_values() {
        assert!(parse(&["--workloads", "w4"]).is_err());
        assert!(parse(&["--reps", "0"]).is_err());
        assert!(parse(&["--reps", "x"]).is_err());
        assert!(parse(&["--duration", "100"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        let err = parse(&["--channels", "ours,nosuch"])
            .unwrap()
            .plan(false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("nosuch") && err.contains("valid channels: ours"),
            "{err}"
        );
        assert!(parse(&["--channels", ","]).unwrap().plan(false).is_err());
        assert!(parse(&["--duration", "0"]).unwrap().plan(false).is_err());
    }

    #[test]
    fn quick_defaults_are_a_subset_and_ids_are_unique() {
        let quick = ChannelArgs::default().plan(true).unwrap();
        let full = ChannelArgs::default().plan(false).unwrap();
        assert!(quick.channels.iter().all(|c| full.channels.contains(c)));
        assert_eq!(full.workloads, Workload::ALL);
        let (gq, gf) = (groups(&quick), groups(&full));
        assert!(gq.len() < gf.len());
        for g in [&gq, &gf] {
            let mut ids: Vec<&str> = g.iter().map(|c| c.group.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), g.len());
        }
        // Every workload has a group in the full plan.
        for w in Workload::ALL {
            assert!(gf.iter().any(|c| c.spec.workload == w.name()), "{w:?}");
        }
    }

    #[test]
    fn cells_hold_only_channels_that_fit() {
        let full = ChannelArgs::default().plan(false).unwrap();
        let g = groups(&full);
        let cell = |id: &str| g.iter().find(|c| c.group.id == id).unwrap();
        // std's receiver cannot be cloned; rtrb has one producer and one consumer.
        let two_one = &cell("w9/2:1").group.variants;
        assert!(two_one.contains(&"std".to_string()));
        assert!(!two_one.contains(&"rtrb".to_string()));
        let one_two = &cell("w9/1:2").group.variants;
        assert!(!one_two.contains(&"std".to_string()));
        assert!(one_two.contains(&"kanal".to_string()));
        assert!(cell("w1/8B").group.variants.contains(&"rtrb".to_string()));
        assert_eq!(
            cell("w10").group.variants,
            ["ours", "ours+tx", "ours+rx", "ours+tx+rx", "crossbeam"]
        );
        assert!(cell("onecore/8B").spec.pin);
    }

    #[test]
    fn cli_accepts_load_levels() {
        let p = parse(&["--load", "0,2,mixed", "--workloads", "w1,small"])
            .unwrap()
            .plan(false)
            .unwrap();
        let levels = [Load::QUIET, Load::Busy(2), Load::Mixed];
        assert_eq!(p.load, levels);
        assert_eq!(p.load_small, levels);
        let g = groups(&p);
        let ids: Vec<&str> = g.iter().map(|c| c.group.id.as_str()).collect();
        // A cell's levels follow one another; the quiet group keeps the cell's id.
        assert_eq!(ids[..3], ["w1/8B", "w1/8B/load=2", "w1/8B/load=mixed"]);
        assert!(ids.contains(&"small/cap=0/8:1/load=mixed"), "{ids:?}");
        assert_eq!(g.len() % levels.len(), 0);
        for (c, l) in g.iter().zip(levels.iter().cycle()) {
            assert_eq!(c.load, *l, "{}", c.group.id);
            assert_eq!(c.group.params["load"], serde_json::json!(l.to_string()));
            assert!(c.group.title.ends_with(&l.describe()), "{}", c.group.title);
        }
        // Duplicates go; levels given explicitly hold for every workload in quick mode too.
        let p = parse(&["--load", "2,0,2"]).unwrap().plan(true).unwrap();
        assert_eq!(p.load, [Load::Busy(2), Load::QUIET]);
        assert_eq!(p.load_small, p.load);
    }

    #[test]
    fn cli_rejects_bad_load_levels() {
        for bad in ["lots", "2.5", "0,busy", "-1", "0,,2"] {
            let err = parse(&[&format!("--load={bad}")]).unwrap_err().to_string();
            assert!(
                err.contains("number N of busy processes") && err.contains("`mixed`"),
                "{bad}: {err}"
            );
        }
        let err = parse(&["--load", "5000"]).unwrap_err().to_string();
        assert!(err.contains("at most 1024"), "{err}");
    }

    #[test]
    fn load_is_quiet_by_default_and_quick_mode_loads_small_only() {
        let full = ChannelArgs::default().plan(false).unwrap();
        assert_eq!(full.load, [Load::QUIET]);
        assert_eq!(full.load_small, [Load::QUIET]);
        for c in groups(&full) {
            assert!(c.load.is_quiet() && !c.group.id.contains("load="));
            assert_eq!(c.group.params["load"], "0");
            assert!(!c.group.title.contains("load"), "{}", c.group.title);
        }
        let quick = ChannelArgs::default().plan(true).unwrap();
        assert_eq!(quick.load, [Load::QUIET]);
        assert_eq!(quick.load_small, [Load::QUIET, Load::Busy(2)]);
        let g = groups(&quick);
        assert!(
            g.iter()
                .filter(|c| c.spec.workload != "small")
                .all(|c| c.load.is_quiet())
        );
        let small: Vec<(&str, &str)> = g
            .iter()
            .filter(|c| c.spec.workload == "small")
            .map(|c| (c.group.id.as_str(), c.group.title.as_str()))
            .collect();
        assert_eq!(
            small.iter().map(|s| s.0).collect::<Vec<_>>(),
            [
                "small/cap=0/1:1",
                "small/cap=0/1:1/load=2",
                "small/cap=0/8:1",
                "small/cap=0/8:1/load=2",
                "small/cap=1/1:1",
                "small/cap=1/1:1/load=2",
                "small/cap=1/8:1",
                "small/cap=1/8:1/load=2",
            ]
        );
        assert_eq!(
            small[3].1,
            "small: rendezvous bounded(0), 8 senders : 1 receiver, load: 2 busy processes"
        );
        assert_eq!(
            small[4].1,
            "small: bounded(1), 1 sender : 1 receiver, no load"
        );
    }

    #[test]
    fn small_cells_run_the_bounded_forms_beside_crossbeam() {
        let full = ChannelArgs::default().plan(false).unwrap();
        let g = groups(&full);
        let small: Vec<&Cell> = g.iter().filter(|c| c.spec.workload == "small").collect();
        assert_eq!(small.len(), 4);
        for c in small {
            // Every channel with a bounded form, and the ratio baseline among them.
            assert_eq!(c.group.variants, ["ours", "crossbeam", "std", "flume"]);
            assert_eq!(RATIO_BASELINES[0], "crossbeam");
            let cap = c.group.params["capacity"].as_u64().unwrap() as usize;
            assert_eq!(c.spec.capacity, Some(cap));
            assert_eq!(c.group.params["x"], serde_json::json!(c.spec.producers));
            assert_eq!(c.spec.consumers, 1);
        }
        // The two sweeps over the sender count, one per capacity.
        let section = Section {
            name: "channel".into(),
            title: "t".into(),
            baselines: vec!["crossbeam".into()],
            sweep: Some("x".into()),
            config: serde_json::Value::Null,
            groups: g.into_iter().map(|c| c.group).collect(),
        };
        let sweeps: Vec<String> = crate::output::sweeps(&section)
            .into_iter()
            .map(|s| s.label)
            .filter(|l| l.contains("workload=small"))
            .collect();
        assert_eq!(
            sweeps,
            [
                "capacity=0, load=0, workload=small",
                "capacity=1, load=0, workload=small"
            ]
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)] // up to nine threads per run
    fn select_runs_deliver_over_two_and_four_channels() {
        for ch in SELECT_CHANNELS {
            for k in SELECT_WIDTHS {
                let s = run_spec(&Spec {
                    channel: ch.into(),
                    workload: "select".into(),
                    bytes: 8,
                    producers: 2,
                    consumers: 1,
                    select: k,
                    duration_ns: tiny_ns(),
                    ..Spec::default()
                })
                .unwrap();
                assert_eq!(s.variant, ch);
                assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {k}");
                let s = run_spec(&Spec {
                    channel: ch.into(),
                    workload: "select".into(),
                    bytes: 8,
                    producers: 1,
                    consumers: k,
                    select: k,
                    select_sends: true,
                    duration_ns: tiny_ns(),
                    ..Spec::default()
                })
                .unwrap();
                assert_eq!(s.per_thread.len(), k, "one count per consumer");
                assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {k}");
            }
        }
        let spec = |channel: &str, k| Spec {
            channel: channel.into(),
            workload: "select".into(),
            select: k,
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let err = run_spec(&spec("ours", 3)).unwrap_err().to_string();
        assert!(err.contains("use 2 or 4"), "{err}");
        let err = run_spec(&spec("flume", 2)).unwrap_err().to_string();
        assert!(err.contains("runs ours and crossbeam"), "{err}");
    }

    #[test]
    #[cfg_attr(miri, ignore)] // tokio runtimes
    fn async_runs_deliver_on_both_runtimes() {
        use workloads::tasks::{Pattern, Runtime, Tasks};
        for ch in ASYNC_CHANNELS {
            for pattern in [Pattern::PingPong, Pattern::FanIn] {
                for runtime in [Runtime::CurrentThread, Runtime::MultiThread] {
                    let s = run_spec(&Spec {
                        channel: ch.into(),
                        workload: "async".into(),
                        tasks: Some(Tasks { pattern, runtime }),
                        duration_ns: tiny_ns(),
                        ..Spec::default()
                    })
                    .unwrap();
                    assert_eq!(s.variant, ch);
                    assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {pattern:?}");
                }
            }
        }
        let err = run_spec(&Spec {
            channel: "crossbeam".into(),
            workload: "async".into(),
            tasks: Some(Tasks {
                pattern: Pattern::FanIn,
                runtime: Runtime::CurrentThread,
            }),
            duration_ns: tiny_ns(),
            ..Spec::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("runs ours, flume, kanal, tokio"), "{err}");
    }

    /// The async cells run tokio's channel beside the plan's async channels, and only those.
    #[test]
    fn async_cells_add_tokio_to_the_plans_channels() {
        let args = ChannelArgs {
            workloads: Some(vec![Workload::Async]),
            channels: Some(vec!["ours".into(), "crossbeam".into()]),
            ..ChannelArgs::default()
        };
        let cells = groups(&args.plan(false).unwrap());
        let ids: Vec<&str> = cells.iter().map(|c| c.group.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "async/ping-pong/current-thread",
                "async/ping-pong/multi-thread",
                "async/fan-in/current-thread",
                "async/fan-in/multi-thread"
            ]
        );
        for c in &cells {
            assert_eq!(c.group.variants, ["ours", "tokio"], "{}", c.group.id);
        }
        let args = ChannelArgs {
            workloads: Some(vec![Workload::Async]),
            channels: Some(vec!["crossbeam".into()]),
            ..ChannelArgs::default()
        };
        assert!(
            groups(&args.plan(false).unwrap()).is_empty(),
            "no async cell without an async channel to compare"
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)] // eight threads per run
    fn small_runs_deliver_at_both_capacities() {
        for ch in small_channels() {
            for cap in SMALL_CAPACITIES {
                for producers in [1, 8] {
                    let s = run_spec(&Spec {
                        channel: ch.into(),
                        workload: "small".into(),
                        bytes: 8,
                        producers,
                        consumers: 1,
                        batch: 1,
                        capacity: Some(cap),
                        duration_ns: tiny_ns(),
                        ..Spec::default()
                    })
                    .unwrap();
                    assert_eq!(s.variant, ch);
                    assert_eq!(s.per_thread.len(), 1);
                    assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {cap}");
                }
            }
        }
        let spec = |channel: &str, cap| Spec {
            channel: channel.into(),
            bytes: 8,
            capacity: Some(cap),
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let err = run_spec(&spec("ours", 2)).unwrap_err().to_string();
        assert!(
            err.contains("bounded(2)") && err.contains("capacities: 0, 1"),
            "{err}"
        );
        let err = run_spec(&spec("kanal", 0)).unwrap_err().to_string();
        assert!(
            err.contains("channels: ours, crossbeam, flume, std"),
            "{err}"
        );
    }

    #[test]
    fn ablation_names_split() {
        assert_eq!(split_ablation("ours"), ("ours", false, false));
        assert_eq!(split_ablation("ours+tx"), ("ours", true, false));
        assert_eq!(split_ablation("ours+rx"), ("ours", false, true));
        assert_eq!(split_ablation("ours+tx+rx"), ("ours", true, true));
        let err = run_spec(&Spec {
            channel: "crossbeam+tx".into(),
            bytes: 8,
            duration_ns: tiny_ns(),
            ..Spec::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("our channel only"), "{err}");
    }

    #[test]
    fn delivery_check_catches_loss_duplicates_disorder_and_corruption() {
        let mut ok = Seen::new(2);
        for seq in 0..3u64 {
            ok.see(&[seq]);
            ok.see(&[(1 << SEQ_BITS) | seq]);
        }
        assert!(verify("t", &[3, 3], std::slice::from_ref(&ok)).is_ok());
        // A lost element.
        assert!(verify("t", &[4, 3], std::slice::from_ref(&ok)).is_err());
        // A duplicate.
        let mut dup = Seen::new(1);
        for seq in [0u64, 1, 1] {
            dup.see(&[seq]);
        }
        assert!(
            verify("t", &[3], &[dup])
                .unwrap_err()
                .to_string()
                .contains("duplicated")
        );
        // Out of order.
        let mut swapped = Seen::new(1);
        for seq in [1u64, 0] {
            swapped.see(&[seq]);
        }
        assert!(verify("t", &[2], &[swapped]).is_err());
        // Lost and duplicated at once, counts equal but sums not (across two consumers).
        let (mut a, mut b) = (Seen::new(1), Seen::new(1));
        a.see(&[0u64]);
        a.see(&[1u64]);
        b.see(&[1u64]);
        assert!(verify("t", &[3], &[a, b]).is_err());
        // A payload that does not match its tag, and an unknown producer.
        let mut bad = Seen::new(1);
        let mut e = <[u64; 8]>::make(0);
        e[7] = 0;
        bad.see(&e);
        assert!(
            verify("t", &[1], &[bad])
                .unwrap_err()
                .to_string()
                .contains("corrupt")
        );
        let mut stranger = Seen::new(1);
        stranger.see(&[5u64 << SEQ_BITS]);
        assert!(verify("t", &[0], &[stranger]).is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore)] // dozens of threads per cell and sched_setaffinity
    fn every_workload_runs_on_every_channel_and_delivers() {
        // Every workload but `memory`, `first` and the other allocators, which run in child
        // processes of the `welltempered` binary (this test binary cannot be one); they are
        // checked in process below, in `first`'s tests and in tests/smoke.rs.
        let plan = ChannelArgs {
            duration: Some(Duration::from_millis(2)),
            reps: Some(1),
            allocators: Some(vec!["system".into()]),
            workloads: Some(
                Workload::ALL
                    .into_iter()
                    .filter(|w| !matches!(w, Workload::Memory | Workload::First))
                    .collect(),
            ),
            ..ChannelArgs::default()
        }
        .plan(false)
        .unwrap();
        let section = run_plan(&plan, &Progress::hidden()).unwrap();
        assert_eq!(section.name, "channel");
        assert_eq!(section.baselines, RATIO_BASELINES);
        assert_eq!(section.groups.len(), groups(&plan).len());
        for g in &section.groups {
            assert_eq!(g.reps.len(), 1, "{}", g.id);
            let rep = &g.reps[0];
            assert_eq!(rep.samples.len(), g.variants.len(), "{}", g.id);
            for s in &rep.samples {
                assert!(g.variants.contains(&s.variant), "{}", g.id);
                assert!(s.wall_s > 0.0 && s.value >= 0.0, "{} {}", g.id, s.variant);
                if let Some(&sent) = s.extra.get("sent_total") {
                    // The window's count cannot exceed what was sent in all.
                    assert!(s.ops as f64 <= sent, "{} {}", g.id, s.variant);
                }
                if g.id.starts_with("w2/") {
                    assert!(
                        s.extra["p99_ns"] >= s.value || s.ops == 0,
                        "{} {:?}",
                        s.variant,
                        s
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // reads /proc
    fn the_memory_workload_checks_every_element_of_the_burst() {
        for ch in HEAP_CHANNELS {
            let s = run_spec(&Spec {
                channel: ch.to_string(),
                burst: 20_000,
                ..Spec::default()
            })
            .unwrap();
            assert_eq!(s.ops, 20_000, "{ch}");
            assert_eq!(
                s.extra["checksum"],
                (0..20_000u64).sum::<u64>() as f64,
                "{ch}"
            );
            assert!(s.value > 0.0 && s.extra["peak_kib"] > 0.0, "{ch}");
        }
    }

    #[test]
    fn allocator_variants_are_named_checked_and_added_to_heap_workloads() {
        assert_eq!(split_allocator("ours@mimalloc"), ("ours", Some("mimalloc")));
        assert_eq!(split_allocator("ours+tx"), ("ours+tx", None));
        let err = ChannelArgs {
            allocators: Some(vec!["tcmalloc".into()]),
            ..ChannelArgs::default()
        }
        .plan(true)
        .unwrap_err()
        .to_string();
        assert!(err.contains("jemalloc"), "{err}");
        let plan = ChannelArgs {
            allocators: Some(vec!["jemalloc".into()]),
            channels: Some(vec!["ours".into(), "rtrb".into()]),
            ..ChannelArgs::default()
        }
        .plan(true)
        .unwrap();
        assert_eq!(plan.allocators, ["system", "jemalloc"]);
        for cell in groups(&plan) {
            let v = &cell.group.variants;
            match cell.spec.workload.as_str() {
                "w1" => assert_eq!(v, &["ours", "rtrb", "ours@jemalloc"]),
                "memory" => assert_eq!(v, &["ours", "ours@jemalloc"]),
                _ => assert!(v.iter().all(|x| !x.contains('@')), "{v:?}"),
            }
        }
        // A child asked for an allocator it does not run on refuses, rather than mislabel.
        let err = run_spec(&Spec {
            channel: "ours@jemalloc".into(),
            burst: 10,
            ..Spec::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("WELLTEMPERED_ALLOCATOR=jemalloc"), "{err}");
    }

    #[test]
    fn a_small_spsc_run_delivers() {
        // The one run Miri checks: our channel's both disciplines, 1:1, plain and shared.
        for ch in ["ours", "ours+tx+rx", "ours-spsc"] {
            let s = run_spec(&Spec {
                channel: ch.into(),
                workload: "w1".into(),
                bytes: 64,
                producers: 1,
                consumers: 1,
                batch: 1,
                limit: 64,
                duration_ns: tiny_ns(),
                ..Spec::default()
            })
            .unwrap();
            assert_eq!(s.variant, ch);
            assert_eq!(s.per_thread.len(), 1);
            assert!(s.ops as f64 <= s.extra["sent_total"]);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // serde_json round trip is not unsafe code
    fn child_specs_round_trip() {
        let spec = Spec {
            channel: "crossbeam".into(),
            workload: "w7".into(),
            bytes: 8,
            producers: 1,
            consumers: 1,
            batch: 16,
            limit: IN_FLIGHT,
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let s = ChannelBench
            .run_child(&serde_json::to_value(&spec).unwrap())
            .unwrap();
        assert_eq!(s.variant, "crossbeam");
        assert!(
            ChannelBench
                .run_child(&serde_json::json!({"x": 1}))
                .is_err()
        );
    }
}
