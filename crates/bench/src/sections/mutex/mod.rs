//! MutexBench (Dice & Kogan, "Hemlock: Compact and Scalable Mutual Exclusion", §5, Figures 2–3)
//! with omp0's critical-section sweep.
//!
//! `T` threads start on a barrier and loop until a stop flag: acquire one central lock, run the
//! critical section, release, run the non-critical section; each counts its acquisitions.
//!
//! - `max`: the paper's maximum contention: empty critical and non-critical sections (at one
//!   thread, the uncontended cost of acquire + release).
//! - `moderate`: the critical section advances a shared PRNG, kept inside the lock's data, 5
//!   steps; the non-critical section advances a thread-local PRNG a uniform 0–200 steps.
//! - `--cs`: omp0's sweep, adding a calibrated busy loop of 0, 100 ns, 1 µs or 10 µs inside the
//!   lock to either workload.
//! - `latency`: one thread, lock + unlock, nanoseconds per pair.
//!
//! Mutual exclusion is checked on every run: the protected data holds a plain (non-atomic)
//! counter that every critical section increments; its final value must equal the sum of the
//! per-thread counts, or the run fails.
//!
//! Every lock is driven through [`BenchLock`], a generic trait, so each lock's loop is
//! monomorphized: there is no dynamic dispatch on the hot path, only one function pointer per run.

use super::{Ctx, Suite};
use crate::args::{Threads, parse_duration, parse_positive, parse_threads, same_name};
use crate::counters::{HwCounters, Rusage};
use crate::harness::{self, Progress};
use crate::model::{Group, Metric, Sample, Section};
pub use crate::work::{busy, busy_iters, busy_iters_per_ns};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Barrier;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use welltempered_lock as wl;

mod condvar;
mod rwlock;
mod summary;

/// A lock as the benchmark drives it: construct around data, run a closure under the lock, take
/// the data back.
pub trait BenchLock<T>: Sync {
    /// A lock protecting `value`.
    fn new(value: T) -> Self;
    /// Runs `f` on the protected data while holding the lock.
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R;
    /// The protected data.
    fn into_inner(self) -> T;
}

/// `std::sync::Mutex` (a futex lock on Linux).
#[derive(Debug)]
pub struct StdLock<T>(std::sync::Mutex<T>);

impl<T: Send> BenchLock<T> for StdLock<T> {
    fn new(value: T) -> Self {
        Self(std::sync::Mutex::new(value))
    }
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()))
    }
    fn into_inner(self) -> T {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// `spin::Mutex` (spin 0.12, a test-and-set spinlock).
#[derive(Debug)]
pub struct SpinLock<T>(spin::Mutex<T>);

impl<T: Send> BenchLock<T> for SpinLock<T> {
    fn new(value: T) -> Self {
        Self(spin::Mutex::new(value))
    }
    #[inline(always)]
    fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut self.0.lock())
    }
    fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

/// Any `lock_api` 0.5 raw mutex: `parking_lot::RawMutex` and all of ours.
pub struct ApiLock<R: lock_api::RawMutex, T>(lock_api::Mutex<R, T>);

impl<R: lock_api::RawMutex + Sync + Send, T: Send> BenchLock<T> for ApiLock<R, T> {
    fn new(value: T) -> Self {
        Self(lock_api::Mutex::new(value))
    }
    #[inline(always)]
    fn with<U>(&self, f: impl FnOnce(&mut T) -> U) -> U {
        f(&mut self.0.lock())
    }
    fn into_inner(self) -> T {
        self.0.into_inner()
    }
}

/// The data inside the lock.
#[derive(Debug, Default)]
pub struct Shared {
    /// Incremented by every critical section: the mutual-exclusion check.
    pub counter: u64,
    /// The shared PRNG of the moderate workload.
    pub prng: u64,
}

/// One step of xorshift64 (Marsaglia), the PRNG of both sections.
#[inline(always)]
pub fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

