//! The worksharing entry points of libgomp's ABI: `GOMP_loop_*` and `GOMP_loop_ull_*` (start,
//! next, end; static, dynamic, guided, runtime, their `nonmonotonic` and `ordered` forms),
//! `GOMP_parallel_loop_*`, `GOMP_sections*`, `GOMP_parallel_sections`, `GOMP_ordered_*` and
//! `GOMP_single_copy_*`, all on `workshare.rs`.
//!
//! The `nonmonotonic` forms share the monotonic ones' code: a thread's chunks come in increasing
//! order either way, which satisfies both modifiers. A `long` loop's bounds are passed as `long`
//! and its chunks returned through `long *`; an `unsigned long long` loop's as such, with `up`
//! saying which way it counts.

#![allow(clippy::too_many_arguments)]

use crate::team::{Job, ThreadState, parallel, with_current};
use crate::workshare::{self, LoopState};
use core::ffi::{c_long, c_uint, c_ulonglong, c_void};
use welltempered_par::Schedule;

/// libgomp's schedule numbers (`enum gomp_schedule_type`).
const GFS_RUNTIME: c_long = 0;
const GFS_STATIC: c_long = 1;
const GFS_DYNAMIC: c_long = 2;
const GFS_GUIDED: c_long = 3;
const GFS_AUTO: c_long = 4;
/// The `monotonic` modifier bit.
const GFS_MONOTONIC: c_long = 0x8000_0000;

fn static_(chunk: c_long) -> Schedule {
    match usize::try_from(chunk) {
        Ok(c) if c > 0 => Schedule::StaticChunked { chunk: c },
        _ => Schedule::Static,
    }
}

fn dynamic(chunk: c_long) -> Schedule {
    Schedule::Dynamic {
        chunk: usize::try_from(chunk).unwrap_or(1).max(1),
    }
}

fn guided(chunk: c_long) -> Schedule {
    Schedule::Guided {
        min_chunk: usize::try_from(chunk).unwrap_or(1).max(1),
    }
}

fn runtime(st: &ThreadState) -> Schedule {
    st.sched_var.get().schedule()
}

/// The schedule of `GOMP_loop_start`'s `sched` argument.
fn by_number(st: &ThreadState, sched: c_long, chunk: c_long) -> Schedule {
    match sched & !GFS_MONOTONIC {
        GFS_RUNTIME => runtime(st),
        GFS_STATIC | GFS_AUTO => static_(chunk),
        GFS_DYNAMIC => dynamic(chunk),
        GFS_GUIDED => guided(chunk),
        other => crate::refused::fatal(&format!("unknown loop schedule number {other}")),
    }
}

/// Writes a chunk's bounds through the caller's pointers; true if there is one.
///
/// # Safety
///
/// `istart` and `iend` are valid for writes of `T` (or null, then nothing is written).
unsafe fn put<T>(
    chunk: Option<(u64, u64)>,
    istart: *mut T,
    iend: *mut T,
    from: fn(u64) -> T,
) -> bool {
    match chunk {
        Some((a, b)) => {
            if !istart.is_null() && !iend.is_null() {
                // SAFETY: the caller's contract.
                unsafe {
                    istart.write(from(a));
                    iend.write(from(b));
                }
            }
            true
        }
        None => false,
    }
}

fn long(v: u64) -> c_long {
    v as c_long
}

fn ull(v: u64) -> c_ulonglong {
    v
}

/// Starts a `long` loop with `schedule` chosen from this thread's state.
///
/// # Safety
///
/// As [`put`].
unsafe fn start_long(
    start: c_long,
    end: c_long,
    incr: c_long,
    ordered: bool,
    schedule: impl FnOnce(&ThreadState) -> Schedule,
    istart: *mut c_long,
    iend: *mut c_long,
) -> bool {
    with_current(|st| {
        let mut lp = LoopState::signed(start, end, incr, schedule(st));
        if ordered {
            lp = lp.with_ordered();
        }
        // SAFETY: the caller's contract.
        unsafe { put(workshare::loop_start(st, lp), istart, iend, long) }
    })
}

