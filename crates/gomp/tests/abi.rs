//! The GOMP entry points called from Rust the way GCC's generated code calls them: regions,
//! loops of every schedule, `ordered`, `sections`, `single copyprivate`, `critical`, the lock
//! API and tasks. The shared data is plain (non-atomic) wherever the construct is what protects
//! it, so that Miri (which runs this file in CI) reports a data race if a construct fails to
//! order the accesses, and a use after free if one touches what it should not.

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_long, c_uint, c_void};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

// The library's symbols, linked from its rlib.
use welltempered_gomp as _;

type Outlined = unsafe extern "C" fn(*mut c_void);

unsafe extern "C" {
    fn GOMP_parallel(f: Outlined, data: *mut c_void, num_threads: c_uint, flags: c_uint);
    fn GOMP_barrier();
    fn GOMP_critical_start();
    fn GOMP_critical_end();
    fn GOMP_critical_name_start(pptr: *mut *mut c_void);
    fn GOMP_critical_name_end(pptr: *mut *mut c_void);
    fn GOMP_loop_dynamic_start(
        start: c_long,
        end: c_long,
        incr: c_long,
        chunk: c_long,
        istart: *mut c_long,
        iend: *mut c_long,
    ) -> bool;
    fn GOMP_loop_dynamic_next(istart: *mut c_long, iend: *mut c_long) -> bool;
    fn GOMP_loop_guided_start(
        start: c_long,
        end: c_long,
        incr: c_long,
        chunk: c_long,
        istart: *mut c_long,
        iend: *mut c_long,
    ) -> bool;
    fn GOMP_loop_guided_next(istart: *mut c_long, iend: *mut c_long) -> bool;
    fn GOMP_loop_static_start(
        start: c_long,
        end: c_long,
        incr: c_long,
        chunk: c_long,
        istart: *mut c_long,
        iend: *mut c_long,
    ) -> bool;
    fn GOMP_loop_static_next(istart: *mut c_long, iend: *mut c_long) -> bool;
    fn GOMP_loop_ordered_dynamic_start(
        start: c_long,
        end: c_long,
        incr: c_long,
        chunk: c_long,
        istart: *mut c_long,
        iend: *mut c_long,
    ) -> bool;
    fn GOMP_loop_ordered_dynamic_next(istart: *mut c_long, iend: *mut c_long) -> bool;
    fn GOMP_loop_end();
    fn GOMP_loop_end_nowait();
    fn GOMP_ordered_start();
    fn GOMP_ordered_end();
    fn GOMP_sections_start(count: c_uint) -> c_uint;
    fn GOMP_sections_next() -> c_uint;
    fn GOMP_sections_end();
    fn GOMP_single_copy_start() -> *mut c_void;
    fn GOMP_single_copy_end(data: *mut c_void);
    fn GOMP_task(
        f: Outlined,
        data: *mut c_void,
        cpyfn: Option<unsafe extern "C" fn(*mut c_void, *mut c_void)>,
        arg_size: c_long,
        arg_align: c_long,
        if_clause: bool,
        flags: c_uint,
        depend: *mut *mut c_void,
        priority: c_int,
        detach: *mut c_void,
    );
    fn omp_get_thread_num() -> c_int;
    fn omp_get_num_threads() -> c_int;
    fn omp_get_level() -> c_int;
    fn omp_init_lock(lock: *mut u32);
    fn omp_set_lock(lock: *mut u32);
    fn omp_unset_lock(lock: *mut u32);
    fn omp_test_lock(lock: *mut u32) -> c_int;
    fn omp_destroy_lock(lock: *mut u32);
    fn omp_init_nest_lock(lock: *mut [u64; 2]);
    fn omp_set_nest_lock(lock: *mut [u64; 2]);
    fn omp_unset_nest_lock(lock: *mut [u64; 2]);
    fn omp_test_nest_lock(lock: *mut [u64; 2]) -> c_int;
    fn omp_destroy_nest_lock(lock: *mut [u64; 2]);
}

