//! The C side: libgomp's constructs, barriers and reductions (`c/omp_kernels.c`, built with
//! `-fopenmp`) behind safe wrappers, and the EPCC arithmetic both sides share.

use super::*;

/// Safe wrappers over `c/omp_kernels.c`; in a build without libgomp, each returns the reason.
#[cfg(wt_libgomp)]
pub(super) mod gomp {
    use super::{Construct, Error, Result, Sample, calibrate, expected_count, overhead_sample};

    mod ffi {
        unsafe extern "C" {
            pub fn wt_omp_ref(reps: i64, delay: i64) -> f64;
            pub fn wt_omp_construct(
                construct: i32,
                threads: i32,
                reps: i64,
                delay: i64,
                check: *mut i64,
            ) -> f64;
            pub fn wt_omp_critical_throughput(
                threads: i32,
                seconds: f64,
                cs: i64,
                ops: *mut i64,
            ) -> f64;
            pub fn wt_omp_pi(
                threads: i32,
                schedule: i32,
                chunk: i32,
                steps: i64,
                pi: *mut f64,
            ) -> f64;
            pub fn wt_omp_mandel(
                threads: i32,
                schedule: i32,
                chunk: i32,
                n: i32,
                max_iter: i32,
                count: *mut i64,
            ) -> f64;
            pub fn wt_omp_matmul(
                threads: i32,
                schedule: i32,
                chunk: i32,
                n: i32,
                a: *const f64,
                b: *const f64,
                c: *mut f64,
            ) -> f64;
            pub fn wt_omp_idle_cpu(threads: i32, seconds: f64) -> f64;
        }
    }

    fn reference(reps: u64, delay: i64) -> f64 {
        // SAFETY: `wt_omp_ref` only runs a local loop; it has no preconditions.
        unsafe { ffi::wt_omp_ref(reps as i64, delay) }
    }

    /// Iterations of the C delay loop that take about `ns` (calibrated in this process: the best
    /// of three runs of 200,000 iterations).
    fn delay_iters(ns: u64) -> i64 {
        if ns == 0 {
            return 0;
        }
        let probe = 200_000i64;
        let best = (0..3)
            .map(|_| reference(1, probe))
            .fold(f64::INFINITY, f64::min);
        ((ns as f64 * 1e-9 / (best / probe as f64)).round() as i64).max(1)
    }

    /// The EPCC overhead of `construct` under libgomp.
    pub fn construct(c: Construct, threads: usize, delay_ns: u64, target: f64) -> Result<Sample> {
        let delay = if c.delayed() {
            delay_iters(delay_ns)
        } else {
            0
        };
        let mut check = 0i64;
        let (reps, test) = calibrate(target, |reps| {
            // SAFETY: `check` is a valid, exclusive i64; the other arguments are plain values.
            unsafe {
                ffi::wt_omp_construct(c.c_code(), threads as i32, reps as i64, delay, &mut check)
            }
        });
        if let Some(e) = expected_count(c, threads, reps)
            && check as u64 != e
        {
            return Err(Error::new(format!(
                "libgomp {} counted {check}, expected {e}",
                c.name()
            )));
        }
        let refer = if c.delayed() {
            reference(reps, delay)
        } else {
            0.0
        };
        Ok(overhead_sample(reps, test, refer))
    }

    /// `omp critical` throughput: (seconds, acquisitions).
    pub fn critical_throughput(threads: usize, seconds: f64, cs_iters: u64) -> Result<(f64, u64)> {
        let mut ops = 0i64;
        // SAFETY: `ops` is a valid, exclusive i64; the rest are plain values.
        let secs = unsafe {
            ffi::wt_omp_critical_throughput(threads as i32, seconds, cs_iters as i64, &mut ops)
        };
        Ok((secs, ops as u64))
    }

    /// Pi with `steps` intervals.
    pub fn pi(threads: usize, sched: i32, chunk: usize, steps: usize) -> Result<f64> {
        let mut pi = 0.0;
        // SAFETY: `pi` is a valid, exclusive f64.
        unsafe { ffi::wt_omp_pi(threads as i32, sched, chunk as i32, steps as i64, &mut pi) };
        Ok(pi)
    }

