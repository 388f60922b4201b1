//! Waiting on a 32-bit word: the Linux `futex(2)` system call.
//!
//! [`wait`] sleeps while the word still holds the value the caller last saw; [`wake`] wakes
//! sleepers on the word. Both use `FUTEX_PRIVATE_FLAG`: the words live in one process
//! (process-shared locks are not ours to implement). Wake-ups may be spurious, so every caller
//! re-checks its condition in a loop.
//!
//! On other systems the `atomic-wait` crate (<https://crates.io/crates/atomic-wait>) provides the
//! same wait queue on an address: `WaitOnAddress` on Windows, libc++'s atomic wait on macOS,
//! `_umtx_op` on FreeBSD. It has no timeout, so a timed wait there sleeps in steps of at most
//! [`TIMED_STEP`] and returns (a legal spurious wake-up) after each: timed waiters re-check at
//! that granularity rather than being woken. Under loom (which cannot model a kernel wait
//! queue) `wait` yields once and returns, a legal spurious wake-up, so callers stay correct and
//! the models explore the waiting loops.

use crate::sync::AtomicU32;
#[cfg(not(all(target_os = "linux", not(loom))))]
use crate::sync::Ordering;
use std::time::Duration;

/// What a [`wait`] ended with.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum WaitResult {
    /// Woken, interrupted, or the word no longer held `expected`: re-check the condition.
    Woken,
    /// The timeout passed first.
    TimedOut,
}

/// Off Linux, the longest a timed [`wait`] sleeps before it returns to let its caller re-check.
pub const TIMED_STEP: Duration = Duration::from_millis(1);

/// Sleeps while `word` holds `expected`, for at most `timeout` (forever when `None`).
///
/// Returns at once if the word already differs. May return spuriously.
#[inline]
pub fn wait(word: &AtomicU32, expected: u32, timeout: Option<Duration>) -> WaitResult {
    #[cfg(all(target_os = "linux", not(loom)))]
    {
        let ts = timeout.map(|d| libc::timespec {
            // A timeout beyond time_t's range is as good as forever.
            tv_sec: libc::time_t::try_from(d.as_secs()).unwrap_or(libc::time_t::MAX),
            tv_nsec: d.subsec_nanos() as libc::c_long,
        });
        sys_wait(word, libc::FUTEX_WAIT, expected, ts.as_ref(), u32::MAX)
    }
    #[cfg(all(not(target_os = "linux"), not(loom)))]
    {
        match timeout {
            None => {
                atomic_wait::wait(word, expected);
                WaitResult::Woken
            }
            Some(d) => {
                if word.load(Ordering::Relaxed) != expected {
                    return WaitResult::Woken;
                }
                std::thread::sleep(d.min(TIMED_STEP));
                if d <= TIMED_STEP {
                    WaitResult::TimedOut
                } else {
                    WaitResult::Woken
                }
            }
        }
    }
    #[cfg(loom)]
    {
        let _ = timeout;
        if word.load(Ordering::Acquire) == expected {
            crate::sync::yield_now();
        }
        WaitResult::Woken
    }
}

/// The futex wait `op` (`FUTEX_WAIT`, with a relative timeout, or `FUTEX_WAIT_BITSET`, with
/// an absolute one, as a sleeper of `bitset`) on `word`.
#[cfg(all(target_os = "linux", not(loom)))]
fn sys_wait(
    word: &AtomicU32,
    op: libc::c_int,
    expected: u32,
    ts: Option<&libc::timespec>,
    bitset: u32,
) -> WaitResult {
    let ts_ptr = ts.map_or(core::ptr::null(), |t| t as *const libc::timespec);
    // SAFETY: `word` is a live, aligned 32-bit atomic for the duration of the call; the kernel
    // only reads it. `ts_ptr` is null or points to the caller's timespec, which outlives the
    // call. FUTEX_WAIT ignores the last two arguments.
    let r = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            op | libc::FUTEX_PRIVATE_FLAG,
            expected,
            ts_ptr,
            core::ptr::null::<u32>(),
            bitset,
        )
    };
    if r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ETIMEDOUT) {
        return WaitResult::TimedOut;
    }
    WaitResult::Woken
}