/// The MutexBench workloads, and the condition-variable ping-pong.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Empty critical and non-critical sections: the highest arrival rate.
    Max,
    /// 5 shared PRNG steps inside the lock, 0–200 thread-local PRNG steps outside.
    Moderate,
    /// Two threads passing a turn through a mutex and a condition variable (see `condvar.rs`).
    Condvar,
    /// A reader-writer lock, 50% reads (see `rwlock.rs`): ours, parking_lot's and std's.
    Read50,
    /// A reader-writer lock, 90% reads.
    Read90,
    /// A reader-writer lock, 99% reads.
    Read99,
}

impl Workload {
    /// The name used in ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::Max => "max",
            Self::Moderate => "moderate",
            Self::Condvar => "condvar",
            Self::Read50 => "read50",
            Self::Read90 => "read90",
            Self::Read99 => "read99",
        }
    }

    /// Whether it measures a reader-writer lock (a group of its own, not a mutex cell).
    pub fn is_rwlock(self) -> bool {
        rwlock::read_percent(self).is_some()
    }
}

/// What one child or in-process run measures.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// Lock name.
    pub lock: String,
    /// `None` for the uncontended-latency run.
    pub workload: Option<Workload>,
    /// Busy work inside the lock, nanoseconds.
    pub cs_ns: u64,
    /// Iterations of [`busy`] for `cs_ns` (calibrated by the parent, so children agree).
    pub cs_iters: u64,
    /// Threads.
    pub threads: usize,
    /// Length of the measured window, nanoseconds.
    pub duration_ns: u64,
}

type RunFn = fn(&Spec) -> Result<Sample>;

/// The variants of the reader-writer workloads: ours first, then the baselines.
pub const RWLOCKS: [&str; 3] = ["rwlock", "parking_lot", "std"];

/// One lock the benchmark knows.
#[derive(Clone, Copy, Debug)]
pub struct LockEntry {
    /// Name on the command line and in tables.
    pub name: &'static str,
    /// Whether it is one of ours (else a baseline from another crate).
    pub ours: bool,
    run: RunFn,
    latency: RunFn,
    pairs: fn(u64) -> u64,
}

impl LockEntry {
    /// Runs [`uncontended_pairs`] for this lock.
    pub fn uncontended_pairs(&self, n: u64) -> u64 {
        (self.pairs)(n)
    }
}

macro_rules! entry {
    ($name:expr, $ours:expr, $lock:ty) => {
        LockEntry {
            name: $name,
            ours: $ours,
            run: run_cell::<$lock>,
            latency: run_latency::<$lock>,
            pairs: uncontended_pairs::<$lock>,
        }
    };
}

/// Every lock, baselines first.
pub fn locks() -> &'static [LockEntry] {
    const LOCKS: &[LockEntry] = &[
        entry!("std", false, StdLock<Shared>),
        entry!("parking_lot", false, ApiLock<parking_lot::RawMutex, Shared>),
        entry!("spin", false, SpinLock<Shared>),
        entry!("hemlock", true, ApiLock<wl::Hemlock, Shared>),
        entry!("hemlock-park", true, ApiLock<wl::HemlockPark, Shared>),
        entry!("hemlock-overlap", true, ApiLock<wl::HemlockOverlap, Shared>),
        entry!("hemlock-overlap-park", true, ApiLock<wl::HemlockOverlapPark, Shared>),
        entry!("hemlock-ah", true, ApiLock<wl::HemlockAh, Shared>),
        entry!("hemlock-ah-park", true, ApiLock<wl::HemlockAhPark, Shared>),
        entry!("mcs", true, ApiLock<wl::Mcs, Shared>),
        entry!("mcs-park", true, ApiLock<wl::McsPark, Shared>),
        entry!("clh", true, ApiLock<wl::Clh, Shared>),
        entry!("clh-park", true, ApiLock<wl::ClhPark, Shared>),
        entry!("ticket", true, ApiLock<wl::Ticket, Shared>),
        entry!("ticket-park", true, ApiLock<wl::TicketPark, Shared>),
        entry!("tas", true, ApiLock<wl::Tas, Shared>),
        entry!("ttas", true, ApiLock<wl::Ttas, Shared>),
        entry!("ttas-yield", true, ApiLock<wl::TtasYield, Shared>),
        entry!("futex", true, ApiLock<wl::Futex, Shared>),
        entry!("two-phase", true, ApiLock<wl::TwoPhase, Shared>),
        entry!("mutex", true, ApiLock<wl::RawMutex, Shared>),
    ];
    LOCKS
}