/// Starts an `unsigned long long` loop.
///
/// # Safety
///
/// As [`put`].
unsafe fn start_ull(
    up: bool,
    start: c_ulonglong,
    end: c_ulonglong,
    incr: c_ulonglong,
    ordered: bool,
    schedule: impl FnOnce(&ThreadState) -> Schedule,
    istart: *mut c_ulonglong,
    iend: *mut c_ulonglong,
) -> bool {
    with_current(|st| {
        let mut lp = LoopState::unsigned(up, start, end, incr, schedule(st));
        if ordered {
            lp = lp.with_ordered();
        }
        // SAFETY: the caller's contract.
        unsafe { put(workshare::loop_start(st, lp), istart, iend, ull) }
    })
}

/// The next chunk of a `long` loop.
///
/// # Safety
///
/// As [`put`].
unsafe fn next_long(istart: *mut c_long, iend: *mut c_long) -> bool {
    // SAFETY: the caller's contract.
    with_current(|st| unsafe { put(workshare::loop_next(st), istart, iend, long) })
}

/// The next chunk of an `unsigned long long` loop.
///
/// # Safety
///
/// As [`put`].
unsafe fn next_ull(istart: *mut c_ulonglong, iend: *mut c_ulonglong) -> bool {
    // SAFETY: the caller's contract.
    with_current(|st| unsafe { put(workshare::loop_next(st), istart, iend, ull) })
}

/// Defines `long` loop start functions taking a chunk size.
macro_rules! start_chunked {
    ($($name:ident => $sched:ident, $ordered:expr;)*) => {$(
        /// Starts a worksharing loop on `long`; false if this thread has no iteration.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            start: c_long,
            end: c_long,
            incr: c_long,
            chunk: c_long,
            istart: *mut c_long,
            iend: *mut c_long,
        ) -> bool {
            // SAFETY: the caller's contract.
            unsafe { start_long(start, end, incr, $ordered, |_| $sched(chunk), istart, iend) }
        }
    )*};
}

start_chunked! {
    GOMP_loop_static_start => static_, false;
    GOMP_loop_dynamic_start => dynamic, false;
    GOMP_loop_guided_start => guided, false;
    GOMP_loop_nonmonotonic_dynamic_start => dynamic, false;
    GOMP_loop_nonmonotonic_guided_start => guided, false;
    GOMP_loop_ordered_static_start => static_, true;
    GOMP_loop_ordered_dynamic_start => dynamic, true;
    GOMP_loop_ordered_guided_start => guided, true;
}

/// Defines `long` loop start functions of the run-time schedule.
macro_rules! start_runtime {
    ($($name:ident => $ordered:expr;)*) => {$(
        /// Starts a `schedule(runtime)` loop on `long`; false if this thread has no iteration.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            start: c_long,
            end: c_long,
            incr: c_long,
            istart: *mut c_long,
            iend: *mut c_long,
        ) -> bool {
            // SAFETY: the caller's contract.
            unsafe { start_long(start, end, incr, $ordered, runtime, istart, iend) }
        }
    )*};
}

start_runtime! {
    GOMP_loop_runtime_start => false;
    GOMP_loop_nonmonotonic_runtime_start => false;
    GOMP_loop_maybe_nonmonotonic_runtime_start => false;
    GOMP_loop_ordered_runtime_start => true;
}

/// Defines `long` loop next functions (the schedule is the loop's own).
macro_rules! next_fns {
    ($($name:ident)*) => {$(
        /// The calling thread's next chunk of its `long` loop; false when there is none.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(istart: *mut c_long, iend: *mut c_long) -> bool {
            // SAFETY: the caller's contract.
            unsafe { next_long(istart, iend) }
        }
    )*};
}