/// Wakes at most `n` threads sleeping in [`wait`] on `word`; returns how many were woken (0
/// off Linux, where the count is not reported).
#[inline]
pub fn wake(word: &AtomicU32, n: u32) -> usize {
    #[cfg(all(target_os = "linux", not(loom)))]
    {
        let n = i32::try_from(n).unwrap_or(i32::MAX);
        // SAFETY: `word` is a live, aligned 32-bit atomic; FUTEX_WAKE does not access memory
        // through the pointer, it only names the wait queue.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word.as_ptr(),
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                n,
            )
        };
        usize::try_from(r).unwrap_or(0)
    }
    #[cfg(all(not(target_os = "linux"), not(loom)))]
    {
        wake_address(word.as_ptr(), n)
    }
    #[cfg(loom)]
    {
        let _ = (word, n);
        0
    }
}

/// Wakes at most `n` threads sleeping in [`wait`] on the word at `word`, which may already be
/// freed: for the release-then-wake of a lock, whose next owner may free the lock as soon as
/// the releasing read-modify-write is done (glibc bug 13690 is that race). The address only
/// names the kernel's wait queue; nothing is read or written through it, and a wake-up that
/// reaches whatever lives there now is a spurious one, which every futex waiter tolerates.
/// Take the pointer (`AtomicU32::as_ptr`) *before* the releasing operation.
#[inline]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "the address only names the kernel's wait queue: nothing is dereferenced"
)]
pub fn wake_address(word: *const u32, n: u32) -> usize {
    #[cfg(all(target_os = "linux", not(loom)))]
    {
        let n = i32::try_from(n).unwrap_or(i32::MAX);
        // SAFETY: FUTEX_WAKE does not access memory through the pointer: it only names the
        // wait queue, so a dangling address is harmless.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word,
                libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
                n,
            )
        };
        usize::try_from(r).unwrap_or(0)
    }
    #[cfg(all(not(target_os = "linux"), not(loom)))]
    {
        // `atomic-wait` accepts a dangling address, as the kernel's futex does, and reports
        // no count: 0, which callers treat as "unknown".
        let word = word.cast::<AtomicU32>();
        match n {
            0 => {}
            1 => atomic_wait::wake_one(word),
            _ => atomic_wait::wake_all(word),
        }
        0
    }
    #[cfg(loom)]
    {
        let _ = (word, n);
        0
    }
}

/// Wakes every thread sleeping on `word`.
#[inline]
pub fn wake_all(word: &AtomicU32) -> usize {
    wake(word, u32::MAX)
}

/// Whether [`wait_bitset`], [`wake_bitset_address`] and [`requeue`] act on their bitsets and
/// move sleepers: Linux's futex (not under loom, which has no kernel wait queue, nor Miri,
/// which does not model `FUTEX_CMP_REQUEUE`). Elsewhere the bitsets are ignored (every waiter
/// matches every wake) and [`requeue`] declines, so callers wake instead.
pub const BITSETS: bool = cfg!(all(target_os = "linux", not(loom), not(miri)));

/// [`wait`], as a sleeper of class `bitset` (non-zero): only a [`wake_bitset_address`] whose
/// bitset shares a bit with it wakes it (a plain [`wake`] wakes every class). A sleeper moved by
/// [`requeue`] keeps its class on the new word. Where [`BITSETS`] is false, this is [`wait`].
#[inline]
pub fn wait_bitset(
    word: &AtomicU32,
    expected: u32,
    timeout: Option<Duration>,
    bitset: u32,
) -> WaitResult {
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    {
        // FUTEX_WAIT_BITSET takes an absolute CLOCK_MONOTONIC deadline.
        let ts = timeout.map(|d| {
            let mut now = libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: `now` is a valid timespec to write.
            unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
            let nanos = u64::try_from(now.tv_nsec).unwrap_or(0) + u64::from(d.subsec_nanos());
            let secs = u64::try_from(now.tv_sec)
                .unwrap_or(0)
                .saturating_add(d.as_secs())
                .saturating_add(nanos / 1_000_000_000);
            libc::timespec {
                // A deadline beyond time_t's range is as good as forever.
                tv_sec: libc::time_t::try_from(secs).unwrap_or(libc::time_t::MAX),
                tv_nsec: (nanos % 1_000_000_000) as libc::c_long,
            }
        });
        sys_wait(word, libc::FUTEX_WAIT_BITSET, expected, ts.as_ref(), bitset)
    }
    #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
    {
        let _ = bitset;
        wait(word, expected, timeout)
    }
}