/// The baselines that ratio columns are taken against.
pub const RATIO_BASELINES: &[&str] = &["std", "parking_lot"];

/// The locks of quick mode (those that exist). With 64 threads on 2 cores a FIFO spin lock takes
/// seconds to drain its queue after the stop flag (each hand-over waits for a descheduled waiter),
/// so quick mode keeps two of them (Hemlock, MCS) and runs ticket in its spin-then-park form;
/// CLH and the spinning ticket lock are left to the full run.
pub const QUICK_LOCKS: &[&str] = &[
    "hemlock",
    "hemlock-park",
    "mcs",
    "mcs-park",
    "ticket-park",
    "futex",
    "mutex",
    "std",
    "parking_lot",
    "spin",
];

/// The lock called `name`, or an error listing the valid names.
pub fn lock_entry(name: &str) -> Result<&'static LockEntry> {
    locks()
        .iter()
        .find(|e| same_name(e.name, name))
        .ok_or_else(|| {
            let valid: Vec<&str> = locks().iter().map(|e| e.name).collect();
            Error::new(format!(
                "unknown lock {name:?}; valid locks: {}",
                valid.join(", ")
            ))
        })
}

/// Runs one measurement of `spec` in this process.
pub fn run_spec(spec: &Spec) -> Result<Sample> {
    if let Some(w) = spec.workload.filter(|w| w.is_rwlock()) {
        let run = rwlock::runner(&spec.lock).ok_or_else(|| {
            Error::new(format!(
                "{}: not a reader-writer lock of the {} workload (one of {})",
                spec.lock,
                w.name(),
                RWLOCKS.join(", ")
            ))
        })?;
        let mut s = run(spec)?;
        s.variant = spec.lock.clone();
        return Ok(s);
    }
    let e = lock_entry(&spec.lock)?;
    let mut s = if spec.workload == Some(Workload::Condvar) {
        let run = condvar::runner(&spec.lock).ok_or_else(|| {
            Error::new(format!("{}: no condition variable to pair with", spec.lock))
        })?;
        run(spec)?
    } else if spec.workload.is_some() {
        (e.run)(spec)?
    } else {
        (e.latency)(spec)?
    };
    s.variant = spec.lock.clone();
    Ok(s)
}

/// The loop of one thread; returns the acquisitions it made before seeing the stop flag.
#[inline(always)]
fn worker<L: BenchLock<Shared>>(
    lock: &L,
    stop: &AtomicBool,
    barrier: &Barrier,
    workload: Workload,
    cs_iters: u64,
    seed: u64,
) -> u64 {
    let mut local = seed | 1;
    let mut n = 0u64;
    barrier.wait();
    loop {
        let stopped = lock.with(|d| {
            d.counter += 1;
            if workload == Workload::Moderate {
                for _ in 0..5 {
                    d.prng = xorshift(d.prng);
                }
            }
            if cs_iters > 0 {
                busy(cs_iters);
            }
            // Relaxed: the flag only ends the loop; the counts travel back through `join`.
            stop.load(Ordering::Relaxed)
        });
        if stopped {
            break;
        }
        n += 1;
        if workload == Workload::Moderate {
            local = xorshift(local);
            for _ in 0..local % 201 {
                local = xorshift(local);
            }
        }
    }
    black_box(local);
    n
}

