//! The workloads, one file each: its cells as data ([`CellDef`]s pushed on a [`Planner`]) and,
//! where it measures something of its own, its runner. Most run on the flow runner of this
//! file ([`run_flow`]: producers send numbered elements for the window, consumers receive and
//! check them); W2 (latency), W3 (pipeline), W9's pairwise cell, select, memory and first have
//! runners of their own.

use super::*;

pub(super) mod first;
mod memory;
mod onecore;
pub(super) mod select;
mod small;
pub(super) mod tasks;
mod w1;
mod w10;
mod w11;
mod w2;
mod w3;
mod w7;
mod w9;

pub(in crate::sections::channel) use memory::run_memory;
pub(in crate::sections::channel) use w2::run_latency;
pub(in crate::sections::channel) use w3::run_pipeline;
pub(in crate::sections::channel) use w9::run_pairwise;

/// One cell of a workload, as data: the group it becomes and the measurement it runs.
#[derive(Clone, Debug)]
pub(in crate::sections::channel) struct CellDef {
    /// The group's id, unique in the section.
    pub id: String,
    /// The group's title.
    pub title: String,
    /// The swept value and what it is (`element bytes`), for the sweep plots and tables.
    pub x: Option<(&'static str, serde_json::Value)>,
    /// Further parameters of the group.
    pub params: BTreeMap<String, serde_json::Value>,
    /// What the measurement's figure is.
    pub metric: Metric,
    /// The measurement, less its channel and workload name.
    pub spec: Spec,
    /// The channels that run it; a cell with none is dropped.
    pub variants: Vec<String>,
}

/// What the workloads make their cells with: the plan, the measurement every cell starts from,
/// the usual metric, and the cells made so far.
pub(in crate::sections::channel) struct Planner<'a> {
    /// The plan.
    pub plan: &'a Plan,
    /// The measurement every cell starts from: 8-byte elements, 1:1, the plan's window.
    pub base: Spec,
    /// Elements per second, in millions.
    pub throughput: Metric,
    /// The cells so far.
    pub cells: Vec<Cell>,
    /// The workload whose cells are being made.
    workload: Workload,
}

impl<'a> Planner<'a> {
    /// A planner with no cells yet.
    pub fn new(plan: &'a Plan) -> Self {
        Self {
            plan,
            base: Spec {
                channel: String::new(),
                workload: String::new(),
                bytes: 8,
                producers: 1,
                consumers: 1,
                batch: 1,
                limit: IN_FLIGHT,
                duration_ns: plan.duration_ns,
                ..Spec::default()
            },
            throughput: Metric {
                unit: "M/s".into(),
                higher_is_better: true,
                op: "elem".into(),
            },
            cells: Vec::new(),
            workload: Workload::W1,
        }
    }

    /// Adds the cells of workload `w`.
    pub fn workload(&mut self, w: Workload) {
        self.workload = w;
        match w {
            Workload::W1 => w1::cells(self),
            Workload::W2 => w2::cells(self),
            Workload::W3 => w3::cells(self),
            Workload::W7 => w7::cells(self),
            Workload::W9 => w9::cells(self),
            Workload::W10 => w10::cells(self),
            Workload::W11 => w11::cells(self),
            Workload::Small => small::cells(self),
            Workload::Select => select::cells(self),
            Workload::Async => tasks::cells(self),
            Workload::Onecore => onecore::cells(self),
            Workload::Memory => memory::cells(self),
            Workload::First => first::cells(self),
        }
    }

    /// Iterations of the calibrated busy loop for `ns` nanoseconds of work (0 for none).
    pub fn iters(&self, ns: u64) -> u64 {
        if ns == 0 {
            0
        } else {
            ((ns as f64 * self.plan.busy_iters_per_ns).round() as u64).max(1)
        }
    }

    /// The plan's channels that can take a topology with several senders (`multi_tx`) or
    /// receivers (`multi_rx`).
    pub fn fit(&self, multi_tx: bool, multi_rx: bool) -> Vec<String> {
        self.plan
            .channels
            .iter()
            .filter(|c| {
                channel_entry(c)
                    .map(|e| (e.multi_tx || !multi_tx) && (e.multi_rx || !multi_rx))
                    .unwrap_or(false)
            })
            .cloned()
            .collect()
    }

