//! The `select` workload: one consumer receives with `select!` over `K` bounded channels
//! (capacity [`BOUND`]) fed by `P` producers each, on our channel and on crossbeam-channel.
//! The channels are `welltempered_channel::bounded` under `ours` and
//! `crossbeam_channel::bounded` under `crossbeam`; each is selected with its own crate's
//! `select!`. Cells: `K` = 2 and 4 channels, `P` = 1 and 2 producers per channel (3 to 9
//! threads on the machine's cores). Producer `i` sends on channel `i % K`. Delivery is checked
//! as in the other flow workloads (every element once, FIFO per producer); a channel whose
//! producers are all gone is replaced by the crate's `never()` until every channel is done.
//!
//! The sends' cells (`select/{K}ch/send`) turn it around: one producer sends each element
//! with `select!` over `K` bounded channels (`send(s, v)` cases: the element goes to whichever
//! has room first), and one consumer per channel receives with a plain `recv` (3 and 5
//! threads). Delivery is checked the same way, over the `K` consumers together.

use super::{
    BOUND, CellDef, Planner, SEQ_BITS, Seen, Spec, flow_sample, panicked, received, verify, window,
};
use crate::counters::HwCounters;
use crate::model::Sample;
use crate::{Error, Result};
use crossbeam_utils::CachePadded;
use std::collections::BTreeMap;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The channels the workload runs, in table order.
pub const SELECT_CHANNELS: [&str; 2] = ["ours", "crossbeam"];

/// The numbers of channels selected over.
pub const SELECT_WIDTHS: [usize; 2] = [2, 4];

/// The select workload's cells: [`SELECT_WIDTHS`] channels by 1 and 2 producers each, on the
/// plan's [`SELECT_CHANNELS`].
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let variants: Vec<String> = p
        .plan
        .channels
        .iter()
        .filter(|c| SELECT_CHANNELS.contains(&c.as_str()))
        .cloned()
        .collect();
    for k in SELECT_WIDTHS {
        for per_channel in [1usize, 2] {
            p.push(CellDef {
                id: format!("select/{k}ch/{per_channel}p"),
                title: format!(
                    "select! over {k} bounded({BOUND}) channels, {per_channel} producer{} each : \
                     1 selecting consumer",
                    if per_channel == 1 { "" } else { "s" }
                ),
                x: Some(("producers per channel", serde_json::json!(per_channel))),
                params: BTreeMap::from([("channels".to_string(), serde_json::json!(k))]),
                metric: p.throughput.clone(),
                spec: Spec {
                    producers: per_channel,
                    consumers: 1,
                    select: k,
                    limit: 0,
                    ..p.base.clone()
                },
                variants: variants.clone(),
            });
        }
        p.push(CellDef {
            id: format!("select/{k}ch/send"),
            title: format!(
                "select! send over {k} bounded({BOUND}) channels : 1 selecting producer, \
                 1 consumer each"
            ),
            x: None,
            params: BTreeMap::from([("channels".to_string(), serde_json::json!(k))]),
            metric: p.throughput.clone(),
            spec: Spec {
                producers: 1,
                consumers: k,
                select: k,
                select_sends: true,
                limit: 0,
                ..p.base.clone()
            },
            variants: variants.clone(),
        });
    }
}

/// One crate's channel and `select!`.
trait Selecting {
    type Tx: Send + Clone;
    type Rx: Send;
    fn make() -> (Self::Tx, Self::Rx);
    fn never() -> Self::Rx;
    /// Sends; `false` when the receiver is gone.
    fn send(tx: &Self::Tx, v: u64) -> bool;
    /// Selects a receive over the first `k` (2 or 4) receivers: the index and the element
    /// (`None`: that channel is over).
    fn select(rxs: &[Self::Rx]) -> (usize, Option<u64>);
    /// Sends `v` with a selection over the senders (2 or 4): `false` when the chosen
    /// channel's receiver is gone.
    fn select_send(txs: &[Self::Tx], v: u64) -> bool;
    /// Receives (blocking); `None` once every sender is gone.
    fn recv(rx: &Self::Rx) -> Option<u64>;
}

struct Ours;
struct Crossbeam;

/// The same implementation for each crate, whose paths differ.
macro_rules! selecting {
    ($ty:ident, $krate:ident) => {
        impl Selecting for $ty {
            type Tx = $krate::Sender<u64>;
            type Rx = $krate::Receiver<u64>;
            fn make() -> (Self::Tx, Self::Rx) {
                $krate::bounded(BOUND)
            }
            fn never() -> Self::Rx {
                $krate::never()
            }
            fn send(tx: &Self::Tx, v: u64) -> bool {
                tx.send(v).is_ok()
            }
            fn select(rxs: &[Self::Rx]) -> (usize, Option<u64>) {
                use $krate::select;
                match rxs {
                    [a, b] => select! {
                        recv(a) -> v => (0, v.ok()),
                        recv(b) -> v => (1, v.ok()),
                    },
                    [a, b, c, d] => select! {
                        recv(a) -> v => (0, v.ok()),
                        recv(b) -> v => (1, v.ok()),
                        recv(c) -> v => (2, v.ok()),
                        recv(d) -> v => (3, v.ok()),
                    },
                    _ => unreachable!("select over 2 or 4 channels"),
                }
            }
            fn select_send(txs: &[Self::Tx], v: u64) -> bool {
                use $krate::select;
                match txs {
                    [a, b] => select! {
                        send(a, v) -> r => r.is_ok(),
                        send(b, v) -> r => r.is_ok(),
                    },
                    [a, b, c, d] => select! {
                        send(a, v) -> r => r.is_ok(),
                        send(b, v) -> r => r.is_ok(),
                        send(c, v) -> r => r.is_ok(),
                        send(d, v) -> r => r.is_ok(),
                    },
                    _ => unreachable!("select over 2 or 4 channels"),
                }
            }
            fn recv(rx: &Self::Rx) -> Option<u64> {
                rx.recv().ok()
            }
        }
    };
}

