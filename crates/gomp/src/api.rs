//! The `omp_*` runtime routines of OpenMP 5.2 §18 that a host-only program calls: team queries,
//! the ICVs (`omp_set_num_threads`, `omp_set_schedule`, `omp_set_dynamic`, ...), nesting levels,
//! timing, and the device queries of a machine without offloading.
//!
//! The values follow the per-thread state of `team.rs`; where this runtime has a fixed answer
//! it says so: nested regions are never active (`omp_get_max_active_levels` is at most 1,
//! `omp_get_supported_active_levels` is 1), there are no devices (`omp_get_num_devices` is 0,
//! every code runs on the initial device), and tasks run when created (`omp_get_max_task_priority`
//! is 0).

use crate::team::{RunSched, globals, with_current};
use core::ffi::{c_double, c_int};
use std::sync::atomic::{AtomicI32, Ordering};
use welltempered_par::{Pinning, ProcBind};

fn int(n: usize) -> c_int {
    c_int::try_from(n).unwrap_or(c_int::MAX)
}

/// Sets `nthreads-var` of the calling thread's task (a value below 1 is ignored, as libgomp
/// does).
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_num_threads(n: c_int) {
    if let Ok(n @ 1..) = usize::try_from(n) {
        with_current(|st| st.nthreads_var.set(n));
    }
}

/// The size of the calling thread's team.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_num_threads() -> c_int {
    with_current(|st| int(st.n))
}

/// The size of the team a `parallel` without `num_threads` would get here.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_max_threads() -> c_int {
    with_current(|st| int(st.nthreads_var.get()))
}

/// The calling thread's number in its team.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_thread_num() -> c_int {
    with_current(|st| int(st.tid))
}

/// The CPUs this process may run on.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_num_procs() -> c_int {
    int(std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// Nonzero inside an active parallel region.
#[unsafe(no_mangle)]
pub extern "C" fn omp_in_parallel() -> c_int {
    with_current(|st| c_int::from(st.active_level > 0))
}

/// Sets `dyn-var` (reported only: teams are never made smaller than asked).
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_dynamic(on: c_int) {
    with_current(|st| st.dyn_var.set(on != 0));
}

/// `dyn-var`.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_dynamic() -> c_int {
    with_current(|st| c_int::from(st.dyn_var.get()))
}

/// `max-active-levels-var` as set by `omp_set_max_active_levels`, or -1 while it is the
/// configured one (`OMP_MAX_ACTIVE_LEVELS`, `OMP_NESTED`). Either way it reads back capped at
/// 1, the levels this runtime supports: nested regions run with a team of one.
static MAX_ACTIVE_LEVELS: AtomicI32 = AtomicI32::new(-1);

/// Deprecated in OpenMP 5.0: enabling nesting asks for more active levels than the one this
/// runtime supports, so it changes nothing.
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_nested(_on: c_int) {}

/// Always 0: nested regions are never active here.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_nested() -> c_int {
    0
}

/// Sets `max-active-levels-var` (values above 1 are taken as 1, the supported maximum).
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_max_active_levels(levels: c_int) {
    if levels >= 0 {
        // Relaxed: a setting, read by later calls of any thread.
        MAX_ACTIVE_LEVELS.store(levels.min(1), Ordering::Relaxed);
    }
}

/// `max-active-levels-var`, at most 1.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_max_active_levels() -> c_int {
    int(max_active_levels())
}

/// `max-active-levels-var` (0 or 1).
pub(crate) fn max_active_levels() -> usize {
    // Relaxed: a setting.
    match MAX_ACTIVE_LEVELS.load(Ordering::Relaxed) {
        -1 => globals().config.max_active_levels.min(1),
        set => set as usize,
    }
}

/// The most active levels this runtime supports: 1.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_supported_active_levels() -> c_int {
    1
}

/// The upper bound of threads in the program.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_thread_limit() -> c_int {
    c_int::MAX
}

/// Sets `run-sched-var` (`omp_sched_t` kind, possibly with the monotonic bit, and chunk).
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_schedule(kind: c_int, chunk: c_int) {
    // The chunk of `static` without one, and of `auto`, reads back as libgomp's.
    let chunk = match kind & 0x7fff_ffff {
        1..=3 if chunk >= 1 => chunk,
        2 | 3 => 1,
        _ => 0,
    };
    with_current(|st| st.sched_var.set(RunSched { kind, chunk }));
}

/// `run-sched-var`.
///
/// # Safety
///
/// `kind` and `chunk` are valid for writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_get_schedule(kind: *mut c_int, chunk: *mut c_int) {
    let s = with_current(|st| st.sched_var.get());
    // SAFETY: the caller's contract.
    unsafe {
        kind.write(s.kind);
        chunk.write(s.chunk);
    }
}

/// Enclosing parallel regions, active or not.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_level() -> c_int {
    with_current(|st| int(st.level))
}

/// Enclosing active parallel regions.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_active_level() -> c_int {
    with_current(|st| int(st.active_level))
}

/// The thread number of the calling thread's ancestor at `level` (-1 if there is no such
/// level).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_ancestor_thread_num(level: c_int) -> c_int {
    ancestor(level, |tid, _| tid)
}

/// The team size at `level` (-1 if there is no such level).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_team_size(level: c_int) -> c_int {
    ancestor(level, |_, n| n)
}

