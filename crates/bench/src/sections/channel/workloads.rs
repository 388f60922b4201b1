//! The workloads: one function per kind of measurement, each running one channel flavor
//! for the measured window and checking what arrived.

use super::*;

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
    /// `select!` over 2 and 4 bounded channels, 1 and 2 producers each.
    Select,
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
            Self::Onecore => "onecore",
            Self::Memory => "memory",
            Self::First => "first",
        }
    }

    /// Every workload, in report order.
    pub const ALL: [Workload; 12] = [
        Self::W1,
        Self::W2,
        Self::W3,
        Self::W7,
        Self::W9,
        Self::W10,
        Self::W11,
        Self::Small,
        Self::Select,
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
    let extra = BTreeMap::from([("sent_total".to_string(), sent.iter().sum::<u64>() as f64)]);
    Ok(Sample {
        extra,
        ..sample(
            spec,
            ops as f64 / wall / 1e6,
            ops,
            wall,
            ru,
            &hw,
            per_thread,
        )
    })
}

/// W9 pairwise: every thread sends one element, then receives one, on one shared channel.
pub(super) fn run_pairwise<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let threads = spec.producers.max(1);
    let (tx, rx) = F::make::<[u64; 1]>();
    let single = || Error::new(format!("{}: one handle per side only", spec.channel));
    let mut ends = Vec::with_capacity(threads);
    for _ in 1..threads {
        ends.push((tx.dup().ok_or_else(single)?, rx.dup().ok_or_else(single)?));
    }
    ends.push((tx, rx));
    let slots: Vec<CachePadded<AtomicU64>> = (0..threads)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let hw = HwCounters::open();
    let (slots, stop, barrier) = (&slots, &stop, &barrier);
    let (wall, ru, ops, results) = std::thread::scope(|s| {
        let hs: Vec<_> = ends
            .into_iter()
            .zip(slots.iter())
            .enumerate()
            .map(|(i, ((mut tx, mut rx), slot))| {
                s.spawn(move || {
                    let base = (i as u64) << SEQ_BITS;
                    let mut seen = Seen::new(threads);
                    let mut seq = 0u64;
                    barrier.wait();
                    // Each thread has sent one more than it received before it receives, so
                    // the channel is never empty when a thread waits in `recv`.
                    while !stop.load(Ordering::Relaxed) {
                        tx.send(<[u64; 1]>::make(base | seq));
                        seq += 1;
                        match rx.recv() {
                            Some(e) => seen.see(&e),
                            None => seen.error("channel closed while senders live".into()),
                        }
                        // Relaxed: a count for the window.
                        slot.store(seen.total, Ordering::Relaxed);
                    }
                    (seq, seen)
                })
            })
            .collect();
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || received(slots));
        let results: Vec<_> = hs.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, results)
    });
    let mut sent = Vec::with_capacity(threads);
    let mut seen = Vec::with_capacity(threads);
    for r in results {
        let (n, s) = r.map_err(|_| panicked(spec))?;
        sent.push(n);
        seen.push(s);
    }
    verify(&spec.channel, &sent, &seen)?;
    let per_thread = seen.iter().map(|s| s.total).collect();
    Ok(sample(
        spec,
        ops as f64 / wall / 1e6,
        ops,
        wall,
        ru,
        &hw,
        per_thread,
    ))
}

/// The `q` quantile (0..=1) of sorted `v`, by the nearest rank.
pub(super) fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