next_fns! {
    GOMP_loop_static_next GOMP_loop_dynamic_next GOMP_loop_guided_next GOMP_loop_runtime_next
    GOMP_loop_nonmonotonic_dynamic_next GOMP_loop_nonmonotonic_guided_next
    GOMP_loop_nonmonotonic_runtime_next GOMP_loop_maybe_nonmonotonic_runtime_next
    GOMP_loop_ordered_static_next GOMP_loop_ordered_dynamic_next GOMP_loop_ordered_guided_next
    GOMP_loop_ordered_runtime_next
}

/// Defines `unsigned long long` loop start functions taking a chunk size.
macro_rules! start_ull_chunked {
    ($($name:ident => $sched:ident, $ordered:expr;)*) => {$(
        /// Starts a worksharing loop on `unsigned long long`; false if this thread has no
        /// iteration.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            chunk: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            let chunk = c_long::try_from(chunk).unwrap_or(c_long::MAX);
            // SAFETY: the caller's contract.
            unsafe {
                start_ull(up, start, end, incr, $ordered, |_| $sched(chunk), istart, iend)
            }
        }
    )*};
}

start_ull_chunked! {
    GOMP_loop_ull_static_start => static_, false;
    GOMP_loop_ull_dynamic_start => dynamic, false;
    GOMP_loop_ull_guided_start => guided, false;
    GOMP_loop_ull_nonmonotonic_dynamic_start => dynamic, false;
    GOMP_loop_ull_nonmonotonic_guided_start => guided, false;
    GOMP_loop_ull_ordered_static_start => static_, true;
    GOMP_loop_ull_ordered_dynamic_start => dynamic, true;
    GOMP_loop_ull_ordered_guided_start => guided, true;
}

/// Defines `unsigned long long` loop start functions of the run-time schedule.
macro_rules! start_ull_runtime {
    ($($name:ident => $ordered:expr;)*) => {$(
        /// Starts a `schedule(runtime)` loop on `unsigned long long`; false if this thread has
        /// no iteration.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            up: bool,
            start: c_ulonglong,
            end: c_ulonglong,
            incr: c_ulonglong,
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            // SAFETY: the caller's contract.
            unsafe { start_ull(up, start, end, incr, $ordered, runtime, istart, iend) }
        }
    )*};
}

start_ull_runtime! {
    GOMP_loop_ull_runtime_start => false;
    GOMP_loop_ull_nonmonotonic_runtime_start => false;
    GOMP_loop_ull_maybe_nonmonotonic_runtime_start => false;
    GOMP_loop_ull_ordered_runtime_start => true;
}

/// Defines `unsigned long long` loop next functions.
macro_rules! next_ull_fns {
    ($($name:ident)*) => {$(
        /// The calling thread's next chunk of its `unsigned long long` loop; false when there
        /// is none.
        ///
        /// # Safety
        ///
        /// `istart` and `iend` are valid for writes.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            istart: *mut c_ulonglong,
            iend: *mut c_ulonglong,
        ) -> bool {
            // SAFETY: the caller's contract.
            unsafe { next_ull(istart, iend) }
        }
    )*};
}

next_ull_fns! {
    GOMP_loop_ull_static_next GOMP_loop_ull_dynamic_next GOMP_loop_ull_guided_next
    GOMP_loop_ull_runtime_next GOMP_loop_ull_nonmonotonic_dynamic_next
    GOMP_loop_ull_nonmonotonic_guided_next GOMP_loop_ull_nonmonotonic_runtime_next
    GOMP_loop_ull_maybe_nonmonotonic_runtime_next GOMP_loop_ull_ordered_static_next
    GOMP_loop_ull_ordered_dynamic_next GOMP_loop_ull_ordered_guided_next
    GOMP_loop_ull_ordered_runtime_next
}

/// Refuses the parts of the OpenMP 5.0 loop entries this library does not implement: task
/// reductions (`reductions`) and the per-loop memory of `lastprivate(conditional:)` and `scan`
/// (`mem`).
fn refuse_extras(name: &str, reductions: *mut usize, mem: *mut *mut c_void) {
    if !reductions.is_null() {
        crate::refused::refuse(&format!("{name} with task reductions"));
    }
    if !mem.is_null() {
        crate::refused::refuse(&format!(
            "{name} with per-loop memory (lastprivate(conditional:) or scan)"
        ));
    }
}

