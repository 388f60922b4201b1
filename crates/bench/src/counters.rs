//! Per-run counters: CPU time and context switches from `getrusage`, and hardware counters
//! (cycles, instructions, cache misses) from `perf_event_open`.
//!
//! Each hardware event is opened on its own (not as a group, so one unsupported event does not
//! take the others with it), for the calling thread with `inherit` set so that threads spawned
//! afterwards are counted too, and read with `time_enabled`/`time_running` so that a multiplexed
//! count is scaled up to the whole run. Where the machine has no PMU (virtual machines often have
//! none) `perf_event_open` fails and the figure is `None`: "n/a" in tables, `null` in JSON, never
//! a zero. Off Linux there are no hardware counts, and on Windows no `getrusage`: CPU time and
//! context switches read as zero there.

use serde::{Deserialize, Serialize};
#[cfg(target_os = "linux")]
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

/// An open hardware event: a perf file descriptor on Linux; elsewhere none can be opened.
#[cfg(target_os = "linux")]
type Event = OwnedFd;
/// An open hardware event: a perf file descriptor on Linux; elsewhere none can be opened.
#[cfg(not(target_os = "linux"))]
#[derive(Debug)]
enum Event {}

/// Process-wide resource usage at one instant (all threads, including finished ones).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rusage {
    /// User plus system CPU time, seconds.
    pub cpu_s: f64,
    /// Voluntary context switches.
    pub vcsw: u64,
    /// Involuntary context switches.
    pub ivcsw: u64,
}

impl Rusage {
    /// The usage of the whole process now.
    #[cfg(unix)]
    pub fn now() -> Self {
        Self::of(libc::RUSAGE_SELF)
    }

    /// The usage of the whole process now: not read on this platform.
    #[cfg(not(unix))]
    pub fn now() -> Self {
        Self::default()
    }

    #[cfg(unix)]
    fn of(who: libc::c_int) -> Self {
        if cfg!(miri) {
            return Self::default();
        }
        let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `ru` points to writable memory of the right size and type for `getrusage`.
        let rc = unsafe { libc::getrusage(who, ru.as_mut_ptr()) };
        if rc != 0 {
            return Self::default();
        }
        // SAFETY: zero-initialised, and `getrusage` succeeded, so every field is initialised.
        let ru = unsafe { ru.assume_init() };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Self {
            cpu_s: tv(ru.ru_utime) + tv(ru.ru_stime),
            vcsw: ru.ru_nvcsw as u64,
            ivcsw: ru.ru_nivcsw as u64,
        }
    }

    /// The usage of every child process this process has waited for, so far (the figures of a
    /// child run are the difference across its `wait`).
    pub fn children_now() -> Self {
        #[cfg(unix)]
        return Self::of(libc::RUSAGE_CHILDREN);
        #[cfg(not(unix))]
        Self::default()
    }

    /// The usage between `earlier` and `self`.
    pub fn since(&self, earlier: &Self) -> Self {
        Self {
            cpu_s: (self.cpu_s - earlier.cpu_s).max(0.0),
            vcsw: self.vcsw.saturating_sub(earlier.vcsw),
            ivcsw: self.ivcsw.saturating_sub(earlier.ivcsw),
        }
    }
}

/// Hardware counts of one run, already scaled; `None` where the event could not be counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HwCounts {
    /// CPU cycles.
    pub cycles: Option<f64>,
    /// Retired instructions.
    pub instructions: Option<f64>,
    /// Last-level cache misses.
    pub cache_misses: Option<f64>,
}

/// Scales a raw count by `time_enabled / time_running`, the fraction of the run for which the
/// event was actually on the PMU. `None` when it never ran (`time_running == 0`).
pub fn scale(value: u64, time_enabled: u64, time_running: u64) -> Option<f64> {
    if time_running == 0 {
        return None;
    }
    if time_running >= time_enabled {
        return Some(value as f64);
    }
    Some(value as f64 * (time_enabled as f64 / time_running as f64))
}

/// A per-operation figure: `total / ops`, `None` where the total is unknown or no operation ran.
pub fn per_op(total: Option<f64>, ops: u64) -> Option<f64> {
    match total {
        Some(t) if ops > 0 => Some(t / ops as f64),
        _ => None,
    }
}