selecting!(Ours, welltempered_channel);
selecting!(Crossbeam, crossbeam_channel);

/// Runs one measurement of the `select` workload (`spec.select` channels, `spec.producers`
/// producers per channel).
pub(super) fn run_select(spec: &Spec) -> Result<Sample> {
    if !SELECT_WIDTHS.contains(&spec.select) {
        return Err(Error::new(format!(
            "select over {} channels: use {}",
            spec.select,
            SELECT_WIDTHS.map(|k| k.to_string()).join(" or ")
        )));
    }
    match (spec.channel.as_str(), spec.select_sends) {
        ("ours", false) => run::<Ours>(spec),
        ("crossbeam", false) => run::<Crossbeam>(spec),
        ("ours", true) => run_sends::<Ours>(spec),
        ("crossbeam", true) => run_sends::<Crossbeam>(spec),
        (other, _) => Err(Error::new(format!(
            "{other}: the select workload runs {}",
            SELECT_CHANNELS.join(" and ")
        ))),
    }
}

fn run<S: Selecting>(spec: &Spec) -> Result<Sample> {
    let k = spec.select;
    let per_channel = spec.producers.max(1);
    let producers = k * per_channel;
    let (txs, mut rxs): (Vec<S::Tx>, Vec<S::Rx>) = (0..k).map(|_| S::make()).unzip();
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(producers + 2);
    let hw = HwCounters::open();
    let (slot, stop, barrier) = (&slot, &stop, &barrier);
    let (wall, ru, ops, sent, seen) = std::thread::scope(|s| {
        let prod: Vec<_> = (0..producers)
            .map(|i| {
                let tx = txs[i % k].clone();
                s.spawn(move || {
                    let base = (i as u64) << SEQ_BITS;
                    let mut seq = 0u64;
                    barrier.wait();
                    // Relaxed: the flag only ends the loop; results travel back through `join`.
                    while !stop.load(Ordering::Relaxed) && S::send(&tx, base | seq) {
                        seq += 1;
                    }
                    seq
                })
            })
            .collect();
        drop(txs);
        let cons = s.spawn(move || {
            let mut seen = Seen::new(producers);
            let mut open = k;
            barrier.wait();
            while open > 0 {
                match S::select(&rxs) {
                    (_, Some(v)) => {
                        seen.see(&[v]);
                        // Relaxed: a count for the window.
                        slot.store(seen.total, Ordering::Relaxed);
                    }
                    (i, None) => {
                        rxs[i] = S::never();
                        open -= 1;
                    }
                }
            }
            seen
        });
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || {
            received(std::slice::from_ref(slot))
        });
        let sent: Vec<_> = prod.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, sent, cons.join())
    });
    let sent: Vec<u64> = sent
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec)))
        .collect::<Result<_>>()?;
    let seen = seen.map_err(|_| panicked(spec))?;
    verify(&spec.channel, &sent, std::slice::from_ref(&seen))?;
    Ok(flow_sample(
        spec,
        ops,
        wall,
        ru,
        &hw,
        vec![seen.total],
        sent.iter().sum(),
    ))
}

/// The sends' cells: one producer selects a send over `spec.select` channels, one consumer
/// per channel receives.
fn run_sends<S: Selecting>(spec: &Spec) -> Result<Sample> {
    let k = spec.select;
    let (txs, rxs): (Vec<S::Tx>, Vec<S::Rx>) = (0..k).map(|_| S::make()).unzip();
    let slots: Vec<CachePadded<AtomicU64>> = (0..k)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(k + 2);
    let hw = HwCounters::open();
    let (slots, stop, barrier) = (&slots[..], &stop, &barrier);
    let (wall, ru, ops, sent, seen) = std::thread::scope(|s| {
        let prod = s.spawn(move || {
            let mut seq = 0u64;
            barrier.wait();
            // Relaxed: the flag only ends the loop; results travel back through `join`.
            while !stop.load(Ordering::Relaxed) && S::select_send(&txs, seq) {
                seq += 1;
            }
            // Dropping the senders here ends the consumers.
            seq
        });
        let cons: Vec<_> = rxs
            .into_iter()
            .zip(slots)
            .map(|(rx, slot)| {
                s.spawn(move || {
                    let mut seen = Seen::new(1);
                    barrier.wait();
                    while let Some(v) = S::recv(&rx) {
                        seen.see(&[v]);
                        // Relaxed: a count for the window.
                        slot.store(seen.total, Ordering::Relaxed);
                    }
                    seen
                })
            })
            .collect();
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || received(slots));
        let sent = prod.join();
        let seen: Vec<_> = cons.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, sent, seen)
    });
    let sent = sent.map_err(|_| panicked(spec))?;
    let seen: Vec<Seen> = seen
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec)))
        .collect::<Result<_>>()?;
    verify(&spec.channel, &[sent], &seen)?;
    let per_thread = seen.iter().map(|s| s.total).collect();
    Ok(flow_sample(spec, ops, wall, ru, &hw, per_thread, sent))
}