/// Runs the multi-threaded workload with lock `L`.
///
/// Throughput counts the acquisitions completed inside the window; the one acquisition per thread
/// that observes the stop flag is left out of it but is part of the mutual-exclusion check.
pub fn run_cell<L: BenchLock<Shared>>(spec: &Spec) -> Result<Sample> {
    let workload = spec.workload.unwrap_or(Workload::Max);
    let threads = spec.threads.max(1);
    let lock = L::new(Shared {
        counter: 0,
        prng: 0x2545_f491_4f6c_dd1d,
    });
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let hw = HwCounters::open();
    let started = Instant::now();
    // CPU time, context switches and hardware counts cover the measured window only: getrusage
    // sums every live thread, and the inherited events are switched on and off around it. Thread
    // start-up and the drain after the stop flag (long for FIFO spin locks when oversubscribed)
    // stay out of the per-acquisition figures.
    let (wall, ru, per_thread) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let (lock, stop, barrier) = (&lock, &stop, &barrier);
                let seed = 0x9e37_79b9_7f4a_7c15u64.wrapping_mul(i as u64 + 1);
                s.spawn(move || worker(lock, stop, barrier, workload, spec.cs_iters, seed))
            })
            .collect();
        barrier.wait();
        hw.enable();
        let ru0 = Rusage::now();
        let t0 = Instant::now();
        std::thread::sleep(Duration::from_nanos(spec.duration_ns));
        stop.store(true, Ordering::Relaxed);
        let wall = t0.elapsed();
        let ru = Rusage::now().since(&ru0);
        hw.disable();
        let counts: Vec<u64> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or(u64::MAX))
            .collect();
        (wall, ru, counts)
    });
    let run_s = started.elapsed().as_secs_f64();
    let hw = hw.read();
    if per_thread.contains(&u64::MAX) {
        return Err(Error::new(format!(
            "{}: a worker thread panicked",
            spec.lock
        )));
    }
    let ops: u64 = per_thread.iter().sum();
    let counter = lock.into_inner().counter;
    let expected = ops + threads as u64;
    if counter != expected {
        return Err(Error::new(format!(
            "mutual exclusion violated by {}: counter {counter}, expected {expected} \
             ({threads} threads, {} workload)",
            spec.lock,
            workload.name()
        )));
    }
    let wall_s = wall.as_secs_f64();
    Ok(Sample {
        variant: spec.lock.clone(),
        value: ops as f64 / wall_s / 1e6,
        ops,
        wall_s,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        hw,
        per_thread,
        child: false,
        // Whole run: spawn, window and drain.
        extra: BTreeMap::from([("run_s".to_string(), run_s)]),
        foreign_cpu_s: None,
    })
}

/// `n` uncontended lock + unlock pairs of a fresh lock `L` on this thread, with an empty
/// critical section (one increment); returns the final count, `n`. No clock is read, so that
/// the instructions it retires (counted under `valgrind`, `scripts/instructions.sh`) are the
/// lock's and the loop's alone: the difference between two values of `n` divided by their
/// difference is the cost of one pair.
#[inline(never)]
pub fn uncontended_pairs<L: BenchLock<Shared>>(n: u64) -> u64 {
    let lock = L::new(Shared::default());
    for _ in 0..n {
        lock.with(|d| d.counter += 1);
    }
    std::hint::black_box(lock.into_inner().counter)
}