    /// Adds a cell of the current workload; one that no channel runs is dropped.
    pub fn push(&mut self, cell: CellDef) {
        if cell.variants.is_empty() {
            return;
        }
        let w = self.workload;
        let mut params = cell.params;
        params.insert("workload".into(), serde_json::json!(w.name()));
        if let Some((name, x)) = cell.x {
            params.insert("x".into(), x);
            params.insert(
                crate::output::SWEEP_NAME_PARAM.into(),
                serde_json::json!(name),
            );
        }
        self.cells.push(Cell {
            group: Group {
                id: cell.id,
                title: cell.title,
                params,
                metric: cell.metric,
                variants: cell.variants,
                reps: Vec::new(),
            },
            spec: Spec {
                workload: w.name().into(),
                ..cell.spec
            },
            load: Load::QUIET,
        });
    }
}

/// The workloads of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// SPSC hand-over at 8, 64 and 256 bytes.
    W1,
    /// Latency from each element's due time, producer on a schedule.
    W2,
    /// Three-stage pipeline of 64-byte records, grain sweep.
    W3,
    /// Batching, K = 1..1024.
    W7,
    /// Many threads: 2:1, 1:2, 2:2, 4:4 and pairwise.
    W9,
    /// Ablation of the claiming disciplines (our channel only).
    W10,
    /// Thread pool: one submitter, 1 to 8 workers.
    W11,
    /// Small bounded channels: bounded(0) and bounded(1), 1:1 and 8 senders : 1 receiver.
    Small,
    /// `select!` over 2 and 4 bounded channels, 1 and 2 producers each, and over 2 and 4 sends.
    Select,
    /// Tasks under tokio: a ping-pong and a fan-in, on both runtimes.
    Async,
    /// W1 at 8 bytes with both ends pinned to one CPU.
    Onecore,
    /// Memory after a burst: resident memory once 10^6 queued elements are drained, over the
    /// idle channel's.
    Memory,
    /// The first channel of a fresh process: one thread, and a receiver that sleeps.
    First,
}

impl Workload {
    /// The name used in ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::W1 => "w1",
            Self::W2 => "w2",
            Self::W3 => "w3",
            Self::W7 => "w7",
            Self::W9 => "w9",
            Self::W10 => "w10",
            Self::W11 => "w11",
            Self::Small => "small",
            Self::Select => "select",
            Self::Async => "async",
            Self::Onecore => "onecore",
            Self::Memory => "memory",
            Self::First => "first",
        }
    }

    /// Every workload, in report order.
    pub const ALL: [Workload; 13] = [
        Self::W1,
        Self::W2,
        Self::W3,
        Self::W7,
        Self::W9,
        Self::W10,
        Self::W11,
        Self::Small,
        Self::Select,
        Self::Async,
        Self::Onecore,
        Self::Memory,
        Self::First,
    ];
}

/// What one measurement runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// Channel name; for W10 with `+tx`/`+rx` suffixes (idle extra handles).
    pub channel: String,
    /// Workload name (`w1`, ...), for ids and errors.
    pub workload: String,
    /// Element size in bytes: 8, 64 or 256.
    pub bytes: usize,
    /// Producer threads (W11: the submitter).
    pub producers: usize,
    /// Consumer threads (W11: workers).
    pub consumers: usize,
    /// Pairwise: `producers` threads each send one element, then receive one.
    pub pairwise: bool,
    /// W2: elements per second the producer sends; 0 otherwise.
    pub rate: u64,
    /// W2: run the latency workload.
    pub latency: bool,
    /// W3: run the pipeline.
    pub pipeline: bool,
    /// Work per element per stage (W3) or per task (W11), iterations of the calibrated loop.
    pub work_iters: u64,
    /// Elements per send and per receive (W7); 1 otherwise.
    pub batch: usize,
    /// Pin every thread to one CPU.
    pub pin: bool,
    /// Most elements a producer keeps ahead of the consumers; 0: no limit.
    pub limit: u64,
    /// Length of the measured window, nanoseconds.
    pub duration_ns: u64,
    /// The memory workload: elements queued in the burst (0: another workload).
    #[serde(default)]
    pub burst: u64,
    /// The small workload: the channel in its bounded form of this capacity (0: rendezvous);
    /// `None`: the channel as its entry makes it.
    #[serde(default)]
    pub capacity: Option<usize>,
    /// The first workload: which first use of a fresh process's first channel to measure
    /// (`None`: another workload).
    #[serde(default)]
    pub first: Option<FirstUse>,
    /// The select workload: channels selected over (0: another workload).
    #[serde(default)]
    pub select: usize,
    /// The select workload: the selection is over sends (one producer), not receives.
    #[serde(default)]
    pub select_sends: bool,
    /// The async workload: the pattern and runtime (`None`: another workload).
    #[serde(default)]
    pub tasks: Option<tasks::Tasks>,
}

