//! W9, many threads: 2:1, 1:2, 2:2 and 4:4 producers to consumers on one shared channel
//! (quick: 2:1 and 2:2), and pairwise, where 4 threads each send one element and then receive
//! one.

use super::*;

/// W9's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let shapes: &[(usize, usize)] = if p.plan.quick {
        &[(2, 1), (2, 2)]
    } else {
        &[(2, 1), (1, 2), (2, 2), (4, 4)]
    };
    for &(tx, rx) in shapes {
        p.push(CellDef {
            id: format!("w9/{tx}:{rx}"),
            title: format!("W9 {tx} producers, {rx} consumers"),
            x: None,
            params: BTreeMap::from([(
                "shape".to_string(),
                serde_json::json!(format!("{tx}:{rx}")),
            )]),
            metric: p.throughput.clone(),
            spec: Spec {
                producers: tx,
                consumers: rx,
                ..p.base.clone()
            },
            variants: p.fit(tx > 1, rx > 1),
        });
    }
    if !p.plan.quick {
        p.push(CellDef {
            id: "w9/pairwise-4".into(),
            title: "W9 pairwise: 4 threads each send one, then receive one".into(),
            x: None,
            params: BTreeMap::from([("shape".to_string(), serde_json::json!("pairwise-4"))]),
            metric: p.throughput.clone(),
            spec: Spec {
                producers: 4,
                consumers: 4,
                pairwise: true,
                limit: 0,
                ..p.base.clone()
            },
            variants: p.fit(true, true),
        });
    }
}

/// W9 pairwise: every thread sends one element, then receives one, on one shared channel.
pub(in crate::sections::channel) fn run_pairwise<F: Flavor>(spec: &Spec) -> Result<Sample> {
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
