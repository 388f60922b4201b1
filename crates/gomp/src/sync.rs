//! Synchronisation constructs: `barrier`, `critical` (unnamed and named), the lock fallback of
//! `atomic`, `single`, `masked` (OpenMP 5.2 §15.3.1, §15.2, §15.8.5, §11.1, §10.5).
//!
//! - `barrier` is the team's barrier of `welltempered-par`, of the configured kind
//!   (`WELLTEMPERED_BARRIER`: central, tree, dissemination).
//! - `critical` takes a lock of the configured kind (`WELLTEMPERED_LOCK`: Hemlock, MCS, CLH,
//!   ticket, TAS, TTAS, futex, two-phase, the default mutex, spinning or parking; when it is
//!   unset, a two-phase lock whose waiters spin for the wait policy's window, as libgomp's
//!   do, see [`crate::team::new_lock`]): one process-wide lock for
//!   the unnamed section, one per name for the named ones, created on first use and stored in
//!   the pointer-sized variable the compiler gives each name (`.gomp_critical_user_NAME`).
//! - `atomic` on a type the processor cannot update atomically (`long double`, say) takes one
//!   more process-wide lock of the same kind, as libgomp does.
//! - `single` is `welltempered-par`'s: the first thread to arrive runs it; `master`/`masked` are
//!   compiled inline from `omp_get_thread_num`.
//!
//! Locks are held from a `start` call to an `end` call on the same thread, which every lock of
//! `welltempered-lock` allows through `lock_api::RawMutex`.

use crate::team::with_current;
use core::ffi::c_void;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicPtr, Ordering};
use welltempered_lock::DynRawMutex;
use welltempered_lock::lock_api::RawMutex as _;

/// A process-wide lock of the configured kind, created on first use.
fn global_lock(cell: &'static OnceLock<DynRawMutex>) -> &'static DynRawMutex {
    cell.get_or_init(crate::team::new_lock)
}

static CRITICAL: OnceLock<DynRawMutex> = OnceLock::new();
static ATOMIC: OnceLock<DynRawMutex> = OnceLock::new();

/// The lock of the named critical section whose variable is `pptr` (created on first use).
fn named_lock(pptr: *mut *mut c_void) -> &'static DynRawMutex {
    if pptr.is_null() {
        crate::refused::fatal("GOMP_critical_name_start was given a null name variable");
    }
    // SAFETY: `pptr` is the compiler's pointer-sized, pointer-aligned variable for this name,
    // which only this library writes, always through atomics.
    let slot = unsafe { AtomicPtr::<DynRawMutex>::from_ptr(pptr.cast()) };
    // Acquire: pairs with the Release of the compare-and-swap that published the lock.
    let mut p = slot.load(Ordering::Acquire);
    if p.is_null() {
        let fresh = Box::into_raw(Box::new(crate::team::new_lock()));
        match slot.compare_exchange(
            core::ptr::null_mut(),
            fresh,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            Ok(_) => p = fresh,
            Err(won) => {
                // SAFETY: `fresh` was never shared: the other thread's lock won.
                drop(unsafe { Box::from_raw(fresh) });
                p = won;
            }
        }
    }
    // SAFETY: a published lock is never freed (named sections live as long as the program).
    unsafe { &*p }
}

/// `#pragma omp barrier`.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_barrier() {
    with_current(|st| st.barrier());
}

/// `#pragma omp barrier` in a cancellable region: cancellation is off, so never cancelled.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_barrier_cancel() -> bool {
    GOMP_barrier();
    false
}

/// Enters the unnamed `critical` section.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_critical_start() {
    global_lock(&CRITICAL).lock();
}

/// Leaves the unnamed `critical` section.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_critical_end() {
    // SAFETY: OpenMP's contract: this thread entered the section with `GOMP_critical_start`.
    unsafe { global_lock(&CRITICAL).unlock(Default::default()) };
}

/// Enters the named `critical` section whose variable is `pptr`.
///
/// # Safety
///
/// `pptr` is the compiler's variable for the name (pointer-sized, aligned, zero at first).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_critical_name_start(pptr: *mut *mut c_void) {
    named_lock(pptr).lock();
}

/// Leaves the named `critical` section whose variable is `pptr`.
///
/// # Safety
///
/// As [`GOMP_critical_name_start`], which this thread called for the same name.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_critical_name_end(pptr: *mut *mut c_void) {
    // SAFETY: the caller's contract: this thread holds the section's lock.
    unsafe { named_lock(pptr).unlock(Default::default()) };
}

/// Enters the lock of `atomic` updates the processor cannot do atomically.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_atomic_start() {
    global_lock(&ATOMIC).lock();
}

/// Leaves the lock of `atomic` updates.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_atomic_end() {
    // SAFETY: OpenMP's contract: this thread called `GOMP_atomic_start`.
    unsafe { global_lock(&ATOMIC).unlock(Default::default()) };
}

/// `#pragma omp single`: true on the one thread that runs the body.
#[unsafe(no_mangle)]
pub extern "C" fn GOMP_single_start() -> bool {
    with_current(|st| match st.ctx() {
        Some(ctx) => ctx.single_nowait(|| ()).is_some(),
        None => true,
    })
}