/// Uncontended latency of lock `L`: one thread, lock + unlock, nanoseconds per pair.
pub fn run_latency<L: BenchLock<Shared>>(spec: &Spec) -> Result<Sample> {
    let lock = L::new(Shared::default());
    let window = Duration::from_nanos(spec.duration_ns);
    let hw = HwCounters::open();
    hw.enable();
    let ru0 = Rusage::now();
    let t0 = Instant::now();
    let mut ops = 0u64;
    let batch = if cfg!(miri) { 16 } else { 1024 };
    loop {
        for _ in 0..batch {
            lock.with(|d| d.counter += 1);
        }
        ops += batch;
        if t0.elapsed() >= window {
            break;
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let ru = Rusage::now().since(&ru0);
    hw.disable();
    let hw = hw.read();
    let counter = lock.into_inner().counter;
    if counter != ops {
        return Err(Error::new(format!(
            "{}: counter {counter} after {ops} uncontended acquisitions",
            spec.lock
        )));
    }
    Ok(Sample {
        variant: spec.lock.clone(),
        value: wall * 1e9 / ops as f64,
        ops,
        wall_s: wall,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        hw,
        per_thread: vec![ops],
        child: false,
        extra: BTreeMap::new(),
        foreign_cpu_s: None,
    })
}

/// Options of `welltempered mutex` (all lists are comma-separated).
#[derive(Args, Clone, Debug, Default)]
pub struct MutexArgs {
    /// Locks to run [default: all; quick: a subset]. Unknown names list the valid ones.
    #[arg(long, value_delimiter = ',')]
    pub locks: Option<Vec<String>>,
    /// Thread counts or ranges (1,2,4 or 2-8) [default: 1,2,4,8,16,64; quick:
    /// 1,2,4,16,64].
    #[arg(long, value_delimiter = ',', value_parser = parse_threads)]
    pub threads: Option<Vec<Threads>>,
    /// Workloads [default: max,moderate,condvar,read50,read90,read99]. The read* workloads run
    /// the reader-writer locks (ours as `rwlock`, `parking_lot`, `std`) whatever --locks says.
    #[arg(long, value_delimiter = ',', value_enum)]
    pub workload: Option<Vec<Workload>>,
    /// Busy work inside the lock, e.g. 0,100ns,1us,10us, for every workload [default:
    /// 0,100ns,1us,10us on max and 0 on moderate; quick: 0].
    #[arg(long, value_delimiter = ',', value_parser = parse_duration)]
    pub cs: Option<Vec<Duration>>,
    /// Measured window of each run, e.g. 200ms, 1.5s or 1m [default: 100ms; quick: 30ms].
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Repetitions (each runs every lock once) [default: 5, in --quick too].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
    /// Skip the uncontended-latency group.
    #[arg(long)]
    pub no_latency: bool,
    /// Run every measurement in a child process.
    #[arg(long)]
    pub isolate: bool,
}

/// The options in effect after defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Locks in table order.
    pub locks: Vec<String>,
    /// Thread counts.
    pub threads: Vec<usize>,
    /// Workloads.
    pub workloads: Vec<Workload>,
    /// Busy work inside the lock, nanoseconds.
    pub cs_ns: Vec<u64>,
    /// The (workload, critical-section work) pairs that run: every pair of `workloads` and
    /// `cs_ns`, except by default, where the sweep runs on the `max` workload only (omp0's sweep)
    /// and `moderate` keeps the paper's critical section.
    pub cells: Vec<(Workload, u64)>,
    /// Window per run, nanoseconds.
    pub duration_ns: u64,
    /// Repetitions.
    pub reps: usize,
    /// Whether the latency group runs.
    pub latency: bool,
    /// Whether runs go to child processes.
    pub isolate: bool,
    /// Calibrated busy-loop iterations per nanosecond.
    pub busy_iters_per_ns: f64,
}

impl MutexArgs {
    /// Applies the defaults (quick or full) and validates the lock names.
    pub fn plan(&self, quick: bool) -> Result<Plan> {
        let locks: Vec<String> = match &self.locks {
            Some(l) => {
                let mut out: Vec<String> = Vec::new();
                for given in l.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
                    let name = lock_entry(given)?.name;
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_string());
                    }
                }
                if out.is_empty() {
                    return Err(Error::new("--locks names no lock"));
                }
                out
            }
            None if quick => QUICK_LOCKS
                .iter()
                .filter(|n| lock_entry(n).is_ok())
                .map(|n| n.to_string())
                .collect(),
            None => locks().iter().map(|e| e.name.to_string()).collect(),
        };
        let threads = self
            .threads
            .clone()
            .map(Threads::flatten)
            .unwrap_or_else(|| {
                if quick {
                    vec![1, 2, 4, 16, 64]
                } else {
                    vec![1, 2, 4, 8, 16, 64]
                }
            });
        let workloads = self.workload.clone().unwrap_or_else(|| {
            vec![
                Workload::Max,
                Workload::Moderate,
                Workload::Condvar,
                Workload::Read50,
                Workload::Read90,
                Workload::Read99,
            ]
        });
        let cs = self.cs.clone().unwrap_or_else(|| {
            let ns: &[u64] = if quick { &[0] } else { &[0, 100, 1000, 10_000] };
            ns.iter().map(|&n| Duration::from_nanos(n)).collect()
        });
        let duration = self
            .duration
            .unwrap_or(Duration::from_millis(if quick { 30 } else { 100 }));
        if duration.is_zero() {
            return Err(Error::new("--duration must be more than 0"));
        }
        let cs_ns: Vec<u64> = cs.iter().map(|d| d.as_nanos() as u64).collect();
        let mut cells = Vec::new();
        // The ping-pong and the reader-writer workloads are groups of their own (see `groups`),
        // not cells of the sweep.
        for &w in workloads
            .iter()
            .filter(|&&w| w != Workload::Condvar && !w.is_rwlock())
        {
            for &c in &cs_ns {
                if self.cs.is_some() || w == Workload::Max || c == 0 {
                    cells.push((w, c));
                }
            }
        }
        Ok(Plan {
            locks,
            threads,
            workloads,
            cs_ns,
            cells,
            duration_ns: duration.as_nanos() as u64,
            reps: self.reps.unwrap_or(crate::sections::REPS),
            latency: !self.no_latency,
            isolate: self.isolate,
            busy_iters_per_ns: busy_iters_per_ns(),
        })
    }
}

