//! Tasks (`GOMP_task`, `GOMP_taskwait`, `GOMP_taskgroup_*`, `GOMP_taskyield`; OpenMP 5.2 §12)
//! and cancellation (`GOMP_cancel`, `GOMP_cancellation_point`; §16).
//!
//! Tasks run **serially, at once, on the thread that creates them** (every task is executed as
//! if undeferred), which OpenMP allows for any task: the spec lets an implementation run a task
//! immediately, and the program's result cannot depend on it unless one task waits for another
//! that was created after it (which then hangs here; a program that does so is rare and
//! non-portable already). So `taskwait` and `taskgroup` have nothing to wait for, `depend`
//! clauses are met by program order, and `priority` is moot. What cannot be run this way is
//! refused with a message: `detach` (a task that ends when an event is fulfilled later) and task
//! reductions.
//!
//! `taskloop` splits its iterations into tasks as libgomp does (`grainsize`: as many tasks of at
//! least that many iterations as fit; `num_tasks`: that many, at most one per iteration; neither:
//! one per team thread), and runs them one after the other, each on its own copy of the
//! argument block whose first two words are the task's bounds.
//!
//! Cancellation is off (`OMP_CANCELLATION` unset or false, the default): the cancel entries
//! report "not cancelled", as libgomp's do then.

#![allow(clippy::too_many_arguments)]

use crate::team::with_current;
use crate::workshare::LoopState;
use core::ffi::{c_int, c_long, c_uint, c_void};
use welltempered_par::Schedule;

/// `GOMP_TASK_FLAG_FINAL` of GCC's `gomp-constants.h`.
const FLAG_FINAL: c_uint = 1 << 1;
/// `GOMP_TASK_FLAG_UP`: an `unsigned long long` taskloop counts up.
const FLAG_UP: c_uint = 1 << 8;
/// `GOMP_TASK_FLAG_GRAINSIZE`: `num_tasks` is a grain size.
const FLAG_GRAINSIZE: c_uint = 1 << 9;
/// `GOMP_TASK_FLAG_REDUCTION`: the taskloop has task reductions.
const FLAG_REDUCTION: c_uint = 1 << 12;
/// `GOMP_TASK_FLAG_DETACH`.
const FLAG_DETACH: c_uint = 1 << 13;

/// `#pragma omp task`: runs the task now, on this thread.
///
/// # Safety
///
/// `f` is the compiler's outlined task function; `data` its argument block of `arg_size`
/// bytes, copied by `cpyfn` (when not null) into a block of the same size and `arg_align`
/// alignment before the call, as the task's firstprivate copy.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_task(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    arg_size: c_long,
    arg_align: c_long,
    _if_clause: bool,
    flags: c_uint,
    _depend: *mut *mut c_void,
    _priority: c_int,
    _detach: *mut c_void,
) {
    if flags & FLAG_DETACH != 0 {
        crate::refused::refuse("GOMP_task with detach");
    }
    let final_task = flags & FLAG_FINAL != 0;
    let was_final = with_current(|st| st.in_final.replace(st.in_final.get() || final_task));
    match cpyfn {
        None => {
            // SAFETY: the caller's contract: `data` is the task's argument block.
            unsafe { f(data) }
        }
        Some(_) => {
            // SAFETY: the caller's contract, passed on.
            unsafe { run_copy(f, data, cpyfn, arg_size, arg_align, |_| {}) }
        }
    }
    with_current(|st| st.in_final.set(was_final));
}

/// Runs `f` on a fresh copy of the argument block `data` (made by `cpyfn`, or by copying
/// `arg_size` bytes), after `fill` has written into the copy.
///
/// # Safety
///
/// As [`GOMP_task`]; without `cpyfn`, `data` is valid for reads of `arg_size` bytes; `fill`
/// writes only inside the block.
unsafe fn run_copy(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    arg_size: c_long,
    arg_align: c_long,
    fill: impl FnOnce(*mut u8),
) {
    let size = usize::try_from(arg_size).unwrap_or(0).max(16);
    let align = usize::try_from(arg_align)
        .unwrap_or(1)
        .max(8)
        .next_power_of_two();
    let layout = std::alloc::Layout::from_size_align(size, align)
        .unwrap_or_else(|_| crate::refused::fatal("GOMP_task: bad argument layout"));
    // SAFETY: the layout has a non-zero size.
    let buf = unsafe { std::alloc::alloc(layout) };
    if buf.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    // SAFETY: the caller's contract: the block is built in `buf` (of the size and alignment
    // asked, or at least two words) from `data`, by `cpyfn` or by copying its bytes; `f` then
    // runs on it; nothing else holds `buf`, freed after.
    unsafe {
        match cpyfn {
            Some(copy) => copy(buf.cast(), data),
            None => {
                let n = usize::try_from(arg_size).unwrap_or(0);
                core::ptr::copy_nonoverlapping(data.cast::<u8>(), buf, n);
            }
        }
        fill(buf);
        f(buf.cast());
        std::alloc::dealloc(buf, layout);
    }
}

