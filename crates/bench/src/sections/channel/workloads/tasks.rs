//! The `async` workload: tasks that send and receive with `.await` under tokio, on our channel
//! (`send_async`/`recv_async`), flume (`send_async`/`recv_async`), kanal (`bounded_async`) and
//! tokio's own `mpsc`, each on a current-thread runtime and on a multi-thread one with two
//! workers (built before the window, outside the measurement).
//!
//! - `async/ping-pong/<runtime>`: the runtime's `block_on` future sends a number on a
//!   bounded(1) channel and awaits its echo on another, which a spawned task sends back. The
//!   figure is round trips per second; every echo is checked.
//! - `async/fan-in/<runtime>`: four spawned producer tasks send tagged numbers into one
//!   bounded([`FAN_IN_BOUND`]) channel, the `block_on` future receives them all. The figure is
//!   elements per second; delivery is checked as in the other flow workloads (every element
//!   once, FIFO per producer).
//!
//! tokio's `mpsc` is not one of the section's channels (it has no place in the blocking
//! workloads): it runs in every `async` cell, beside whichever of ours, flume and kanal the
//! plan names.

use super::{
    CellDef, Planner, SEQ_BITS, Seen, Spec, flow_sample, panicked, received, verify, window,
};
use crate::counters::HwCounters;
use crate::model::{Metric, Sample};
use crate::{Error, Result};
use crossbeam_utils::CachePadded;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Barrier};

/// The channels of the `async` workload, in table order (tokio's runs in every cell).
pub const ASYNC_CHANNELS: [&str; 4] = ["ours", "flume", "kanal", "tokio"];

/// The fan-in channel's capacity.
pub const FAN_IN_BOUND: usize = 64;

/// Producer tasks of the fan-in.
pub const FAN_IN_PRODUCERS: usize = 4;

/// What an `async` cell runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Pattern {
    /// Two tasks, a bounded(1) channel each way.
    PingPong,
    /// Four producer tasks into one bounded channel, one consumer.
    FanIn,
}

/// The tokio runtime an `async` cell runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Runtime {
    /// `new_current_thread`: every task on the `block_on` thread.
    CurrentThread,
    /// `new_multi_thread` with two workers.
    MultiThread,
}

/// One `async` cell: a pattern on a runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tasks {
    pub pattern: Pattern,
    pub runtime: Runtime,
}

impl Pattern {
    fn name(self) -> &'static str {
        match self {
            Self::PingPong => "ping-pong",
            Self::FanIn => "fan-in",
        }
    }
}

impl Runtime {
    fn name(self) -> &'static str {
        match self {
            Self::CurrentThread => "current-thread",
            Self::MultiThread => "multi-thread",
        }
    }

    fn build(self) -> Result<tokio::runtime::Runtime> {
        match self {
            Self::CurrentThread => tokio::runtime::Builder::new_current_thread().build(),
            Self::MultiThread => tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .build(),
        }
        .map_err(|e| Error::new(format!("a tokio {} runtime: {e}", self.name())))
    }
}

/// The async workload's cells: each pattern on each runtime.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    for pattern in [Pattern::PingPong, Pattern::FanIn] {
        for runtime in [Runtime::CurrentThread, Runtime::MultiThread] {
            let mut variants: Vec<String> = ASYNC_CHANNELS
                .iter()
                .filter(|c| **c != "tokio" && p.plan.channels.iter().any(|p| p == *c))
                .map(|c| c.to_string())
                .collect();
            if variants.is_empty() {
                // tokio's channel alone compares with nothing.
                continue;
            }
            variants.push("tokio".into());
            let (title, op) = match pattern {
                Pattern::PingPong => (
                    format!(
                        "async ping-pong on tokio's {} runtime: 2 tasks, bounded(1) each way",
                        runtime.name()
                    ),
                    "round trip",
                ),
                Pattern::FanIn => (
                    format!(
                        "async fan-in on tokio's {} runtime: {FAN_IN_PRODUCERS} producer \
                         tasks : 1 consumer, bounded({FAN_IN_BOUND})",
                        runtime.name()
                    ),
                    "elem",
                ),
            };
            p.push(CellDef {
                id: format!("async/{}/{}", pattern.name(), runtime.name()),
                title,
                x: None,
                params: BTreeMap::from([
                    ("pattern".to_string(), serde_json::json!(pattern.name())),
                    ("runtime".to_string(), serde_json::json!(runtime.name())),
                ]),
                metric: Metric {
                    unit: "M/s".into(),
                    higher_is_better: true,
                    op: op.into(),
                },
                spec: Spec {
                    tasks: Some(Tasks { pattern, runtime }),
                    limit: 0,
                    ..p.base.clone()
                },
                variants,
            });
        }
    }
}

