//! W2, latency: the producer sends element `i` at `start + i / rate`, and the consumer records
//! each element's time from its due time to its arrival. Cells: 10^4, 10^5 and 10^6 elements a
//! second (quick: 10^5), nanoseconds at the median (p99 and the maximum in `extra`).

use super::*;

/// W2's cells.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let rates: &[u64] = if p.plan.quick {
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
        p.push(CellDef {
            id: format!("w2/rate={r}"),
            title: format!("W2 latency from due time (median; p99 in extra), {r}/s"),
            x: Some(("target rate (elements/s)", serde_json::json!(r))),
            params: BTreeMap::new(),
            metric: metric.clone(),
            spec: Spec {
                rate: r,
                latency: true,
                limit: 0,
                ..p.base.clone()
            },
            variants: p.fit(false, false),
        });
    }
}

/// The `q` quantile (0..=1) of sorted `v`, by the nearest rank.
pub(in crate::sections::channel) fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

/// W2: the producer sends element `i` at `start + i / rate`; the consumer records, for each, the
/// time from its due time to its arrival.
pub(in crate::sections::channel) fn run_latency<F: Flavor>(spec: &Spec) -> Result<Sample> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
        assert_eq!(quantile(&[7], 0.0), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }
}
