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
//!   `pthread_cond_{init,destroy,wait,timedwait,clockwait,signal,broadcast}`. The three waits are
//!   C (`src/condwait.c`, built by `build.rs`), because they are cancellation points; everything
//!   else is Rust.
//! - `WELLTEMPERED_LOCK` picks the algorithm, by [`welltempered_lock::LockKind`] name
//!   (`mutex`, the default [`welltempered_lock::Mutex`]'s lock, when unset: see below). An unknown
//!   name prints one message on stderr, and the program runs on glibc's own locks and condition
//!   variables.
//! - The lock lives inside the caller's `pthread_mutex_t`, in its first 16 bytes (the default
//!   `mutex` in its first 8), with no side table; all-zero means
//!   unlocked, so `PTHREAD_MUTEX_INITIALIZER` works, and glibc's kind field stays where it was.
//!   Default and adaptive mutexes are ours; recursive, error-checking, robust, process-shared and
//!   priority-protocol mutexes go to glibc's own functions, found with `dlvsym(RTLD_NEXT, ..)` at
//!   the symbol versions a current program binds to.
//! - Condition variables are all ours, process-shared ones included (glibc's waits release the
//!   mutex through internal calls that would bypass ours), and work with every kind of mutex: a
//!   wait releases and retakes the mutex through the routed functions above. Timed waits use the
//!   clock the condattr names; no lost wake-ups, and a signal wakes a thread that was waiting
//!   before it; `pthread_cond_destroy` waits for woken waiters to leave, as POSIX's own example
//!   needs. See `cond.rs`.
//! - Errors follow glibc's (2.36) reading of POSIX: `EBUSY` from trylock (and from destroying a
//!   held mutex of ours), `ETIMEDOUT` and `EINVAL` (a bad `tv_nsec` or clock) from the timed
//!   calls, with glibc's order of checks (a free mutex is taken whatever the deadline; a
//!   negative `tv_sec` is `ETIMEDOUT`); the relock's `EOWNERDEAD` or `ENOTRECOVERABLE` from a
//!   condition wait with a robust mutex. Timed acquisitions poll `try_lock` with a capped
//!   backoff rather than queueing (a queue lock cannot abandon its queue); they never time out
//!   early, and accept any deadline up to `tv_sec = LONG_MAX`.
//! - Cancellation: the condition waits are cancellation points, acted on while the thread
//!   sleeps (or at entry), with the mutex retaken before the caller's cleanup handlers run; the
//!   mutex functions are not, and nothing on their paths is one (their sleeps and writes are raw
//!   system calls, not libc's cancellable wrappers). No cancellation unwinds through Rust code.
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
//! at the fork is unusable in the child, as glibc's would be. Likewise a condition variable with
//! waiters at the fork keeps their count and tickets in the child: its first signals there go to
//! those tickets, and destroying it waits forever (glibc's keeps its waiters' count too).
//! Process-shared condition variables and mutexes in shared memory work across `fork` when
//! parent and child both run this library.
//!
//! Differences from glibc that a program can see: a null deadline is `EINVAL` where glibc would
//! crash; a process-shared condition variable is not interchangeable with glibc's (all processes
//! using one must run this library). Destroying a held mutex is `EBUSY` for ours as for glibc's
//! (glibc destroys a held robust mutex, but those are glibc's anyway). The tests compare every
//! other answer with glibc's.
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