/// Formats an optional figure for a table: "n/a" for `None`, else `precision` decimals.
pub fn fmt_opt(x: Option<f64>, precision: usize) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.precision$}"),
        Some(v) if v.is_infinite() => "inf".to_string(),
        _ => "n/a".to_string(),
    }
}

/// The argument type of a perf `ioctl` request.
#[cfg(target_os = "linux")]
type Request = libc::c_ulong;
/// The argument type of a perf `ioctl` request (unused here).
#[cfg(not(target_os = "linux"))]
type Request = u64;

/// `struct perf_event_attr` up to `config1` (`PERF_ATTR_SIZE_VER0`, 64 bytes); the kernel treats
/// the fields after `size` as zero.
#[cfg(target_os = "linux")]
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

#[cfg(target_os = "linux")]
const PERF_TYPE_HARDWARE: u32 = 0;
const PERF_COUNT_HW_CPU_CYCLES: u64 = 0;
const PERF_COUNT_HW_INSTRUCTIONS: u64 = 1;
const PERF_COUNT_HW_CACHE_MISSES: u64 = 3;
#[cfg(target_os = "linux")]
const PERF_FORMAT_TOTAL_TIME_ENABLED: u64 = 1;
#[cfg(target_os = "linux")]
const PERF_FORMAT_TOTAL_TIME_RUNNING: u64 = 2;
#[cfg(target_os = "linux")]
const FLAG_DISABLED: u64 = 1;
#[cfg(target_os = "linux")]
const FLAG_INHERIT: u64 = 1 << 1;
#[cfg(target_os = "linux")]
const FLAG_EXCLUDE_KERNEL: u64 = 1 << 5;
#[cfg(target_os = "linux")]
const FLAG_EXCLUDE_HV: u64 = 1 << 6;
#[cfg(target_os = "linux")]
const PERF_FLAG_FD_CLOEXEC: Request = 8;
/// `_IO('$', 0)` and `_IO('$', 1)`: applied to an inherited event they reach its children too.
const PERF_EVENT_IOC_ENABLE: Request = 0x2400;
const PERF_EVENT_IOC_DISABLE: Request = 0x2401;

/// Opens one hardware event counting the calling thread and the threads it spawns later.
#[cfg(not(target_os = "linux"))]
fn open_event(config: u64) -> Option<Event> {
    let _ = config;
    None
}

/// Opens one hardware event counting the calling thread and the threads it spawns later.
#[cfg(target_os = "linux")]
fn open_event(config: u64) -> Option<Event> {
    if cfg!(miri) {
        return None;
    }
    let attr = PerfEventAttr {
        type_: PERF_TYPE_HARDWARE,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        read_format: PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING,
        // Opened disabled, enabled for the measured window only. Kernel and hypervisor
        // excluded: unprivileged users may count only user space.
        flags: FLAG_DISABLED | FLAG_INHERIT | FLAG_EXCLUDE_KERNEL | FLAG_EXCLUDE_HV,
        ..Default::default()
    };
    // SAFETY: `attr` is a valid, initialised `perf_event_attr` prefix whose `size` field says how
    // many bytes the kernel may read; the other arguments are plain integers.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            0 as libc::pid_t,
            -1 as libc::c_int,
            -1 as libc::c_int,
            PERF_FLAG_FD_CLOEXEC,
        )
    };
    if fd < 0 {
        return None;
    }
    // SAFETY: the syscall returned a fresh file descriptor that nothing else owns.
    Some(unsafe { OwnedFd::from_raw_fd(fd as libc::c_int) })
}

/// Enables or disables one event (and its inherited children).
#[cfg(not(target_os = "linux"))]
fn ioctl_event(fd: &Event, _request: Request) {
    match *fd {}
}

/// Reads an event: none exist here.
#[cfg(not(target_os = "linux"))]
fn read_event(fd: &Event) -> Option<f64> {
    match *fd {}
}

/// Enables or disables one event (and its inherited children).
#[cfg(target_os = "linux")]
fn ioctl_event(fd: &OwnedFd, request: Request) {
    // SAFETY: `fd` is an open perf event; these requests take no argument pointer.
    unsafe {
        libc::ioctl(fd.as_raw_fd(), request as _, 0);
    }
}

