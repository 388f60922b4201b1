//! Statistics for paired measurements: medians, percentiles and a seeded bootstrap interval.
//!
//! Absolute times on a shared machine are noisy; the harness quotes ratios taken within one
//! repetition and summarises them by their median with a bootstrap 95% interval (percentile
//! method, resampling with replacement). The resampling uses a fixed-seed SplitMix64 generator, so
//! the same samples always give the same interval.

/// Number of bootstrap resamples used by the reports.
pub const RESAMPLES: usize = 2000;

/// Seed of the bootstrap generator used by the reports.
pub const SEED: u64 = 0x5745_4c4c_5445_4d50;

/// SplitMix64: a small, fast, deterministic generator (Steele, Lea & Flood, 2014).
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A uniform index in `0..n` (`n > 0`; the modulo bias is negligible for sample counts).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// The median of `xs` (mean of the two middle values for an even count); `None` when empty or when
/// a value is NaN.
pub fn median(xs: &[f64]) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// The `q`-quantile (0 ≤ q ≤ 1) of `xs` by linear interpolation between order statistics; `None`
/// when empty or when a value is NaN.
pub fn quantile(xs: &[f64], q: f64) -> Option<f64> {
    if xs.is_empty() || xs.iter().any(|x| x.is_nan()) {
        return None;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let pos = q.clamp(0.0, 1.0) * (v.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    let frac = pos - lo as f64;
    Some(v[lo] + (v[hi] - v[lo]) * frac)
}

/// A median with its bootstrap 95% interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Estimate {
    /// The sample median.
    pub median: f64,
    /// Lower end of the 95% interval (2.5th percentile of the bootstrap medians).
    pub lo: f64,
    /// Upper end of the 95% interval (97.5th percentile of the bootstrap medians).
    pub hi: f64,
}

/// The median of `xs` and its percentile-bootstrap 95% interval from `resamples` resamples drawn
/// with a generator seeded by `seed`. `None` when `xs` is empty or holds a NaN.
///
/// The interval always contains the median: each bound is clamped to it, since with very few
/// samples the percentile interval of a discrete statistic can otherwise sit beside it.
pub fn bootstrap_median(xs: &[f64], resamples: usize, seed: u64) -> Option<Estimate> {
    let m = median(xs)?;
    if xs.len() == 1 || resamples == 0 {
        return Some(Estimate {
            median: m,
            lo: m,
            hi: m,
        });
    }
    let mut rng = SplitMix64::new(seed);
    let mut buf = vec![0.0; xs.len()];
    let mut medians = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for slot in buf.iter_mut() {
            *slot = xs[rng.below(xs.len())];
        }
        medians.push(median(&buf)?);
    }
    let lo = quantile(&medians, 0.025)?.min(m);
    let hi = quantile(&medians, 0.975)?.max(m);
    Some(Estimate { median: m, lo, hi })
}

/// The median and interval with the report's fixed resample count and seed.
pub fn estimate(xs: &[f64]) -> Option<Estimate> {
    bootstrap_median(xs, RESAMPLES, SEED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[1.0, f64::NAN]), None);
        assert_eq!(median(&[7.0]), Some(7.0));
    }

    #[test]
    fn quantile_interpolates() {
        let xs = [0.0, 10.0];
        assert_eq!(quantile(&xs, 0.5), Some(5.0));
        assert_eq!(quantile(&xs, 0.0), Some(0.0));
        assert_eq!(quantile(&xs, 1.0), Some(10.0));
    }

    #[test]
    fn bootstrap_contains_median_and_is_deterministic() {
        let xs = [1.0, 1.2, 0.9, 1.1, 1.05, 0.95, 1.3];
        let a = bootstrap_median(&xs, 2000, 42).unwrap();
        let b = bootstrap_median(&xs, 2000, 42).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.median, 1.05);
        assert!(a.lo <= a.median && a.median <= a.hi);
        assert!(a.lo >= 0.9 && a.hi <= 1.3);
        // A different seed may move the bounds but never past the data.
        let c = bootstrap_median(&xs, 2000, 7).unwrap();
        assert!(c.lo >= 0.9 && c.hi <= 1.3);
    }

    #[test]
    fn bootstrap_of_constant_is_degenerate() {
        let e = estimate(&[2.0; 5]).unwrap();
        assert_eq!((e.lo, e.median, e.hi), (2.0, 2.0, 2.0));
        let one = estimate(&[3.0]).unwrap();
        assert_eq!((one.lo, one.hi), (3.0, 3.0));
        assert!(estimate(&[]).is_none());
    }

    #[test]
    #[cfg_attr(miri, ignore)] // 2000 resamples of 500 values: minutes under Miri
    fn bootstrap_interval_shrinks_with_more_data() {
        let mut rng = SplitMix64::new(1);
        let small: Vec<f64> = (0..5).map(|_| (rng.next_u64() % 1000) as f64).collect();
        let large: Vec<f64> = (0..500).map(|_| (rng.next_u64() % 1000) as f64).collect();
        let s = estimate(&small).unwrap();
        let l = estimate(&large).unwrap();
        assert!(l.hi - l.lo < s.hi - s.lo);
    }
}