/// Starts a loop whose schedule is a number (OpenMP 5.0 entry).
///
/// # Safety
///
/// `istart` and `iend` are valid for writes or null.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_loop_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    sched: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    refuse_extras("GOMP_loop_start", reductions, mem);
    // SAFETY: the caller's contract.
    unsafe {
        start_long(
            start,
            end,
            incr,
            false,
            |st| by_number(st, sched, chunk),
            istart,
            iend,
        )
    }
}

/// Starts an ordered loop whose schedule is a number (OpenMP 5.0 entry).
///
/// # Safety
///
/// As [`GOMP_loop_start`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_loop_ordered_start(
    start: c_long,
    end: c_long,
    incr: c_long,
    sched: c_long,
    chunk: c_long,
    istart: *mut c_long,
    iend: *mut c_long,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    refuse_extras("GOMP_loop_ordered_start", reductions, mem);
    // SAFETY: the caller's contract.
    unsafe {
        start_long(
            start,
            end,
            incr,
            true,
            |st| by_number(st, sched, chunk),
            istart,
            iend,
        )
    }
}

/// The `unsigned long long` form of [`GOMP_loop_start`].
///
/// # Safety
///
/// As [`GOMP_loop_start`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_loop_ull_start(
    up: bool,
    start: c_ulonglong,
    end: c_ulonglong,
    incr: c_ulonglong,
    sched: c_long,
    chunk: c_ulonglong,
    istart: *mut c_ulonglong,
    iend: *mut c_ulonglong,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    refuse_extras("GOMP_loop_ull_start", reductions, mem);
    let chunk = c_long::try_from(chunk).unwrap_or(c_long::MAX);
    // SAFETY: the caller's contract.
    unsafe {
        start_ull(
            up,
            start,
            end,
            incr,
            false,
            |st| by_number(st, sched, chunk),
            istart,
            iend,
        )
    }
}

/// The `unsigned long long` form of [`GOMP_loop_ordered_start`].
///
/// # Safety
///
/// As [`GOMP_loop_start`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_loop_ull_ordered_start(
    up: bool,
    start: c_ulonglong,
    end: c_ulonglong,
    incr: c_ulonglong,
    sched: c_long,
    chunk: c_ulonglong,
    istart: *mut c_ulonglong,
    iend: *mut c_ulonglong,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> bool {
    refuse_extras("GOMP_loop_ull_ordered_start", reductions, mem);
    let chunk = c_long::try_from(chunk).unwrap_or(c_long::MAX);
    // SAFETY: the caller's contract.
    unsafe {
        start_ull(
            up,
            start,
            end,
            incr,
            true,
            |st| by_number(st, sched, chunk),
            istart,
            iend,
        )
    }
}

/// Ends the calling thread's loop and waits for the team (the implicit barrier).
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_loop_end() {
    with_current(|st| workshare::loop_end(st, true));
}

/// Ends the calling thread's loop without waiting (`nowait`).
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_loop_end_nowait() {
    with_current(|st| workshare::loop_end(st, false));
}

/// [`GOMP_loop_end`] in a cancellable region: cancellation is off, so never cancelled.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_loop_end_cancel() -> bool {
    GOMP_loop_end();
    false
}

/// Starts a region whose construct 0 is the loop `lp` (the schedule read on the caller).
fn parallel_loop(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    num_threads: c_uint,
    lp: impl FnOnce(&ThreadState) -> LoopState,
) {
    let lp = with_current(lp);
    parallel(Job { f, data }, num_threads, Some(lp));
}

/// Defines the combined `parallel for` entries taking a chunk size.
macro_rules! parallel_loop_chunked {
    ($($name:ident => $sched:ident;)*) => {$(
        /// `#pragma omp parallel for` with this schedule: a region whose threads take their
        /// chunks with the matching `next` function.
        ///
        /// # Safety
        ///
        /// `f` is the compiler's outlined region function for `data`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            f: unsafe extern "C" fn(*mut c_void),
            data: *mut c_void,
            num_threads: c_uint,
            start: c_long,
            end: c_long,
            incr: c_long,
            chunk: c_long,
            _flags: c_uint,
        ) {
            parallel_loop(f, data, num_threads, |_| {
                LoopState::signed(start, end, incr, $sched(chunk))
            });
        }
    )*};
}