/// An element of `N` words: the tag (producer and sequence number) first, its complement last.
pub(super) trait Elem: Send + 'static {
    fn make(tag: u64) -> Self;
    fn tag(&self) -> u64;
    fn intact(&self) -> bool;
}

impl<const N: usize> Elem for [u64; N] {
    #[inline(always)]
    fn make(tag: u64) -> Self {
        let mut a = [0u64; N];
        a[0] = tag;
        if N > 1 {
            a[N - 1] = !tag;
        }
        a
    }
    #[inline(always)]
    fn tag(&self) -> u64 {
        self[0]
    }
    #[inline(always)]
    fn intact(&self) -> bool {
        N == 1 || self[N - 1] == !self[0]
    }
}

/// What one consumer saw: per producer, how many elements and the sum of their numbers.
#[derive(Debug)]
pub(super) struct Seen {
    last: Vec<Option<u64>>,
    counts: Vec<u64>,
    sums: Vec<u64>,
    pub(super) total: u64,
    first_error: Option<String>,
}

impl Seen {
    pub(super) fn new(producers: usize) -> Self {
        Self {
            last: vec![None; producers],
            counts: vec![0; producers],
            sums: vec![0; producers],
            total: 0,
            first_error: None,
        }
    }

    /// Records one element; checks its producer, its order and its payload.
    #[inline(always)]
    pub(super) fn see<E: Elem>(&mut self, e: &E) {
        let tag = e.tag();
        let p = (tag >> SEQ_BITS) as usize;
        let seq = tag & ((1 << SEQ_BITS) - 1);
        self.total += 1;
        if p >= self.counts.len() || !e.intact() {
            self.error(format!("corrupt element (tag {tag:#x})"));
            return;
        }
        if self.last[p].is_some_and(|l| seq <= l) {
            self.error(format!(
                "producer {p}: element {seq} after {} (out of order or duplicated)",
                self.last[p].unwrap_or_default()
            ));
        }
        self.last[p] = Some(seq);
        self.counts[p] += 1;
        self.sums[p] = self.sums[p].wrapping_add(seq);
    }

    fn error(&mut self, msg: String) {
        if self.first_error.is_none() {
            self.first_error = Some(msg);
        }
    }
}

/// Checks that every producer's `sent[p]` elements (numbered 0..sent[p]) arrived exactly once.
pub(super) fn verify(channel: &str, sent: &[u64], seen: &[Seen]) -> Result<()> {
    if let Some(e) = seen.iter().find_map(|s| s.first_error.as_ref()) {
        return Err(Error::new(format!("{channel}: {e}")));
    }
    for (p, &n) in sent.iter().enumerate() {
        let count: u64 = seen.iter().map(|s| s.counts[p]).sum();
        let sum = seen.iter().fold(0u64, |a, s| a.wrapping_add(s.sums[p]));
        let expected = if n == 0 { 0 } else { n * (n - 1) / 2 };
        if count != n || sum != expected {
            return Err(Error::new(format!(
                "{channel}: producer {p} sent {n} elements, {count} arrived \
                 (sequence sum {sum}, expected {expected})"
            )));
        }
    }
    Ok(())
}

/// Pins the calling thread to the first CPU this process may run on: Linux only.
#[cfg(not(target_os = "linux"))]
pub(super) fn pin_to_first_cpu() -> Result<()> {
    Err(Error::new(
        "pinning a thread to a CPU is implemented on Linux only (sched_setaffinity)",
    ))
}

/// Pins the calling thread to the first CPU this process may run on.
#[cfg(target_os = "linux")]
pub(super) fn pin_to_first_cpu() -> Result<()> {
    // SAFETY: cpu_set_t is a plain bit array, for which all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid, writable cpu_set_t of `size` bytes; pid 0 is this thread.
    if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
        return Err(Error::new("sched_getaffinity failed"));
    }
    let cpu = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `c` is below CPU_SETSIZE, so the bit read lies inside `set`.
        .find(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .ok_or_else(|| Error::new("no CPU in this process's affinity mask"))?;
    // SAFETY: `cpu` is below CPU_SETSIZE, so the bits written lie inside `set`.
    unsafe {
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET(cpu, &mut set);
    }
    // SAFETY: `set` is a valid cpu_set_t of `size` bytes holding one CPU; pid 0 is this thread.
    if unsafe { libc::sched_setaffinity(0, size, &set) } != 0 {
        return Err(Error::new(format!("cannot pin a thread to CPU {cpu}")));
    }
    Ok(())
}