/// Fewer iterations under Miri, which is slow.
const SCALE: c_long = if cfg!(miri) { 40 } else { 3000 };

/// Runs `f` as a parallel region of `threads` threads.
fn parallel<F: Fn() + Sync>(threads: u32, f: F) {
    unsafe extern "C" fn call<F: Fn() + Sync>(data: *mut c_void) {
        // SAFETY: `data` is the `F` passed below, alive for the whole region.
        unsafe { (*data.cast::<F>())() }
    }
    // SAFETY: `call::<F>` takes exactly the `F` at `data`, which outlives the region
    // (GOMP_parallel returns only when every thread is done).
    unsafe { GOMP_parallel(call::<F>, (&raw const f).cast_mut().cast(), threads, 0) };
}

/// A value shared by a team and protected by an OpenMP construct, not by Rust.
struct Shared<T>(UnsafeCell<T>);

// SAFETY: every test accesses the value only under the construct it tests (a critical section,
// a lock, an ordered region) or after a barrier; a failure of the construct is what the tests
// look for (wrong results natively, a data race under Miri).
unsafe impl<T: Send> Sync for Shared<T> {}

impl<T> Shared<T> {
    fn new(v: T) -> Self {
        Shared(UnsafeCell::new(v))
    }

    /// The value's address, for the library to use.
    fn ptr(&self) -> *mut T {
        self.0.get()
    }

    /// # Safety
    ///
    /// The caller holds what protects the value.
    #[allow(clippy::mut_from_ref)]
    unsafe fn get(&self) -> &mut T {
        // SAFETY: the caller's contract.
        unsafe { &mut *self.ptr() }
    }
}

#[test]
fn regions_number_their_threads() {
    let seen = Mutex::new(Vec::new());
    parallel(3, || {
        // SAFETY: plain queries.
        let (tid, n, level) =
            unsafe { (omp_get_thread_num(), omp_get_num_threads(), omp_get_level()) };
        seen.lock().unwrap().push((tid, n, level));
    });
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, [(0, 3, 1), (1, 3, 1), (2, 3, 1)]);
    // SAFETY: a plain query, outside every region.
    assert_eq!(unsafe { omp_get_level() }, 0);
}

/// Runs a loop of `start..end` by `incr` under `start_fn`/`next_fn` on `threads` threads and
/// returns how many times each iteration ran.
fn run_loop(
    threads: u32,
    (start, end, incr, chunk): (c_long, c_long, c_long, c_long),
    start_fn: unsafe extern "C" fn(
        c_long,
        c_long,
        c_long,
        c_long,
        *mut c_long,
        *mut c_long,
    ) -> bool,
    next_fn: unsafe extern "C" fn(*mut c_long, *mut c_long) -> bool,
) -> Vec<usize> {
    let iters = ((end - start) / incr).unsigned_abs() as usize + 1;
    let hits: Vec<AtomicUsize> = (0..iters).map(|_| AtomicUsize::new(0)).collect();
    parallel(threads, || {
        let (mut a, mut b) = (0, 0);
        // SAFETY: the pointers are valid; every thread meets the same loop.
        let mut more = unsafe { start_fn(start, end, incr, chunk, &mut a, &mut b) };
        while more {
            let mut i = a;
            while (incr > 0 && i < b) || (incr < 0 && i > b) {
                hits[((i - start) / incr) as usize].fetch_add(1, Ordering::Relaxed);
                i += incr;
            }
            // SAFETY: as above.
            more = unsafe { next_fn(&mut a, &mut b) };
        }
        // SAFETY: ends the loop this thread started.
        unsafe { GOMP_loop_end_nowait() };
    });
    let exact = ((end - start).abs() + incr.abs() - 1) / incr.abs();
    hits.iter()
        .take(exact as usize)
        .map(|h| h.load(Ordering::Relaxed))
        .chain(hits.iter().skip(exact as usize).map(|h| {
            assert_eq!(
                h.load(Ordering::Relaxed),
                0,
                "an iteration past the end ran"
            );
            1
        }))
        .collect()
}

