//! Memory after a burst: resident memory once 10^6 queued 8-byte elements are drained, over the
//! idle channel's, in a child process of its own (resident memory is the whole process's).

use super::*;

/// The memory workload's cell: the heap-bound channels of the plan.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    let variants = p
        .plan
        .channels
        .iter()
        .filter(|c| HEAP_CHANNELS.contains(&c.as_str()))
        .cloned()
        .collect();
    p.push(CellDef {
        id: "memory/burst=1e6".into(),
        title: "memory: resident memory after 10^6 queued 8-byte elements are drained, over \
                the idle channel's (whole process)"
            .into(),
        x: None,
        params: BTreeMap::new(),
        metric: Metric {
            unit: "x idle".into(),
            higher_is_better: false,
            op: "burst".into(),
        },
        spec: Spec {
            burst: 1_000_000,
            ..p.base.clone()
        },
        variants,
    });
}

/// Resident memory after a burst: queue `spec.burst` 8-byte elements on one thread, drain them
/// all, and compare the process's resident memory with what it was with the channel idle.
/// Runs in a child process of its own (resident memory is the whole process's).
pub(in crate::sections::channel) fn run_memory<F: Flavor>(spec: &Spec) -> Result<Sample> {
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