/// One crate's async channel.
trait AsyncChan {
    type Tx: Send + 'static;
    type Rx: Send + 'static;
    fn make(cap: usize) -> (Self::Tx, Self::Rx);
    fn clone_tx(tx: &Self::Tx) -> Self::Tx;
    /// Sends; `false` when the receiver is gone.
    fn send(tx: &mut Self::Tx, v: u64) -> impl Future<Output = bool> + Send + '_;
    /// Receives; `None` once every sender is gone.
    fn recv(rx: &mut Self::Rx) -> impl Future<Output = Option<u64>> + Send + '_;
}

struct Ours;
struct Flume;
struct Kanal;
struct Tokio;

/// The same implementation for each crate, whose names differ: `$send` and `$recv` are the
/// crate's async methods, `$ok` turns a receive's result into an `Option`.
macro_rules! async_chan {
    ($ty:ident, $tx:ty, $rx:ty, $make:path, $send:ident, $recv:ident, $ok:ident) => {
        impl AsyncChan for $ty {
            type Tx = $tx;
            type Rx = $rx;
            fn make(cap: usize) -> (Self::Tx, Self::Rx) {
                $make(cap)
            }
            fn clone_tx(tx: &Self::Tx) -> Self::Tx {
                tx.clone()
            }
            async fn send(tx: &mut Self::Tx, v: u64) -> bool {
                tx.$send(v).await.is_ok()
            }
            async fn recv(rx: &mut Self::Rx) -> Option<u64> {
                async_chan!(@$ok rx.$recv().await)
            }
        }
    };
    (@result $e:expr) => {
        $e.ok()
    };
    (@option $e:expr) => {
        $e
    };
}

async_chan!(
    Ours,
    welltempered_channel::Sender<u64>,
    welltempered_channel::Receiver<u64>,
    welltempered_channel::bounded,
    send_async,
    recv_async,
    result
);
async_chan!(
    Flume,
    flume::Sender<u64>,
    flume::Receiver<u64>,
    flume::bounded,
    send_async,
    recv_async,
    result
);
async_chan!(
    Kanal,
    kanal::AsyncSender<u64>,
    kanal::AsyncReceiver<u64>,
    kanal::bounded_async,
    send,
    recv,
    result
);
async_chan!(
    Tokio,
    tokio::sync::mpsc::Sender<u64>,
    tokio::sync::mpsc::Receiver<u64>,
    tokio::sync::mpsc::channel,
    send,
    recv,
    option
);

/// Runs one measurement of an `async` cell.
pub(super) fn run_tasks(spec: &Spec, tasks: Tasks) -> Result<Sample> {
    match spec.channel.as_str() {
        "ours" => run::<Ours>(spec, tasks),
        "flume" => run::<Flume>(spec, tasks),
        "kanal" => run::<Kanal>(spec, tasks),
        "tokio" => run::<Tokio>(spec, tasks),
        other => Err(Error::new(format!(
            "{other}: the async workload runs {}",
            ASYNC_CHANNELS.join(", ")
        ))),
    }
}