fn fmt_ns(ns: u64) -> String {
    match ns {
        0 => "0".to_string(),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1000 == 0 => format!("{}us", n / 1000),
        n => format!("{n}ns"),
    }
}

/// The section's groups, not yet run: (group, spec template).
pub fn groups(plan: &Plan) -> Vec<(Group, Spec)> {
    let mut out = Vec::new();
    let variants = plan.locks.clone();
    if plan.latency {
        let mut params = BTreeMap::new();
        params.insert("workload".to_string(), serde_json::json!("latency"));
        params.insert("threads".to_string(), serde_json::json!(1));
        out.push((
            Group {
                id: "latency".into(),
                title: "uncontended latency: 1 thread, lock + unlock".into(),
                params,
                metric: Metric {
                    unit: "ns/op".into(),
                    higher_is_better: false,
                    op: "acq".into(),
                },
                variants: variants.clone(),
                reps: Vec::new(),
            },
            Spec {
                lock: String::new(),
                workload: None,
                cs_ns: 0,
                cs_iters: 0,
                threads: 1,
                duration_ns: plan.duration_ns,
            },
        ));
    }
    for &(w, cs) in &plan.cells {
        for &t in &plan.threads {
            let mut params = BTreeMap::new();
            params.insert("workload".to_string(), serde_json::json!(w.name()));
            params.insert("cs_ns".to_string(), serde_json::json!(cs));
            params.insert("threads".to_string(), serde_json::json!(t));
            let what = match w {
                Workload::Max => "maximum contention",
                Workload::Moderate => "moderate contention",
                Workload::Condvar => "condition-variable ping-pong",
                Workload::Read50 | Workload::Read90 | Workload::Read99 => "reader-writer",
            };
            out.push((
                Group {
                    id: format!("{}/cs={}/t={t}", w.name(), fmt_ns(cs)),
                    title: format!("{what}, critical section +{}, {t} threads", fmt_ns(cs)),
                    params,
                    metric: Metric {
                        unit: "M/s".into(),
                        higher_is_better: true,
                        op: "acq".into(),
                    },
                    variants: variants.clone(),
                    reps: Vec::new(),
                },
                Spec {
                    lock: String::new(),
                    workload: Some(w),
                    cs_ns: cs,
                    cs_iters: if cs == 0 {
                        0
                    } else {
                        ((cs as f64 * plan.busy_iters_per_ns).round() as u64).max(1)
                    },
                    threads: t,
                    duration_ns: plan.duration_ns,
                },
            ));
        }
    }
    for &w in plan.workloads.iter().filter(|w| w.is_rwlock()) {
        for &t in &plan.threads {
            let mut params = BTreeMap::new();
            params.insert("workload".to_string(), serde_json::json!(w.name()));
            params.insert("threads".to_string(), serde_json::json!(t));
            out.push((
                Group {
                    id: format!("rwlock/{}/t={t}", w.name()),
                    title: format!(
                        "reader-writer lock, {}% reads of 8 words, writes increment them, \
                         {t} threads",
                        rwlock::read_percent(w).unwrap_or(0)
                    ),
                    params,
                    metric: Metric {
                        unit: "M/s".into(),
                        higher_is_better: true,
                        op: "acq".into(),
                    },
                    variants: RWLOCKS.iter().map(|s| s.to_string()).collect(),
                    reps: Vec::new(),
                },
                Spec {
                    lock: String::new(),
                    workload: Some(w),
                    cs_ns: 0,
                    cs_iters: 0,
                    threads: t,
                    duration_ns: plan.duration_ns,
                },
            ));
        }
    }
    if plan.workloads.contains(&Workload::Condvar) {
        let mut params = BTreeMap::new();
        params.insert("workload".to_string(), serde_json::json!("condvar"));
        params.insert("threads".to_string(), serde_json::json!(2));
        let variants: Vec<String> = plan
            .locks
            .iter()
            .filter(|l| condvar::runner(l).is_some())
            .cloned()
            .collect();
        if !variants.is_empty() {
            out.push((
                Group {
                    id: "condvar/pingpong".into(),
                    title: "condition-variable ping-pong: 2 threads pass a turn through a mutex \
                            and a condition variable (hand-overs/s)"
                        .into(),
                    params,
                    metric: Metric {
                        unit: "M/s".into(),
                        higher_is_better: true,
                        op: "handover".into(),
                    },
                    variants,
                    reps: Vec::new(),
                },
                Spec {
                    lock: String::new(),
                    workload: Some(Workload::Condvar),
                    cs_ns: 0,
                    cs_iters: 0,
                    threads: 2,
                    duration_ns: plan.duration_ns,
                },
            ));
        }
    }
    out
}