parallel_loop_chunked! {
    GOMP_parallel_loop_static => static_;
    GOMP_parallel_loop_dynamic => dynamic;
    GOMP_parallel_loop_guided => guided;
    GOMP_parallel_loop_nonmonotonic_dynamic => dynamic;
    GOMP_parallel_loop_nonmonotonic_guided => guided;
}

/// Defines the combined `parallel for schedule(runtime)` entries.
macro_rules! parallel_loop_runtime {
    ($($name:ident)*) => {$(
        /// `#pragma omp parallel for schedule(runtime)`.
        ///
        /// # Safety
        ///
        /// `f` is the compiler's outlined region function for `data`.
        #[unsafe(no_mangle)]
        pub unsafe extern "C" fn $name(
            f: unsafe extern "C" fn(*mut c_void),
            data: *mut c_void,
            num_threads: c_uint,
            start: c_long,
            end: c_long,
            incr: c_long,
            _flags: c_uint,
        ) {
            parallel_loop(f, data, num_threads, |st| {
                LoopState::signed(start, end, incr, runtime(st))
            });
        }
    )*};
}

parallel_loop_runtime! {
    GOMP_parallel_loop_runtime GOMP_parallel_loop_nonmonotonic_runtime
    GOMP_parallel_loop_maybe_nonmonotonic_runtime
}

/// `#pragma omp sections` with `count` sections: the first section this thread runs (numbered
/// from 1), or 0.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_sections_start(count: c_uint) -> c_uint {
    with_current(|st| section(workshare::loop_start(st, LoopState::sections(count))))
}

/// The OpenMP 5.0 form of [`GOMP_sections_start`].
///
/// # Safety
///
/// `reductions` and `mem` are null (anything else is refused).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_sections2_start(
    count: c_uint,
    reductions: *mut usize,
    mem: *mut *mut c_void,
) -> c_uint {
    refuse_extras("GOMP_sections2_start", reductions, mem);
    GOMP_sections_start(count)
}

fn section(chunk: Option<(u64, u64)>) -> c_uint {
    chunk.map_or(0, |(a, _)| a as c_uint)
}

/// The next section this thread runs, or 0.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_sections_next() -> c_uint {
    with_current(|st| section(workshare::loop_next(st)))
}

/// Ends `sections` and waits for the team.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_sections_end() {
    GOMP_loop_end();
}

/// Ends `sections` without waiting.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_sections_end_nowait() {
    GOMP_loop_end_nowait();
}

/// [`GOMP_sections_end`] in a cancellable region: never cancelled.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_sections_end_cancel() -> bool {
    GOMP_loop_end();
    false
}

/// `#pragma omp parallel sections`: a region whose construct 0 is `count` sections.
///
/// # Safety
///
/// `f` is the compiler's outlined region function for `data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_parallel_sections(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    num_threads: c_uint,
    count: c_uint,
    _flags: c_uint,
) {
    parallel_loop(f, data, num_threads, |_| LoopState::sections(count));
}

/// Enters the `ordered` region of the current iteration.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_ordered_start() {
    with_current(workshare::ordered_start);
}

/// Leaves the `ordered` region (the next chunk's is let in when this chunk is done).
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_ordered_end() {}

/// `single copyprivate`: null on the thread that runs the body, the runner's data on the
/// others.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_single_copy_start() -> *mut c_void {
    with_current(workshare::single_copy_start)
}

/// `single copyprivate`: the runner publishes its data.
///
/// # Safety
///
/// `data` stays valid until the barrier that ends the construct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_single_copy_end(data: *mut c_void) {
    with_current(|st| workshare::single_copy_end(st, data));
}