fn run<C: AsyncChan>(spec: &Spec, tasks: Tasks) -> Result<Sample> {
    let rt = tasks.runtime.build()?;
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let barrier = Barrier::new(2);
    let hw = HwCounters::open();
    let (slot, barrier) = (&slot, &barrier);
    let (wall, ru, ops, outcome) = std::thread::scope(|s| {
        let driver = {
            let stop = stop.clone();
            s.spawn(move || {
                barrier.wait();
                match tasks.pattern {
                    Pattern::PingPong => rt.block_on(ping_pong::<C>(slot, &stop)),
                    Pattern::FanIn => rt.block_on(fan_in::<C>(slot, stop)),
                }
            })
        };
        let (wall, ru, ops) = window(barrier, &stop, spec.duration_ns, &hw, || {
            received(std::slice::from_ref(slot))
        });
        (wall, ru, ops, driver.join())
    });
    let (sent, seen) = outcome.map_err(|_| panicked(spec))??;
    if let Some(seen) = &seen {
        verify(&spec.channel, &sent, std::slice::from_ref(seen))?;
    }
    let total = seen.as_ref().map_or(sent[0], |s| s.total);
    Ok(flow_sample(
        spec,
        ops,
        wall,
        ru,
        &hw,
        vec![total],
        sent.iter().sum(),
    ))
}

/// What a pattern reports: the elements each producer sent, and what the consumer saw (the
/// ping-pong checks its echoes itself and reports its round trips as sent).
type Outcome = Result<(Vec<u64>, Option<Seen>)>;

async fn ping_pong<C: AsyncChan>(slot: &AtomicU64, stop: &AtomicBool) -> Outcome {
    let (mut ping_tx, mut ping_rx) = C::make(1);
    let (mut pong_tx, mut pong_rx) = C::make(1);
    let echo = tokio::spawn(async move {
        while let Some(v) = C::recv(&mut ping_rx).await {
            if !C::send(&mut pong_tx, v).await {
                break;
            }
        }
    });
    let mut n = 0u64;
    // Relaxed: the flag only ends the loop.
    while !stop.load(Ordering::Relaxed) {
        if !C::send(&mut ping_tx, n).await {
            return Err(Error::new("the echo task's receiver is gone"));
        }
        match C::recv(&mut pong_rx).await {
            Some(back) if back == n => {}
            other => {
                return Err(Error::new(format!("round trip {n}: {other:?} came back")));
            }
        }
        n += 1;
        // Relaxed: a count for the window.
        slot.store(n, Ordering::Relaxed);
    }
    drop(ping_tx);
    echo.await
        .map_err(|e| Error::new(format!("the echo task: {e}")))?;
    Ok((vec![n], None))
}

async fn fan_in<C: AsyncChan>(slot: &AtomicU64, stop: Arc<AtomicBool>) -> Outcome {
    let (tx, mut rx) = C::make(FAN_IN_BOUND);
    let producers: Vec<_> = (0..FAN_IN_PRODUCERS)
        .map(|p| {
            let mut tx = C::clone_tx(&tx);
            let stop = stop.clone();
            tokio::spawn(async move {
                let base = (p as u64) << SEQ_BITS;
                let mut seq = 0u64;
                // Relaxed: the flag only ends the loop; the count travels back through the
                // task's result.
                while !stop.load(Ordering::Relaxed) && C::send(&mut tx, base | seq).await {
                    seq += 1;
                }
                seq
            })
        })
        .collect();
    drop(tx);
    let mut seen = Seen::new(FAN_IN_PRODUCERS);
    while let Some(v) = C::recv(&mut rx).await {
        seen.see(&[v]);
        // Relaxed: a count for the window.
        slot.store(seen.total, Ordering::Relaxed);
    }
    let mut sent = Vec::with_capacity(FAN_IN_PRODUCERS);
    for p in producers {
        sent.push(
            p.await
                .map_err(|e| Error::new(format!("a producer task: {e}")))?,
        );
    }
    Ok((sent, Some(seen)))
}
