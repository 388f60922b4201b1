//! The calibrated busy work that stands for a critical section or for work between operations,
//! shared by every section.

use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// A busy loop of `iters` iterations: the calibrated critical-section work.
#[inline(never)]
pub fn busy(iters: u64) {
    let mut x = 0u64;
    for i in 0..iters {
        x = black_box(x ^ i);
    }
    black_box(x);
}

/// Iterations of [`busy`] per nanosecond on this machine, measured once per process (the best of
/// a few trials, so a preempted trial does not count).
pub fn busy_iters_per_ns() -> f64 {
    static CAL: OnceLock<f64> = OnceLock::new();
    *CAL.get_or_init(|| {
        let n: u64 = if cfg!(miri) { 1 << 8 } else { 1 << 20 };
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let t = Instant::now();
            busy(n);
            best = best.min(t.elapsed().as_nanos() as f64);
        }
        n as f64 / best.max(1.0)
    })
}

/// Iterations of [`busy`] that take about `ns` nanoseconds (0 for 0).
pub fn busy_iters(ns: u64) -> u64 {
    if ns == 0 {
        0
    } else {
        ((ns as f64 * busy_iters_per_ns()).round() as u64).max(1)
    }
}