/// Runs a taskloop over `lp`, split as libgomp splits it: each task is `f` on its own copy of
/// the argument block, whose first two 64-bit words are the task's first and end values.
///
/// # Safety
///
/// As [`run_copy`].
unsafe fn taskloop(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    arg_size: c_long,
    arg_align: c_long,
    flags: c_uint,
    num_tasks: u64,
    lp: LoopState,
) {
    if flags & FLAG_REDUCTION != 0 {
        crate::refused::refuse("GOMP_taskloop with task reductions");
    }
    let n = lp.iters();
    if n == 0 {
        return;
    }
    let tasks = if flags & FLAG_GRAINSIZE != 0 {
        (n / num_tasks.max(1)).max(1)
    } else if num_tasks == 0 {
        with_current(|st| st.n as u64).min(n)
    } else {
        num_tasks.min(n)
    };
    let (per, extra) = (n / tasks, n % tasks);
    let mut lo = 0;
    for t in 0..tasks {
        let hi = lo + per + u64::from(t < extra);
        let (first, end) = lp.bounds((lo, hi));
        // SAFETY: the caller's contract; the block holds at least the two bound words, which
        // the compiler put first.
        unsafe {
            run_copy(f, data, cpyfn, arg_size, arg_align, |buf| {
                buf.cast::<u64>().write(first);
                buf.cast::<u64>().add(1).write(end);
            })
        };
        lo = hi;
    }
}

/// `#pragma omp taskloop` on `long`: the iterations split into tasks, run in order now.
///
/// # Safety
///
/// As [`GOMP_task`]; the argument block starts with two `long`s for the task's bounds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_taskloop(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    arg_size: c_long,
    arg_align: c_long,
    flags: c_uint,
    num_tasks: core::ffi::c_ulong,
    _priority: c_int,
    start: c_long,
    end: c_long,
    step: c_long,
) {
    let lp = LoopState::signed(start, end, step, Schedule::Static);
    // SAFETY: the caller's contract.
    unsafe { taskloop(f, data, cpyfn, arg_size, arg_align, flags, num_tasks, lp) }
}

/// `#pragma omp taskloop` on `unsigned long long` (`GOMP_TASK_FLAG_UP` gives the direction).
///
/// # Safety
///
/// As [`GOMP_taskloop`], with two `unsigned long long`s first in the block.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_taskloop_ull(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
    arg_size: c_long,
    arg_align: c_long,
    flags: c_uint,
    num_tasks: core::ffi::c_ulong,
    _priority: c_int,
    start: core::ffi::c_ulonglong,
    end: core::ffi::c_ulonglong,
    step: core::ffi::c_ulonglong,
) {
    let up = flags & FLAG_UP != 0;
    let lp = LoopState::unsigned(up, start, end, step, Schedule::Static);
    // SAFETY: the caller's contract.
    unsafe { taskloop(f, data, cpyfn, arg_size, arg_align, flags, num_tasks, lp) }
}

/// `#pragma omp taskwait`: every task created so far has already run.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_taskwait() {}

/// `#pragma omp taskwait depend(...)`: as [`GOMP_taskwait`].
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_taskwait_depend(_depend: *mut *mut c_void) {}

/// `#pragma omp taskyield`: there are no other tasks to switch to.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_taskyield() {}

/// Opens a `taskgroup` (its tasks run as they are created).
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_taskgroup_start() {}

/// Closes a `taskgroup`: its tasks are done.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_taskgroup_end() {}

/// `#pragma omp cancel`: cancellation is off, so nothing is cancelled.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_cancel(_which: c_int, _do_cancel: bool) -> bool {
    false
}

/// `#pragma omp cancellation point`: nothing is ever cancelled.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_cancellation_point(_which: c_int) -> bool {
    false
}