/// W2: the producer sends element `i` at `start + i / rate`; the consumer records, for each, the
/// time from its due time to its arrival.
pub(super) fn run_latency<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let rate = spec.rate.max(1);
    let period_ns = 1e9 / rate as f64;
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    let origin = Instant::now();
    let start_ns = AtomicU64::new(0);
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(3);
    let hw = HwCounters::open();
    let (slot, stop, barrier, start_ns) = (&slot, &stop, &barrier, &start_ns);
    let expected = (spec.duration_ns as f64 / period_ns) as usize + 16;
    let (wall, ru, ops, sent, got) = std::thread::scope(|s| {
        let prod = s.spawn(move || {
            barrier.wait();
            let start = origin.elapsed().as_nanos() as u64;
            // Relaxed: the consumer reads it after receiving an element sent after this store.
            start_ns.store(start, Ordering::Relaxed);
            let mut seq = 0u64;
            // The first element goes out even if the window has closed, so there is always a
            // latency to report.
            while seq == 0 || !stop.load(Ordering::Relaxed) {
                let due = start + (seq as f64 * period_ns) as u64;
                loop {
                    let now = origin.elapsed().as_nanos() as u64;
                    if now >= due || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // Far ahead: sleep; near: give the core away (the consumer may share
                    // it); within 20 us: spin.
                    if due - now > 200_000 {
                        std::thread::sleep(Duration::from_nanos(due - now - 100_000));
                    } else if due - now > 20_000 {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                tx.send([seq]);
                seq += 1;
            }
            drop(tx);
            seq
        });
        let cons = s.spawn(move || {
            let mut seen = Seen::new(1);
            let mut lat = Vec::with_capacity(expected);
            barrier.wait();
            while let Some(e) = rx.recv() {
                let now = origin.elapsed().as_nanos() as u64;
                seen.see(&e);
                // Relaxed: see the producer's store.
                let start = start_ns.load(Ordering::Relaxed);
                let due = start + (e[0] as f64 * period_ns) as u64;
                lat.push(now.saturating_sub(due));
                // Relaxed: a count for the window.
                slot.store(seen.total, Ordering::Relaxed);
            }
            (seen, lat)
        });
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || {
            slot.load(Ordering::Relaxed)
        });
        (wall, ru, ops, prod.join(), cons.join())
    });
    let sent = sent.map_err(|_| panicked(spec))?;
    let (seen, mut lat) = got.map_err(|_| panicked(spec))?;
    verify(&spec.channel, &[sent], std::slice::from_ref(&seen))?;
    lat.sort_unstable();
    let median = quantile(&lat, 0.5);
    let extra = BTreeMap::from([
        ("p50_ns".to_string(), median),
        ("p99_ns".to_string(), quantile(&lat, 0.99)),
        ("max_ns".to_string(), quantile(&lat, 1.0)),
        ("rate_per_s".to_string(), rate as f64),
        ("achieved_per_s".to_string(), ops as f64 / wall),
    ]);
    Ok(Sample {
        extra,
        ..sample(spec, median, sent, wall, ru, &hw, vec![sent])
    })
}

