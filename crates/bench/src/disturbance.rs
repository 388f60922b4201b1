//! Disturbance detection: how much CPU time something other than the measurement took while a
//! sample ran (other processes, the kernel's own threads, and on a virtual machine the
//! hypervisor's steal time), and the rule that calls a sample disturbed.
//!
//! The machine's busy time comes from the first line of `/proc/stat` (user, nice, system, irq,
//! softirq and steal ticks, summed over every CPU; see proc(5)); the measurement's own CPU time
//! from `getrusage` for this process and every child it has waited for (a variant measured in a
//! child process is waited for before its sample ends). Their difference is the foreign CPU
//! time of the sample.
//!
//! Ticks are `1 / sysconf(_SC_CLK_TCK)` seconds (10 ms on Linux), so the figure is only good to
//! a few ticks: a sample is disturbed when the foreign time exceeds [`ABSOLUTE_S`] plus
//! [`RELATIVE`] of the sample's wall time, and samples shorter than [`MIN_WALL_S`] are not
//! judged. Deliberate foreign load ([`crate::load`]) is not a disturbance: while it runs, samples
//! record their foreign time but are never called disturbed.
//!
//! [`crate::harness::run_paired`] measures every sample this way, runs a disturbed repetition
//! again (at most [`RETRIES`] times), and keeps the last attempt flagged when it is still
//! disturbed; the report counts both.

use crate::counters::Rusage;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// Foreign CPU seconds a sample may see without being disturbed, beyond [`RELATIVE`].
pub const ABSOLUTE_S: f64 = 0.03;

/// Foreign CPU time a sample may see without being disturbed, as a fraction of its wall time
/// (a tenth of one CPU).
pub const RELATIVE: f64 = 0.1;

/// Samples shorter than this are not judged: the tick-based busy time cannot tell.
pub const MIN_WALL_S: f64 = 0.02;

/// How many times a disturbed repetition is run again before it is kept, flagged.
pub const RETRIES: u32 = 2;

/// Foreign load processes running now, started on purpose ([`crate::load::LoadGuard`]).
static DELIBERATE_LOAD: AtomicUsize = AtomicUsize::new(0);

/// Marks deliberate foreign load as started (`true`) or stopped (`false`).
pub fn deliberate_load(running: bool) {
    if running {
        DELIBERATE_LOAD.fetch_add(1, Ordering::Relaxed);
    } else {
        DELIBERATE_LOAD.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether deliberate foreign load runs now.
pub fn under_deliberate_load() -> bool {
    DELIBERATE_LOAD.load(Ordering::Relaxed) > 0
}

/// Whether a sample of `wall_s` seconds that saw `foreign_s` seconds of foreign CPU time was
/// disturbed.
pub fn is_disturbed(foreign_s: f64, wall_s: f64) -> bool {
    wall_s >= MIN_WALL_S && foreign_s > ABSOLUTE_S + RELATIVE * wall_s
}

/// The machine's busy CPU seconds since boot (all CPUs), or `None` where `/proc/stat` cannot
/// be read.
fn machine_busy_s() -> Option<f64> {
    if cfg!(miri) {
        return None;
    }
    let text = std::fs::read_to_string("/proc/stat").ok()?;
    busy_from_stat(&text, ticks_per_s()?)
}

/// The busy seconds in the `cpu` line of a `/proc/stat` text: user, nice, system, irq, softirq
/// and steal ticks (guest time is already in user), over `hz` ticks a second.
pub fn busy_from_stat(text: &str, hz: f64) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("cpu "))?;
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(str::parse)
        .collect::<Result<_, _>>()
        .ok()?;
    // user nice system idle iowait irq softirq steal
    let tick = |i: usize| f.get(i).copied().unwrap_or(0);
    let busy = tick(0) + tick(1) + tick(2) + tick(5) + tick(6) + tick(7);
    Some(busy as f64 / hz)
}

#[cfg(unix)]
fn ticks_per_s() -> Option<f64> {
    // SAFETY: `sysconf` only reads a configuration value.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then_some(hz as f64)
}

#[cfg(not(unix))]
fn ticks_per_s() -> Option<f64> {
    None
}

/// A running measurement of foreign CPU time, started before a sample.
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    busy_s: f64,
    own_s: f64,
    at: Instant,
}

fn own_cpu_s() -> f64 {
    Rusage::now().cpu_s + Rusage::children_now().cpu_s
}

impl Meter {
    /// Starts measuring; `None` where the machine's busy time cannot be read (not Linux).
    pub fn start() -> Option<Self> {
        Some(Self {
            busy_s: machine_busy_s()?,
            own_s: own_cpu_s(),
            at: Instant::now(),
        })
    }

    /// The foreign CPU seconds since [`Meter::start`] and the wall seconds elapsed.
    pub fn read(&self) -> Option<(f64, f64)> {
        let busy = machine_busy_s()? - self.busy_s;
        let own = own_cpu_s() - self.own_s;
        Some(((busy - own).max(0.0), self.at.elapsed().as_secs_f64()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_allows_tick_noise_and_judges_long_samples_only() {
        // 20 ms of foreign time in a 100 ms window: within the ticks' noise.
        assert!(!is_disturbed(0.02, 0.1));
        // A tenth of a CPU on top of the allowance: disturbed.
        assert!(is_disturbed(0.05, 0.1));
        assert!(is_disturbed(0.2, 1.0) && !is_disturbed(0.12, 1.0));
        // Too short to tell.
        assert!(!is_disturbed(1.0, 0.01));
    }

    #[test]
    fn busy_time_counts_steal_not_idle() {
        let stat = "cpu  100 5 20 1000 7 3 2 10 0 0\ncpu0 50 2 10 500 3 1 1 5 0 0\n";
        assert_eq!(busy_from_stat(stat, 100.0), Some(1.4));
        assert_eq!(busy_from_stat("intr 1 2\n", 100.0), None);
        assert_eq!(busy_from_stat("cpu  1 x\n", 100.0), None);
    }

    #[test]
    #[cfg_attr(miri, ignore)] // reads /proc
    fn a_meter_reads_on_linux() {
        let m = Meter::start();
        if cfg!(target_os = "linux") {
            let (foreign, wall) = m.unwrap().read().unwrap();
            assert!(foreign >= 0.0 && wall >= 0.0);
        }
    }
}