#[test]
fn every_schedule_runs_each_iteration_once() {
    type Start =
        unsafe extern "C" fn(c_long, c_long, c_long, c_long, *mut c_long, *mut c_long) -> bool;
    type Next = unsafe extern "C" fn(*mut c_long, *mut c_long) -> bool;
    let schedules: [(&str, Start, Next, c_long); 5] = [
        ("static", GOMP_loop_static_start, GOMP_loop_static_next, 0),
        ("static,3", GOMP_loop_static_start, GOMP_loop_static_next, 3),
        (
            "dynamic,1",
            GOMP_loop_dynamic_start,
            GOMP_loop_dynamic_next,
            1,
        ),
        (
            "dynamic,7",
            GOMP_loop_dynamic_start,
            GOMP_loop_dynamic_next,
            7,
        ),
        ("guided,2", GOMP_loop_guided_start, GOMP_loop_guided_next, 2),
    ];
    for (name, start, next, chunk) in schedules {
        for threads in [1, 2, 3] {
            for bounds in [
                (0, SCALE, 1, chunk),
                (5, SCALE, 3, chunk),
                (SCALE, -7, -4, chunk),
                (0, 0, 1, chunk),
            ] {
                let hits = run_loop(threads, bounds, start, next);
                assert!(
                    hits.iter().all(|&h| h == 1),
                    "{name}, {threads} threads, {bounds:?}: {hits:?}"
                );
            }
        }
    }
}

#[test]
fn ordered_regions_run_in_iteration_order() {
    let order = Shared::new(Vec::new());
    parallel(3, || {
        let (mut a, mut b) = (0, 0);
        // SAFETY: valid pointers; every thread meets the loop.
        let mut more = unsafe { GOMP_loop_ordered_dynamic_start(0, SCALE, 1, 2, &mut a, &mut b) };
        while more {
            for i in a..b {
                // SAFETY: the ordered region serialises the pushes (and orders them).
                unsafe {
                    GOMP_ordered_start();
                    order.get().push(i);
                    GOMP_ordered_end();
                }
            }
            // SAFETY: as above.
            more = unsafe { GOMP_loop_ordered_dynamic_next(&mut a, &mut b) };
        }
        // SAFETY: ends the loop, with its barrier.
        unsafe { GOMP_loop_end() };
    });
    // SAFETY: the region is over.
    let order = unsafe { order.get() };
    assert_eq!(*order, (0..SCALE).collect::<Vec<_>>());
}

#[test]
fn sections_run_once_each_and_nowait_loops_run_ahead() {
    let runs: Vec<AtomicUsize> = (0..7).map(|_| AtomicUsize::new(0)).collect();
    parallel(3, || {
        for _ in 0..12 {
            // SAFETY: every thread meets the same sections.
            let mut s = unsafe { GOMP_sections_start(7) };
            while s != 0 {
                runs[s as usize - 1].fetch_add(1, Ordering::Relaxed);
                // SAFETY: as above.
                s = unsafe { GOMP_sections_next() };
            }
            // SAFETY: ends the sections, with their barrier.
            unsafe { GOMP_sections_end() };
        }
    });
    assert!(runs.iter().all(|r| r.load(Ordering::Relaxed) == 12));
}

#[test]
fn copyprivate_hands_the_value_to_every_thread() {
    let got = Mutex::new(Vec::new());
    parallel(3, || {
        let mut mine: [u64; 4];
        // SAFETY: the copyprivate protocol as GCC emits it: the runner publishes its data, the
        // others copy it, then all meet at the construct's barrier.
        unsafe {
            let theirs = GOMP_single_copy_start();
            if theirs.is_null() {
                mine = [7, 8, 9, 10];
                GOMP_single_copy_end((&raw mut mine).cast());
            } else {
                mine = *theirs.cast::<[u64; 4]>();
            }
            GOMP_barrier();
        }
        got.lock().unwrap().push(mine);
    });
    assert_eq!(got.into_inner().unwrap(), [[7, 8, 9, 10]; 3]);
}