/// W3: source → transform → sink over two channels, 64-byte records, `work_iters` of work per
/// record in every stage.
pub(super) fn run_pipeline<F: Flavor>(spec: &Spec) -> Result<Sample> {
    type Rec = [u64; 8];
    let (mut tx1, mut rx1) = F::make::<Rec>();
    let (mut tx2, mut rx2) = F::make::<Rec>();
    let work = spec.work_iters;
    let limit = spec.limit;
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(4);
    let hw = HwCounters::open();
    let (slot, stop, barrier) = (&slot, &stop, &barrier);
    let (wall, ru, ops, sent, mid, sink) = std::thread::scope(|s| {
        let source = s.spawn(move || {
            let mut seq = 0u64;
            barrier.wait();
            while !stop.load(Ordering::Relaxed) {
                if work > 0 {
                    busy(work);
                }
                let mut r = Rec::make(seq);
                r[1] = seq.wrapping_mul(3);
                tx1.send(r);
                seq += 1;
                if limit > 0 && seq.is_multiple_of(64) {
                    let backoff = Backoff::new();
                    // Relaxed: flow control only.
                    while seq.saturating_sub(slot.load(Ordering::Relaxed)) > limit
                        && !stop.load(Ordering::Relaxed)
                    {
                        backoff.snooze();
                    }
                }
            }
            drop(tx1);
            seq
        });
        let middle = s.spawn(move || {
            let mut n = 0u64;
            barrier.wait();
            while let Some(mut r) = rx1.recv() {
                if work > 0 {
                    busy(work);
                }
                r[2] = r[1] ^ 0x5555_5555_5555_5555;
                tx2.send(r);
                n += 1;
            }
            drop(tx2);
            n
        });
        let sink = s.spawn(move || {
            let mut seen = Seen::new(1);
            barrier.wait();
            while let Some(r) = rx2.recv() {
                if work > 0 {
                    busy(work);
                }
                seen.see(&r);
                if r[1] != r[0].wrapping_mul(3) || r[2] != r[1] ^ 0x5555_5555_5555_5555 {
                    seen.error(format!("record {} altered on the way", r[0]));
                }
                // Relaxed: a count for the window and the source's flow control.
                slot.store(seen.total, Ordering::Relaxed);
            }
            seen
        });
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || {
            slot.load(Ordering::Relaxed)
        });
        (wall, ru, ops, source.join(), middle.join(), sink.join())
    });
    let sent = sent.map_err(|_| panicked(spec))?;
    let mid = mid.map_err(|_| panicked(spec))?;
    let seen = sink.map_err(|_| panicked(spec))?;
    if mid != sent {
        return Err(Error::new(format!(
            "{}: the middle stage passed {mid} of {sent} records",
            spec.channel
        )));
    }
    verify(&spec.channel, &[sent], std::slice::from_ref(&seen))?;
    Ok(sample(
        spec,
        ops as f64 / wall / 1e6,
        ops,
        wall,
        ru,
        &hw,
        vec![sent, mid, seen.total],
    ))
}

/// Resident memory after a burst: queue `spec.burst` 8-byte elements on one thread, drain them
/// all, and compare the process's resident memory with what it was with the channel idle.
/// Runs in a child process of its own (resident memory is the whole process's).
pub(super) fn run_memory<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let rss = || {
        crate::alloc::resident_kib()
            .map(|k| k as f64)
            .ok_or_else(|| Error::new("cannot read /proc/self/statm"))
    };
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    // One element through, so that the idle channel holds whatever it keeps when idle.
    if !tx.send([0]) || rx.try_recv().is_none() {
        return Err(Error::new(format!(
            "{}: the first element did not come through",
            spec.channel
        )));
    }
    let idle = rss()?;
    let t0 = Instant::now();
    for i in 0..spec.burst {
        if !tx.send([i]) {
            return Err(Error::new(format!(
                "{}: send {i} of the burst failed",
                spec.channel
            )));
        }
    }
    let peak = rss()?;
    let mut sum = 0u64;
    for i in 0..spec.burst {
        match rx.try_recv() {
            Some([v]) if v == i => sum = sum.wrapping_add(v),
            Some([v]) => {
                return Err(Error::new(format!(
                    "{}: element {i} of the burst came out as {v}",
                    spec.channel
                )));
            }
            None => {
                return Err(Error::new(format!(
                    "{}: element {i} of the burst is missing",
                    spec.channel
                )));
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    if rx.try_recv().is_some() {
        return Err(Error::new(format!(
            "{}: an element came out twice",
            spec.channel
        )));
    }
    let drained = rss()?;
    // Allocators that purge on a timer (mimalloc) get a moment to do it.
    std::thread::sleep(Duration::from_millis(200));
    let settled = rss()?;
    drop((tx, rx));
    Ok(Sample {
        variant: spec.channel.clone(),
        value: drained / idle,
        ops: spec.burst,
        wall_s: wall,
        extra: BTreeMap::from([
            ("idle_kib".to_string(), idle),
            ("peak_kib".to_string(), peak),
            ("drained_kib".to_string(), drained),
            ("settled_kib".to_string(), settled),
            ("settled_ratio".to_string(), settled / idle),
            ("checksum".to_string(), sum as f64),
        ]),
        ..Default::default()
    })
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
