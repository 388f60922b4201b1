//! `libwelltempered_preload.so`: unmodified C and C++ programs on welltempered locks.
//!
//! The Hemlock paper measured every lock under real programs by interposing `pthread_mutex_*`
//! with `LD_PRELOAD`; this library does the same for any glibc program:
//!
//! ```sh
//! cargo build --release -p welltempered-preload
//! WELLTEMPERED_LOCK=mcs-park LD_PRELOAD=target/release/libwelltempered_preload.so ./program
//! ```
//!
//! - It exports `pthread_mutex_{init,destroy,lock,trylock,timedlock,clocklock,unlock}` and
//!   `pthread_cond_{init,destroy,wait,timedwait,clockwait,signal,broadcast}`.
//! - `WELLTEMPERED_LOCK` picks the algorithm, by [`welltempered_lock::LockKind`] name
//!   (`mutex`, the default [`welltempered_lock::Mutex`]'s lock, when unset: see below). An unknown
//!   name prints one
//!   message on stderr, and the program runs on glibc's own locks.
//! - The lock lives inside the caller's `pthread_mutex_t`, in its first 16 bytes (the default
//!   `mutex` also in bytes 20..24, around the kind field), with no side table; all-zero means unlocked, so `PTHREAD_MUTEX_INITIALIZER` works, and glibc's kind field
//!   stays where it was. Default and adaptive mutexes are ours; recursive, error-checking, robust,
//!   process-shared and priority-protocol mutexes go to glibc's own functions, found with
//!   `dlvsym(RTLD_NEXT, ..)` at the symbol versions a current program binds to.
//! - Condition variables are ours too (glibc's waits release the mutex through internal calls
//!   that would bypass ours): timed waits on the clock the condattr names, no lost wake-ups,
//!   spurious wake-ups allowed. Process-shared ones are glibc's.
//! - Errors follow POSIX: `EBUSY` from trylock (and from destroying a held mutex), `ETIMEDOUT`
//!   and `EINVAL` (a bad timespec or clock) from the timed calls. Timed acquisitions poll
//!   `try_lock` with a capped backoff rather than queueing (a queue lock cannot abandon its
//!   queue); they never time out early.
//! - `WELLTEMPERED_PRELOAD_STATS=1` prints, at exit, acquisitions and contended acquisitions per
//!   lock kind, and (built with `--features stats`) the most threads ever waiting on one Grant.
//!
//! Safety of the interposed functions: they are callable before any constructor has run (the
//! lock is chosen by the first call, with `getenv`), in threads created before `main`, and
//! during thread teardown: per-thread state is in `const`-initialised thread-locals with no
//! destructor, the lock path allocates nothing, and `extern "C"` functions abort rather than
//! unwind into C.
//!
//! `fork`: the child gets a copy of every mutex as it was. A mutex held by another thread at the
//! fork stays held in the child, as with glibc (POSIX allows the child only async-signal-safe
//! calls until `exec` in a multithreaded parent). A mutex the forking thread held is held by the
//! child's only thread, which can unlock it: its thread-local Grant and queue nodes were copied
//! to the same addresses. Queued waiters of other threads are not copied, so a lock with waiters
//! at the fork is unusable in the child, as glibc's would be.
//!
//! Normal mutexes keep POSIX's rules: unlocking a mutex the caller does not hold, or locking one
//! it already holds, is undefined (on a queue lock it deadlocks).

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
compile_error!("the preload library interposes glibc's pthread functions on 64-bit Linux only");

// The unit-test harness keeps the system allocator.
#[cfg(not(test))]
mod alloc;
mod cond;
mod config;
mod mutex;
mod real;

use core::ffi::c_int;
use libc::{
    clockid_t, pthread_cond_t, pthread_condattr_t, pthread_mutex_t, pthread_mutexattr_t, timespec,
};

/// `pthread_mutex_init(3)`.
///
/// # Safety
///
/// POSIX's contract: `m` is writable storage for a mutex, `attr` null or initialised.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_init(
    m: *mut pthread_mutex_t,
    attr: *const pthread_mutexattr_t,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::init(m, attr) }
}

/// `pthread_mutex_destroy(3)`.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_destroy(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::destroy(m) }
}

/// `pthread_mutex_lock(3)`.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_lock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::lock(m) }
}

/// `pthread_mutex_trylock(3)`.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_trylock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::trylock(m) }
}

/// `pthread_mutex_timedlock(3)`: an absolute `CLOCK_REALTIME` deadline.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex, `abs` points to a timespec.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_timedlock(
    m: *mut pthread_mutex_t,
    abs: *const timespec,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::clocklock(m, libc::CLOCK_REALTIME, abs, true) }
}

/// `pthread_mutex_clocklock(3)`: an absolute deadline on `CLOCK_REALTIME` or `CLOCK_MONOTONIC`.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex, `abs` points to a timespec.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_clocklock(
    m: *mut pthread_mutex_t,
    clock: clockid_t,
    abs: *const timespec,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::clocklock(m, clock, abs, false) }
}

/// `pthread_mutex_unlock(3)`.
///
/// # Safety
///
/// POSIX's contract: `m` is an initialised mutex that the caller holds.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_mutex_unlock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { mutex::unlock(m) }
}

/// `pthread_cond_init(3)`.
///
/// # Safety
///
/// POSIX's contract: `c` is writable storage for a condition variable, `attr` null or initialised.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_init(
    c: *mut pthread_cond_t,
    attr: *const pthread_condattr_t,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::init(c, attr) }
}

/// `pthread_cond_destroy(3)`.
///
/// # Safety
///
/// POSIX's contract: `c` is an initialised condition variable with no waiters.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_destroy(c: *mut pthread_cond_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::destroy(c) }
}

/// `pthread_cond_wait(3)`.
///
/// # Safety
///
/// POSIX's contract: `c` and `m` are initialised and the caller holds `m`.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_wait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::wait(c, m, None, core::ptr::null(), false) }
}

/// `pthread_cond_timedwait(3)`: an absolute deadline on the condition variable's clock.
///
/// # Safety
///
/// POSIX's contract: `c` and `m` are initialised, the caller holds `m`, `abs` points to a timespec.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_timedwait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    abs: *const timespec,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::wait(c, m, None, abs, true) }
}

/// `pthread_cond_clockwait(3)`: an absolute deadline on `clock`.
///
/// # Safety
///
/// POSIX's contract: `c` and `m` are initialised, the caller holds `m`, `abs` points to a timespec.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_clockwait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    clock: clockid_t,
    abs: *const timespec,
) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::wait(c, m, Some(clock), abs, true) }
}

/// `pthread_cond_signal(3)`.
///
/// # Safety
///
/// POSIX's contract: `c` is an initialised condition variable.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_signal(c: *mut pthread_cond_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::wake(c, false) }
}

/// `pthread_cond_broadcast(3)`.
///
/// # Safety
///
/// POSIX's contract: `c` is an initialised condition variable.
#[cfg_attr(not(test), unsafe(no_mangle))]
pub unsafe extern "C" fn pthread_cond_broadcast(c: *mut pthread_cond_t) -> c_int {
    // SAFETY: forwarded from the caller.
    unsafe { cond::wake(c, true) }
}