/// [`wake_address`] for the sleepers of the classes in `bitset` only (see [`wait_bitset`]).
/// Where [`BITSETS`] is false, this is [`wake_address`].
#[inline]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "the address only names the kernel's wait queue: nothing is dereferenced"
)]
pub fn wake_bitset_address(word: *const u32, n: u32, bitset: u32) -> usize {
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    {
        let n = i32::try_from(n).unwrap_or(i32::MAX);
        // SAFETY: FUTEX_WAKE_BITSET does not access memory through the pointer: it only names
        // the wait queue, so a dangling address is harmless.
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                word,
                libc::FUTEX_WAKE_BITSET | libc::FUTEX_PRIVATE_FLAG,
                n,
                core::ptr::null::<libc::timespec>(),
                core::ptr::null::<u32>(),
                bitset,
            )
        };
        usize::try_from(r).unwrap_or(0)
    }
    #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
    {
        let _ = bitset;
        wake_address(word, n)
    }
}

/// If `from` still holds `expected`: wakes at most `wake` sleepers on `from` and moves every
/// other one to the queue of the word at `to` (`FUTEX_CMP_REQUEUE`), where it sleeps, with its class,
/// until a wake on `to` reaches it. Returns `Some(woken + moved)`, `Some(0)` when `from` no
/// longer held `expected` (nothing done: whoever changed it handles the sleepers), or `None`
/// where [`BITSETS`] is false or the call failed otherwise (nothing done: the caller wakes
/// instead).
#[inline]
#[allow(
    clippy::not_unsafe_ptr_arg_deref,
    reason = "`to` only names the kernel's wait queue: nothing is dereferenced"
)]
pub fn requeue(from: &AtomicU32, expected: u32, wake: u32, to: *const u32) -> Option<usize> {
    #[cfg(all(target_os = "linux", not(loom), not(miri)))]
    {
        // SAFETY: `from` is a live, aligned 32-bit atomic the kernel reads; `to` only names a
        // wait queue (the caller vouches that its sleepers belong there).
        let r = unsafe {
            libc::syscall(
                libc::SYS_futex,
                from.as_ptr(),
                libc::FUTEX_CMP_REQUEUE | libc::FUTEX_PRIVATE_FLAG,
                i32::try_from(wake).unwrap_or(i32::MAX),
                i32::MAX as libc::c_long,
                to,
                expected,
            )
        };
        if r >= 0 {
            return Some(usize::try_from(r).unwrap_or(0));
        }
        // EAGAIN: the word changed, so a later notifier handles the sleepers. Anything else:
        // declined, the caller wakes.
        (std::io::Error::last_os_error().raw_os_error() == Some(libc::EAGAIN)).then_some(0)
    }
    #[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
    {
        let _ = (from, expected, wake, to);
        None
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::Ordering;
    use std::sync::Arc;

    #[test]
    fn wait_returns_when_word_differs() {
        let w = AtomicU32::new(1);
        assert_eq!(wait(&w, 0, None), WaitResult::Woken);
    }

    #[test]
    fn wait_times_out() {
        let w = AtomicU32::new(0);
        loop {
            // A spurious return is allowed; a timed-out one must eventually come.
            if wait(&w, 0, Some(Duration::from_millis(1))) == WaitResult::TimedOut {
                break;
            }
        }
    }

    #[test]
    fn wake_releases_a_sleeper() {
        let w = Arc::new(AtomicU32::new(0));
        let w2 = Arc::clone(&w);
        let t = std::thread::spawn(move || {
            while w2.load(Ordering::Acquire) == 0 {
                wait(&w2, 0, None);
            }
        });
        w.store(1, Ordering::Release);
        wake_all(&w);
        t.join().unwrap();
    }
}