/// Reads `{value, time_enabled, time_running}` from an event and scales it.
#[cfg(target_os = "linux")]
fn read_event(fd: &OwnedFd) -> Option<f64> {
    let mut buf = [0u64; 3];
    // SAFETY: `buf` is writable for exactly the number of bytes passed; `fd` is an open event.
    let n = unsafe {
        libc::read(
            fd.as_raw_fd(),
            buf.as_mut_ptr().cast::<libc::c_void>(),
            std::mem::size_of_val(&buf),
        )
    };
    if n != std::mem::size_of_val(&buf) as isize {
        return None;
    }
    scale(buf[0], buf[1], buf[2])
}

/// The three hardware events of one run, opened before the workers are spawned.
#[derive(Debug)]
pub struct HwCounters {
    cycles: Option<Event>,
    instructions: Option<Event>,
    cache_misses: Option<Event>,
}

impl HwCounters {
    /// Opens the events, disabled, for the calling thread and the threads it spawns afterwards;
    /// each event that cannot be opened reads as `None`. Call before spawning the workers.
    pub fn open() -> Self {
        Self {
            cycles: open_event(PERF_COUNT_HW_CPU_CYCLES),
            instructions: open_event(PERF_COUNT_HW_INSTRUCTIONS),
            cache_misses: open_event(PERF_COUNT_HW_CACHE_MISSES),
        }
    }

    fn each(&self, f: impl Fn(&Event)) {
        for fd in [&self.cycles, &self.instructions, &self.cache_misses]
            .into_iter()
            .flatten()
        {
            f(fd);
        }
    }

    /// Starts counting (at the start of the measured window).
    pub fn enable(&self) {
        self.each(|fd| ioctl_event(fd, PERF_EVENT_IOC_ENABLE));
    }

    /// Stops counting (at the end of the measured window).
    pub fn disable(&self) {
        self.each(|fd| ioctl_event(fd, PERF_EVENT_IOC_DISABLE));
    }

    /// Whether any event could be opened (the machine has a usable PMU).
    pub fn available(&self) -> bool {
        self.cycles.is_some() || self.instructions.is_some() || self.cache_misses.is_some()
    }

    /// The counts so far, scaled. Inherited counts of threads are included once they have
    /// exited, so read after joining the workers.
    pub fn read(&self) -> HwCounts {
        HwCounts {
            cycles: self.cycles.as_ref().and_then(read_event),
            instructions: self.instructions.as_ref().and_then(read_event),
            cache_misses: self.cache_misses.as_ref().and_then(read_event),
        }
    }
}

/// Whether this machine lets us count hardware events.
pub fn pmu_available() -> bool {
    HwCounters::open().available()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling() {
        assert_eq!(scale(100, 10, 10), Some(100.0));
        assert_eq!(scale(100, 10, 5), Some(200.0));
        assert_eq!(scale(100, 10, 0), None);
        assert_eq!(scale(0, 10, 10), Some(0.0));
    }

    #[test]
    fn per_op_and_formatting_degrade_to_na() {
        assert_eq!(per_op(None, 10), None);
        assert_eq!(per_op(Some(10.0), 0), None);
        assert_eq!(per_op(Some(10.0), 4), Some(2.5));
        assert_eq!(fmt_opt(None, 2), "n/a");
        assert_eq!(fmt_opt(Some(1.0 / 3.0), 2), "0.33");
        assert_eq!(fmt_opt(Some(f64::INFINITY), 2), "inf");
        assert_eq!(fmt_opt(Some(f64::NAN), 2), "n/a");
    }

    #[test]
    fn missing_counts_serialise_as_null() {
        let c = HwCounts {
            cycles: Some(5.0),
            ..Default::default()
        };
        let s = serde_json::to_string(&c).unwrap();
        assert_eq!(
            s,
            r#"{"cycles":5.0,"instructions":null,"cache_misses":null}"#
        );
    }

    #[test]
    fn rusage_moves_forward() {
        let a = Rusage::now();
        let mut x = 0u64;
        for i in 0..1_000_000u64 {
            x = std::hint::black_box(x.wrapping_add(i));
        }
        let b = Rusage::now();
        let d = b.since(&a);
        assert!(d.cpu_s >= 0.0);
        assert!(b.vcsw >= a.vcsw && b.ivcsw >= a.ivcsw);
    }

    #[test]
    fn hw_counters_never_report_zero_for_missing() {
        let c = HwCounters::open();
        c.enable();
        c.disable();
        let counts = c.read();
        if !c.available() {
            assert_eq!(counts, HwCounts::default());
        }
    }
}