/// Sum of the consumers' published counts.
pub(super) fn received(slots: &[CachePadded<AtomicU64>]) -> u64 {
    // Relaxed: an estimate for flow control and the window's count; nothing is read through it.
    slots.iter().map(|s| s.load(Ordering::Relaxed)).sum()
}

/// Opens the window when every thread is at the barrier, sleeps through it, raises the stop
/// flag; returns the window's length, the process's CPU time and context switches in it, and
/// what `at_stop` read right after the stop flag.
pub(super) fn window(
    barrier: &Barrier,
    stop: &AtomicBool,
    duration_ns: u64,
    hw: &HwCounters,
    at_stop: impl FnOnce() -> u64,
) -> (f64, Rusage, u64) {
    barrier.wait();
    hw.enable();
    let ru0 = Rusage::now();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_nanos(duration_ns));
    // Relaxed: the flag only ends the loops; results travel back through `join`.
    stop.store(true, Ordering::Relaxed);
    let wall = t0.elapsed().as_secs_f64();
    let ops = at_stop();
    let ru = Rusage::now().since(&ru0);
    hw.disable();
    (wall, ru, ops)
}

pub(super) fn sample(
    spec: &Spec,
    value: f64,
    ops: u64,
    wall_s: f64,
    ru: Rusage,
    hw: &HwCounters,
    per_thread: Vec<u64>,
) -> Sample {
    Sample {
        variant: spec.channel.clone(),
        value,
        ops,
        wall_s,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        hw: hw.read(),
        per_thread,
        child: false,
        extra: BTreeMap::new(),
        foreign_cpu_s: None,
    }
}

/// The sample of a flow measurement: `ops` elements in `wall` seconds (millions per second),
/// with the total the producers sent as `extra.sent_total`.
pub(super) fn flow_sample(
    spec: &Spec,
    ops: u64,
    wall: f64,
    ru: Rusage,
    hw: &HwCounters,
    per_thread: Vec<u64>,
    sent_total: u64,
) -> Sample {
    Sample {
        extra: BTreeMap::from([("sent_total".to_string(), sent_total as f64)]),
        ..sample(spec, ops as f64 / wall / 1e6, ops, wall, ru, hw, per_thread)
    }
}

pub(super) fn panicked(spec: &Spec) -> Error {
    Error::new(format!(
        "{} {}: a thread panicked",
        spec.workload, spec.channel
    ))
}

/// The flow workloads (W1, W7, W9, W10, W11, one-core): producers send numbered elements until
/// the window closes, consumers receive until every sender is gone.
pub(super) fn run_flow<F: Flavor, E: Elem>(
    spec: &Spec,
    extra_tx: bool,
    extra_rx: bool,
) -> Result<Sample> {
    let producers = spec.producers.max(1);
    let consumers = spec.consumers.max(1);
    let batch = spec.batch.max(1);
    let (tx, rx) = F::make::<E>();
    let single = || Error::new(format!("{}: one handle per side only", spec.channel));
    let mut txs = vec![tx];
    for _ in 1..producers + usize::from(extra_tx) {
        txs.push(txs[0].dup().ok_or_else(single)?);
    }
    let mut rxs = vec![rx];
    for _ in 1..consumers + usize::from(extra_rx) {
        rxs.push(rxs[0].dup().ok_or_else(single)?);
    }
    let idle_tx = if extra_tx { txs.pop() } else { None };
    let idle_rx = if extra_rx { rxs.pop() } else { None };
    let slots: Vec<CachePadded<AtomicU64>> = (0..consumers)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(producers + consumers + 1);
    let hw = HwCounters::open();
    let (slots, stop, barrier) = (&slots, &stop, &barrier);
    let limit = spec.limit;
    let (wall, ru, ops, sent, seen) = std::thread::scope(|s| {
        let prod: Vec<_> = txs
            .into_iter()
            .enumerate()
            .map(|(i, mut tx)| {
                s.spawn(move || {
                    let pinned = if spec.pin { pin_to_first_cpu() } else { Ok(()) };
                    let base = (i as u64) << SEQ_BITS;
                    let mut seq = 0u64;
                    let mut since_check = 0usize;
                    barrier.wait();
                    while !stop.load(Ordering::Relaxed) {
                        if batch == 1 {
                            tx.send(E::make(base | seq));
                            seq += 1;
                            since_check += 1;
                        } else {
                            tx.send_many((seq..seq + batch as u64).map(|k| E::make(base | k)));
                            seq += batch as u64;
                            since_check += batch;
                        }
                        if limit > 0 && since_check >= 64 {
                            since_check = 0;
                            let backoff = Backoff::new();
                            while (seq * producers as u64).saturating_sub(received(slots)) > limit
                                && !stop.load(Ordering::Relaxed)
                            {
                                backoff.snooze();
                            }
                        }
                    }
                    drop(tx);
                    pinned.map(|()| seq)
                })
            })
            .collect();
        let cons: Vec<_> = rxs
            .into_iter()
            .zip(slots.iter())
            .map(|(mut rx, slot)| {
                s.spawn(move || {
                    let pinned = if spec.pin { pin_to_first_cpu() } else { Ok(()) };
                    let mut seen = Seen::new(producers);
                    let mut buf = Vec::with_capacity(batch);
                    barrier.wait();
                    if batch == 1 {
                        while let Some(e) = rx.recv() {
                            seen.see(&e);
                            if spec.work_iters > 0 {
                                busy(spec.work_iters);
                            }
                            // Relaxed: a count for the window and the producers' flow control.
                            slot.store(seen.total, Ordering::Relaxed);
                        }
                    } else {
                        while rx.recv_many(&mut buf, batch) {
                            for e in buf.drain(..) {
                                seen.see(&e);
                            }
                            // Relaxed: as above.
                            slot.store(seen.total, Ordering::Relaxed);
                        }
                    }
                    pinned.map(|()| seen)
                })
            })
            .collect();
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || received(slots));
        drop(idle_tx);
        let sent: Vec<_> = prod.into_iter().map(|h| h.join()).collect();
        let seen: Vec<_> = cons.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, sent, seen)
    });
    drop(idle_rx);
    let sent: Vec<u64> = sent
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec))?)
        .collect::<Result<_>>()?;
    let seen: Vec<Seen> = seen
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec))?)
        .collect::<Result<_>>()?;
    verify(&spec.channel, &sent, &seen)?;
    let per_thread = seen.iter().map(|s| s.total).collect();
    Ok(flow_sample(
        spec,
        ops,
        wall,
        ru,
        &hw,
        per_thread,
        sent.iter().sum(),
    ))
}