/// Runs every group of the plan.
pub fn run_plan(plan: &Plan, progress: &Progress) -> Result<Section> {
    let groups = groups(plan);
    progress.add_steps(
        groups
            .iter()
            .map(|(g, _)| (plan.reps * g.variants.len()) as u64)
            .sum(),
    );
    let mut done = Vec::with_capacity(groups.len());
    for (mut g, template) in groups {
        progress.stage(&g.id);
        g.reps = harness::run_paired(&g.variants, plan.reps, progress, |lock| {
            progress.message(&format!("{} {lock}", g.id));
            let spec = Spec {
                lock: lock.to_string(),
                ..template.clone()
            };
            if plan.isolate {
                harness::run_in_child("mutex", &serde_json::to_value(&spec).unwrap_or_default())
            } else {
                run_spec(&spec)
            }
        })?;
        done.push(g);
    }
    Ok(Section {
        name: "mutex".into(),
        title: "MutexBench".into(),
        baselines: RATIO_BASELINES
            .iter()
            .filter(|b| plan.locks.iter().any(|l| l == *b))
            .map(|b| b.to_string())
            .collect(),
        sweep: Some("threads".into()),
        config: serde_json::to_value(plan).unwrap_or_default(),
        groups: done,
    })
}

/// The MutexBench section.
#[derive(Clone, Copy, Debug)]
pub struct MutexBench;

impl Suite for MutexBench {
    fn summary(&self, section: &Section) -> Vec<crate::headline::Line> {
        summary::lines(section)
    }

    fn name(&self) -> &'static str {
        "mutex"
    }

    fn about(&self) -> &'static str {
        "Locks against std and parking_lot: throughput at maximum and moderate contention, the \
         critical-section sweep, oversubscription, uncontended latency"
    }

    fn help_after(&self) -> String {
        let names: Vec<&str> = locks().iter().map(|e| e.name).collect();
        let quick: Vec<&str> = QUICK_LOCKS.to_vec();
        let time = |quick| {
            let plan = MutexArgs::default().plan(quick).ok()?;
            let ns: u64 = groups(&plan)
                .iter()
                .map(|(g, spec)| (plan.reps * g.variants.len()) as u64 * spec.duration_ns)
                .sum();
            Some(Duration::from_nanos(ns))
        };
        format!(
            "{}\n\n{}\n\n{}",
            super::names_paragraph("Locks (--locks)", &names),
            super::names_paragraph("Locks of --quick", &quick),
            super::run_time_paragraph(time(false), time(true))
        )
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        MutexArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = MutexArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_plan(&a.plan(ctx.quick).map_err(Error::into_usage)?, ctx.progress)
    }

    fn run_child(&self, spec: &serde_json::Value) -> Result<Sample> {
        let spec: Spec = serde_json::from_value(spec.clone())
            .map_err(|e| Error::new(format!("bad mutex spec: {e}")))?;
        run_spec(&spec)
    }
}

#[cfg(test)]
mod tests;