    /// The Mandelbrot iteration count.
    pub fn mandel(threads: usize, sched: i32, chunk: usize, n: usize, iter: u32) -> Result<f64> {
        let mut count = 0i64;
        // SAFETY: `count` is a valid, exclusive i64.
        unsafe {
            ffi::wt_omp_mandel(
                threads as i32,
                sched,
                chunk as i32,
                n as i32,
                iter as i32,
                &mut count,
            )
        };
        Ok(count as f64)
    }

    /// `c = a * b` for n x n matrices.
    pub fn matmul(
        threads: usize,
        sched: i32,
        chunk: usize,
        n: usize,
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
    ) -> Result<()> {
        assert!(a.len() >= n * n && b.len() >= n * n && c.len() >= n * n);
        // SAFETY: `a` and `b` hold n*n readable elements and `c` n*n writable ones (checked
        // above), all alive and unaliased for the call.
        unsafe {
            ffi::wt_omp_matmul(
                threads as i32,
                sched,
                chunk as i32,
                n as i32,
                a.as_ptr(),
                b.as_ptr(),
                c.as_mut_ptr(),
            )
        };
        Ok(())
    }

    /// CPU seconds burnt in `seconds` of idleness after a region.
    pub fn idle_cpu(threads: usize, seconds: f64) -> Result<f64> {
        // SAFETY: plain values; the function runs a region, then sleeps.
        Ok(unsafe { ffi::wt_omp_idle_cpu(threads as i32, seconds) })
    }
}

/// A build without libgomp: every libgomp variant reports why it cannot run.
#[cfg(not(wt_libgomp))]
pub(super) mod gomp {
    use super::{Construct, Error, LIBGOMP_SKIPPED, Result, Sample};

    fn missing<T>() -> Result<T> {
        Err(Error::new(format!(
            "libgomp is not built in: {LIBGOMP_SKIPPED}"
        )))
    }
    pub fn construct(_: Construct, _: usize, _: u64, _: f64) -> Result<Sample> {
        missing()
    }
    pub fn critical_throughput(_: usize, _: f64, _: u64) -> Result<(f64, u64)> {
        missing()
    }
    pub fn pi(_: usize, _: i32, _: usize, _: usize) -> Result<f64> {
        missing()
    }
    pub fn mandel(_: usize, _: i32, _: usize, _: usize, _: u32) -> Result<f64> {
        missing()
    }
    pub fn matmul(
        _: usize,
        _: i32,
        _: usize,
        _: usize,
        _: &[f64],
        _: &[f64],
        _: &mut [f64],
    ) -> Result<()> {
        missing()
    }
    pub fn idle_cpu(_: usize, _: f64) -> Result<f64> {
        missing()
    }
}

/// What a construct's own counter must read after `reps` instances (`None`: not counted).
pub(super) fn expected_count(construct: Construct, threads: usize, reps: u64) -> Option<u64> {
    let per_thread = reps / threads as u64 * threads as u64;
    match construct {
        Construct::Single => Some(reps),
        Construct::Critical | Construct::Lock | Construct::Atomic => Some(per_thread),
        Construct::Reduction => Some(reps * threads as u64),
        Construct::DynamicChunk => Some(reps),
        _ => None,
    }
}

/// Runs `test(reps)` with growing `reps` until one run lasts about `target` seconds; returns
/// the final `reps` and its elapsed seconds (EPCC's inner-repetition calibration).
pub(super) fn calibrate(target: f64, mut test: impl FnMut(u64) -> f64) -> (u64, f64) {
    let mut reps = 8u64;
    loop {
        let t = test(reps);
        if t >= target || reps >= 1 << 30 {
            return (reps, t);
        }
        let grow = if t <= 0.0 {
            16.0
        } else {
            (target / t * 1.2).clamp(1.5, 16.0)
        };
        reps = ((reps as f64 * grow) as u64).max(reps + 1);
    }
}

/// The EPCC figure: (test - reference) / reps, in µs.
pub(super) fn overhead_sample(reps: u64, test: f64, reference: f64) -> Sample {
    Sample {
        value: (test - reference) / reps as f64 * 1e6,
        ops: reps,
        wall_s: test,
        extra: BTreeMap::from([
            ("test_s".to_string(), test),
            ("reference_s".to_string(), reference),
        ]),
        ..Default::default()
    }
}
