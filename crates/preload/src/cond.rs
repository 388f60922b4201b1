//! `pthread_cond_t` of our own: a sequence word and a waiter count, with futex waits.
//!
//! glibc's condition-variable waits release and retake the mutex through internal calls that
//! bypass interposed symbols, so a library that replaces the mutex must replace the condition
//! variable too. Layout in the 48-byte `pthread_cond_t` (all-zero is `PTHREAD_COND_INITIALIZER`):
//! bytes 0..4 the sequence word (futex), 4..8 the number of waiters, and at byte 36 glibc's own
//! flag word, whose bit 0 says process-shared and bit 1 says `CLOCK_MONOTONIC`, exactly as glibc
//! encodes them. A process-shared condition variable is initialised and served by glibc (its
//! mutex is process-shared too, so glibc's); ours keep bit 0 clear.
//!
//! A wait reads the sequence while holding the mutex, counts itself as a waiter, releases the
//! mutex and sleeps while the sequence is unchanged; signal and broadcast advance the sequence
//! and wake one or all sleepers, making the system call only when a waiter is counted. A
//! signal that changes the sequence after a waiter read it always ends that waiter's sleep, so
//! no wake-up is lost for a waiter that checked its predicate under the mutex. Spurious
//! wake-ups happen (POSIX allows them): `signal` may wake a thread that began waiting after it,
//! in which case an earlier waiter sleeps on, as with Rust's futex condition variable.

use crate::config::{self, Mode};
use crate::{mutex, real};
use core::ffi::c_int;
use core::sync::atomic::{AtomicU32, Ordering};
use libc::{clockid_t, pthread_cond_t, pthread_condattr_t, pthread_mutex_t, timespec};

const SEQ: usize = 0;
const WAITERS: usize = 4;
const FLAGS: usize = 36;
const FLAG_PSHARED: u32 = 1;
const FLAG_MONOTONIC: u32 = 2;

const FUTEX_WAIT_BITSET: c_int = 9;
const FUTEX_CLOCK_REALTIME: c_int = 256;

/// # Safety
///
/// `c` points to a live condition variable; `off` is one of the word offsets above.
#[inline]
unsafe fn word<'a>(c: *mut pthread_cond_t, off: usize) -> &'a AtomicU32 {
    // SAFETY: the offsets name 4-byte-aligned words inside the 48-byte object, accessed only
    // atomically while it is ours.
    unsafe { AtomicU32::from_ptr(c.cast::<u8>().add(off).cast::<u32>()) }
}

/// Whether glibc serves `c`.
///
/// # Safety
///
/// `c` points to a live condition variable.
#[inline]
unsafe fn glibc_serves(c: *mut pthread_cond_t) -> bool {
    // Relaxed: the process-shared bit is fixed at initialisation.
    // SAFETY: forwarded from the caller.
    config::mode() == Mode::Glibc
        || unsafe { word(c, FLAGS) }.load(Ordering::Relaxed) & FLAG_PSHARED != 0
}

unsafe extern "C" {
    fn pthread_condattr_getclock(a: *const pthread_condattr_t, c: *mut clockid_t) -> c_int;
    fn pthread_condattr_getpshared(a: *const pthread_condattr_t, p: *mut c_int) -> c_int;
}

/// `pthread_cond_init`.
///
/// # Safety
///
/// `c` points to writable storage for a condition variable; `attr` is null or initialised.
pub(crate) unsafe fn init(c: *mut pthread_cond_t, attr: *const pthread_condattr_t) -> c_int {
    let (mut clock, mut pshared) = (libc::CLOCK_REALTIME, libc::PTHREAD_PROCESS_PRIVATE);
    if !attr.is_null() {
        // SAFETY: `attr` is an initialised attribute; the out-pointers are valid.
        unsafe {
            pthread_condattr_getclock(attr, &mut clock);
            pthread_condattr_getpshared(attr, &mut pshared);
        }
    }
    if config::mode() == Mode::Glibc || pshared != libc::PTHREAD_PROCESS_PRIVATE {
        // SAFETY: glibc's function under C's contract.
        return unsafe { real::pthread_cond_init(c, attr) };
    }
    // SAFETY: `c` is writable storage for one condition variable; all-zero is the initial state.
    unsafe { core::ptr::write_bytes(c, 0, 1) };
    if clock == libc::CLOCK_MONOTONIC {
        // Relaxed: publication of the initialised object to other threads is the program's job.
        // SAFETY: `c` was just initialised.
        unsafe { word(c, FLAGS) }.store(FLAG_MONOTONIC, Ordering::Relaxed);
    }
    0
}