#[test]
fn critical_sections_and_locks_exclude() {
    let plain = Shared::new(0u64);
    let named = Shared::new(0u64);
    let locked = Shared::new(0u64);
    // The variable GCC gives a critical section's name, and an omp_lock_t: the library touches
    // them only atomically, through the raw pointers.
    let name = Shared::new(0usize);
    let lock = Shared::new(0u32);
    // SAFETY: `lock` is a valid omp_lock_t-sized word.
    unsafe { omp_init_lock(lock.ptr()) };
    let rounds = SCALE as u64;
    parallel(3, || {
        for _ in 0..rounds {
            // SAFETY: each counter is touched only inside its own construct; the name variable
            // and the lock word are only touched by the library, atomically.
            unsafe {
                GOMP_critical_start();
                *plain.get() += 1;
                GOMP_critical_end();
                GOMP_critical_name_start(name.ptr().cast());
                *named.get() += 1;
                GOMP_critical_name_end(name.ptr().cast());
                omp_set_lock(lock.ptr());
                *locked.get() += 1;
                omp_unset_lock(lock.ptr());
            }
        }
    });
    // SAFETY: the region is over.
    unsafe {
        assert_eq!(
            (*plain.get(), *named.get(), *locked.get()),
            (3 * rounds, 3 * rounds, 3 * rounds)
        );
        assert_eq!(omp_test_lock(lock.ptr()), 1);
        assert_eq!(omp_test_lock(lock.ptr()), 0);
        omp_unset_lock(lock.ptr());
        omp_destroy_lock(lock.ptr());
    }
}

#[test]
fn nest_locks_count_their_owner() {
    let l = Shared::new([0u64; 2]);
    let count = Shared::new(0u64);
    // SAFETY: `l` has the size and alignment of omp_nest_lock_t.
    unsafe { omp_init_nest_lock(l.ptr()) };
    parallel(2, || {
        // SAFETY: the nestable lock protects `count`; this thread releases what it took.
        unsafe {
            omp_set_nest_lock(l.ptr());
            assert_eq!(omp_test_nest_lock(l.ptr()), 2);
            *count.get() += 1;
            omp_unset_nest_lock(l.ptr());
            omp_unset_nest_lock(l.ptr());
        }
    });
    // SAFETY: the region is over.
    unsafe {
        assert_eq!(*count.get(), 2);
        omp_destroy_nest_lock(l.ptr());
    }
}

#[test]
fn tasks_run_on_their_own_copy() {
    unsafe extern "C" fn body(data: *mut c_void) {
        // SAFETY: `data` is the task's copy of a [u64; 2] block.
        let d = unsafe { &mut *data.cast::<[u64; 2]>() };
        TOTAL.fetch_add((d[0] * d[1]) as usize, Ordering::Relaxed);
        d[0] = 0;
    }
    unsafe extern "C" fn copy(dst: *mut c_void, src: *mut c_void) {
        // SAFETY: both are [u64; 2] blocks (`dst` of the size and alignment asked).
        unsafe { *dst.cast::<[u64; 2]>() = *src.cast::<[u64; 2]>() };
    }
    static TOTAL: AtomicUsize = AtomicUsize::new(0);
    let mut block = [6u64, 7];
    // SAFETY: the task function and copy function take such blocks.
    unsafe {
        GOMP_task(
            body,
            (&raw mut block).cast(),
            Some(copy),
            16,
            8,
            true,
            0,
            std::ptr::null_mut(),
            0,
            std::ptr::null_mut(),
        )
    };
    assert_eq!(TOTAL.load(Ordering::Relaxed), 42);
    assert_eq!(
        block,
        [6, 7],
        "the task wrote to the creator's block, not its copy"
    );
}