fn ancestor(level: c_int, f: impl Fn(c_int, c_int) -> c_int) -> c_int {
    with_current(|st| {
        let Ok(level) = usize::try_from(level) else {
            return -1;
        };
        if level > st.level {
            return -1;
        }
        if level == 0 {
            // The initial thread's implicit region.
            return f(0, 1);
        }
        match st.ancestor(st.level - level) {
            Some(a) => f(int(a.tid), int(a.n)),
            None => -1,
        }
    })
}

/// Nonzero inside a `final` task.
#[unsafe(no_mangle)]
pub extern "C" fn omp_in_final() -> c_int {
    with_current(|st| c_int::from(st.in_final.get()))
}

/// Reads the monotonic clock with `call` (`clock_gettime` or `clock_getres`), in seconds.
fn monotonic(call: unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int) -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write.
    unsafe { call(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Seconds since an arbitrary point, on the monotonic clock (as libgomp).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_wtime() -> c_double {
    monotonic(libc::clock_gettime)
}

/// The resolution of [`omp_get_wtime`] in seconds.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_wtick() -> c_double {
    monotonic(libc::clock_getres)
}

/// `bind-var` as an `omp_proc_bind_t`: false (0) when threads are not pinned; for places,
/// `true` (1) when `OMP_PROC_BIND` says `true` or only `OMP_PLACES` is set (libgomp's answer
/// then), else `primary` (2), `close` (3) or `spread` (4); true for the other pinnings
/// (`WELLTEMPERED_PROC_BIND`).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_proc_bind() -> c_int {
    match &globals().config.pinning {
        Pinning::Off => 0,
        Pinning::Places { bind, .. } => {
            let first = std::env::var("OMP_PROC_BIND").unwrap_or_default();
            let first = first
                .split(',')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase();
            match (first.as_str(), bind) {
                ("" | "true", _) => 1,
                (_, ProcBind::Primary) => 2,
                (_, ProcBind::Close) => 3,
                (_, ProcBind::Spread) => 4,
            }
        }
        _ => 1,
    }
}

/// `cancel-var`: always false (cancellation is not supported; `OMP_CANCELLATION=true` is
/// refused at start).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_cancellation() -> c_int {
    c_int::from(globals().cancellation)
}

/// No offloading devices.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_num_devices() -> c_int {
    0
}

/// The default device: the initial device (0 devices, so number 0).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_default_device() -> c_int {
    0
}

/// Ignored: there is only the initial device.
#[unsafe(no_mangle)]
pub extern "C" fn omp_set_default_device(_device: c_int) {}

/// The initial device's number (the number of devices, 0).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_initial_device() -> c_int {
    0
}

/// The device the caller runs on: the initial device.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_device_num() -> c_int {
    0
}

/// Always true: code runs on the host.
#[unsafe(no_mangle)]
pub extern "C" fn omp_is_initial_device() -> c_int {
    1
}

/// One league of one team outside `teams` constructs.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_num_teams() -> c_int {
    1
}

/// The team number outside `teams` constructs.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_team_num() -> c_int {
    0
}

/// Task priorities are not used: tasks run when created.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_max_task_priority() -> c_int {
    0
}

/// The place list (`OMP_PLACES`, or the places `OMP_PROC_BIND` implies); empty when threads are
/// not bound to places.
fn places() -> &'static [Vec<usize>] {
    match &globals().config.pinning {
        Pinning::Places { places, .. } => places,
        _ => &[],
    }
}

/// The number of places (0 when threads are not bound to places, as in libgomp).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_num_places() -> c_int {
    int(places().len())
}

/// The number of CPUs in place `place` (0 for a place that does not exist).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_place_num_procs(place: c_int) -> c_int {
    usize::try_from(place)
        .ok()
        .and_then(|p| places().get(p))
        .map_or(0, |p| int(p.len()))
}

/// Writes the CPU numbers of place `place` to `ids` (room for
/// `omp_get_place_num_procs(place)` of them).
///
/// # Safety
///
/// `ids` is valid for that many writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_get_place_proc_ids(place: c_int, ids: *mut c_int) {
    let Some(p) = usize::try_from(place).ok().and_then(|p| places().get(p)) else {
        return;
    };
    for (i, &cpu) in p.iter().enumerate() {
        // SAFETY: the caller's contract.
        unsafe { ids.add(i).write(int(cpu)) };
    }
}

/// The place the calling thread is bound to, or -1 when it is not bound to a place.
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_place_num() -> c_int {
    let Pinning::Places { places, bind } = &globals().config.pinning else {
        return -1;
    };
    with_current(|st| {
        // The initial thread outside every region is the master of a team of one.
        int(bind.place_of(st.tid, st.n, places.len()))
    })
}

/// The places of the calling thread's partition: all of them (partitions are not narrowed).
#[unsafe(no_mangle)]
pub extern "C" fn omp_get_partition_num_places() -> c_int {
    omp_get_num_places()
}

/// Writes the partition's place numbers, `0 .. omp_get_partition_num_places()`, to `nums`.
///
/// # Safety
///
/// `nums` is valid for `omp_get_partition_num_places()` writes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_get_partition_place_nums(nums: *mut c_int) {
    for i in 0..places().len() {
        // SAFETY: the caller's contract.
        unsafe { nums.add(i).write(int(i)) };
    }
}