/// `pthread_cond_destroy`.
///
/// # Safety
///
/// `c` points to a live condition variable.
pub(crate) unsafe fn destroy(c: *mut pthread_cond_t) -> c_int {
    // SAFETY: forwarded from the caller.
    if unsafe { glibc_serves(c) } {
        // SAFETY: glibc's function under C's contract.
        return unsafe { real::pthread_cond_destroy(c) };
    }
    0
}

/// `pthread_cond_signal` (`all == false`) and `pthread_cond_broadcast`.
///
/// # Safety
///
/// `c` points to a live condition variable.
pub(crate) unsafe fn wake(c: *mut pthread_cond_t, all: bool) -> c_int {
    // SAFETY: forwarded from the caller.
    if unsafe { glibc_serves(c) } {
        // SAFETY: glibc's functions under C's contract.
        return unsafe {
            if all {
                real::pthread_cond_broadcast(c)
            } else {
                real::pthread_cond_signal(c)
            }
        };
    }
    // SAFETY: forwarded from the caller.
    let (seq, waiters) = unsafe { (word(c, SEQ), word(c, WAITERS)) };
    // SeqCst on both sides: a waiter counts itself (SeqCst) before reading the sequence
    // (SeqCst); the signaller advances the sequence before reading the count. Either the
    // waiter sees the new sequence and does not sleep, or the signaller sees the waiter.
    seq.fetch_add(1, Ordering::SeqCst);
    if waiters.load(Ordering::SeqCst) != 0 {
        welltempered_lock::futex::wake(seq, if all { u32::MAX } else { 1 });
    }
    0
}

/// `pthread_cond_wait`, `timedwait` and `clockwait`: `abs` null means no timeout.
///
/// # Safety
///
/// `c` and `m` are live; the caller holds `m`; `abs` is null or points to a timespec.
pub(crate) unsafe fn wait(
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    clock: Option<clockid_t>,
    abs: *const timespec,
    timed: bool,
) -> c_int {
    // SAFETY: forwarded from the caller.
    if unsafe { glibc_serves(c) } {
        // SAFETY: glibc's functions under C's contract.
        return unsafe {
            match (timed, clock) {
                (false, _) => real::pthread_cond_wait(c, m),
                (true, None) => real::pthread_cond_timedwait(c, m, abs),
                (true, Some(k)) => real::pthread_cond_clockwait(c, m, k, abs),
            }
        };
    }
    // SAFETY: forwarded from the caller.
    let (seq, waiters, flags) = unsafe { (word(c, SEQ), word(c, WAITERS), word(c, FLAGS)) };
    let clock = match clock {
        Some(k) => k,
        // Relaxed: the clock bit is fixed at initialisation.
        None if flags.load(Ordering::Relaxed) & FLAG_MONOTONIC != 0 => libc::CLOCK_MONOTONIC,
        None => libc::CLOCK_REALTIME,
    };
    if timed {
        if clock != libc::CLOCK_REALTIME && clock != libc::CLOCK_MONOTONIC {
            return libc::EINVAL;
        }
        if !mutex::valid_timespec(abs) {
            return libc::EINVAL;
        }
    }
    waiters.fetch_add(1, Ordering::SeqCst);
    let observed = seq.load(Ordering::SeqCst);
    // SAFETY: the caller holds `m`.
    let r = unsafe { mutex::unlock(m) };
    if r != 0 {
        waiters.fetch_sub(1, Ordering::SeqCst);
        return r;
    }
    let mut timed_out = false;
    // One sleep: a return for any reason (a signal, a broadcast, a stray wake-up, EINTR) ends
    // the wait; the caller re-checks its predicate, as POSIX requires it to.
    if seq.load(Ordering::SeqCst) == observed {
        let op = libc::FUTEX_PRIVATE_FLAG
            | if timed {
                FUTEX_WAIT_BITSET
                    | if clock == libc::CLOCK_REALTIME {
                        FUTEX_CLOCK_REALTIME
                    } else {
                        0
                    }
            } else {
                libc::FUTEX_WAIT
            };
        // SAFETY: `seq` is a live aligned word; `abs` is a validated absolute timespec when
        // `timed` (FUTEX_WAIT_BITSET takes an absolute time on the chosen clock), else unused.
        let rc = unsafe {
            libc::syscall(
                libc::SYS_futex,
                seq.as_ptr(),
                op,
                observed,
                if timed { abs } else { core::ptr::null() },
                core::ptr::null::<u32>(),
                u32::MAX,
            )
        };
        timed_out =
            rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ETIMEDOUT);
    }
    waiters.fetch_sub(1, Ordering::SeqCst);
    // SAFETY: `m` is live; the caller expects to hold it again on return, whatever the outcome.
    unsafe { mutex::lock(m) };
    // A timeout that raced with a signal reports the signal: the caller's predicate may be true.
    if timed_out && seq.load(Ordering::SeqCst) == observed {
        libc::ETIMEDOUT
    } else {
        0
    }
}