/// Splits W10's `+tx`/`+rx` suffixes off a channel name.
pub(super) fn split_ablation(name: &str) -> (&str, bool, bool) {
    let base = name.split('+').next().unwrap_or(name);
    let tx = name.split('+').skip(1).any(|s| s == "tx");
    let rx = name.split('+').skip(1).any(|s| s == "rx");
    (base, tx, rx)
}

pub(super) fn run_flavor<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let (_, extra_tx, extra_rx) = split_ablation(&spec.channel);
    if let Some(how) = spec.first {
        first::run_first::<F>(spec, how)
    } else if spec.burst > 0 {
        run_memory::<F>(spec)
    } else if spec.latency {
        run_latency::<F>(spec)
    } else if spec.pipeline {
        run_pipeline::<F>(spec)
    } else if spec.pairwise {
        run_pairwise::<F>(spec)
    } else {
        match spec.bytes {
            8 => run_flow::<F, [u64; 1]>(spec, extra_tx, extra_rx),
            64 => run_flow::<F, [u64; 8]>(spec, extra_tx, extra_rx),
            256 => run_flow::<F, [u64; 32]>(spec, extra_tx, extra_rx),
            b => Err(Error::new(format!("element size {b} B: use 8, 64 or 256"))),
        }
    }
}

/// Runs one measurement of `spec` in this process.
pub fn run_spec(spec: &Spec) -> Result<Sample> {
    let (name, allocator) = split_allocator(&spec.channel);
    if let Some(a) = allocator
        && a != crate::alloc::current()
    {
        return Err(Error::new(format!(
            "{}: this process runs on the {} allocator (set {}={a} in its environment)",
            spec.channel,
            crate::alloc::current(),
            crate::alloc::ALLOCATOR_VAR
        )));
    }
    if let Some(t) = spec.tasks {
        let mut s = tasks::run_tasks(spec, t)?;
        s.variant = spec.channel.clone();
        return Ok(s);
    }
    let (base, extra_tx, extra_rx) = split_ablation(name);
    let e = channel_entry(base)?;
    if (extra_tx || extra_rx) && !e.ours {
        return Err(Error::new(format!(
            "{}: extra handles are for our channel only",
            spec.channel
        )));
    }
    let run = match spec.capacity {
        _ if spec.select > 0 => select::run_select,
        Some(cap) => small_runner(base, cap)?,
        None => e.run,
    };
    let mut s = run(spec)?;
    s.variant = spec.channel.clone();
    Ok(s)
}
