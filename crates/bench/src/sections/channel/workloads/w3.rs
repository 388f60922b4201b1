//! W3, a pipeline: source, transform and sink over two channels, 64-byte records, a grain of
//! work per record in every stage. Cells: 0, 1 µs, 10 µs, 100 µs and 1 ms per stage (quick: 0
//! and 10 µs).

use super::*;

/// W3's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let grains: &[u64] = if p.plan.quick {
        &[0, 10_000]
    } else {
        &[0, 1_000, 10_000, 100_000, 1_000_000]
    };
    for &g in grains {
        p.push(CellDef {
            id: format!("w3/grain={}", fmt_ns(g)),
            title: format!(
                "W3 three-stage pipeline, 64-byte records, {} per stage",
                fmt_ns(g)
            ),
            x: Some(("work per stage (ns)", serde_json::json!(g))),
            params: BTreeMap::new(),
            metric: p.throughput.clone(),
            spec: Spec {
                bytes: 64,
                pipeline: true,
                work_iters: p.iters(g),
                ..p.base.clone()
            },
            variants: p.fit(false, false),
        });
    }
}

/// W3: source → transform → sink over two channels, 64-byte records, `work_iters` of work per
/// record in every stage.
pub(in crate::sections::channel) fn run_pipeline<F: Flavor>(spec: &Spec) -> Result<Sample> {
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
