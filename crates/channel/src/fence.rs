//! Asymmetric fences: a cheap fence for the frequent side of a Dekker pair and an expensive one
//! for the rare side.
//!
//! **Algorithm.** Linux `membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED)` (the scheme of liburcu
//! and folly's `asymmetricHeavyBarrier`): the heavy side makes every running thread of the
//! process execute a full memory barrier, so the light side needs only a compiler fence. Here
//! the light side is every send's check for a sleeping receiver and the heavy side is a
//! receiver about to sleep, which has already spun. Where `membarrier` is unavailable (other
//! systems, seccomp, loom, Miri) both sides use a `SeqCst` fence.
//!
//! **Registration, lazily and off the program's threads.** Registering takes a few
//! microseconds in a single-threaded process but waits for an RCU grace period in a
//! multithreaded one: milliseconds on a quiet machine, more on a loaded one. So a channel does
//! not register when it is made, and no thread of the program waits for the registration: the
//! first heavy fence (a receiver's first sleep), or the 256th light fence of a thread that had
//! to be a full fence (a long stream that nobody sleeps on), starts a short-lived helper thread
//! that registers and then publishes the result. Until then light fences are full fences and
//! heavy fences are `SeqCst` fences, which order each other.
//!
//! A light fence reads the state with acquire and a heavy fence reads it with an acquire-release
//! read-modify-write, and the helper publishes "available" with one too. So if a heavy fence
//! still reads "registering" while a light fence reads "available" (and skips the hardware
//! fence), the heavy fence's RMW precedes the helper's in the state's modification order, and
//! everything before the heavy fence happens before the light fence's next access (release
//! sequence to the helper, then the helper's release to the light fence's acquire): the pair
//! stays ordered without the barrier. Otherwise the heavy fence reads "available" and issues
//! `membarrier`, or both sides fence fully.
//!
//! **Failure.** Registration is per process image: a `fork` child inherits our "available"
//! state but not the kernel's registration, and a seccomp filter installed later can refuse the
//! call. So a `fork` child starts over (an `atfork` handler resets the state: the next sleeper
//! registers again; meanwhile both sides use `SeqCst` fences), and a heavy fence whose
//! `membarrier` fails switches the process to `SeqCst` fences for good and reports that it
//! was not ordered against light fences already under way: the caller (an eventcount
//! waiter) then sleeps only briefly before it re-checks, instead of risking a lost wake-up.
//!
//! **Guarantees.** For a light fence L and a heavy fence H that reports itself ordered, the
//! accesses before one are visible to the accesses after the other, as with two `SeqCst`
//! fences. One process-wide byte of state.

use crate::sync::{Ordering, fence};

#[cfg(all(target_os = "linux", not(loom), not(miri)))]
mod imp {
    use core::sync::atomic::{AtomicU8, Ordering};

    const CMD_QUERY: libc::c_int = 0;
    const CMD_PRIVATE_EXPEDITED: libc::c_int = 1 << 3;
    const CMD_REGISTER_PRIVATE_EXPEDITED: libc::c_int = 1 << 4;

    const UNKNOWN: u8 = 0;
    const AVAILABLE: u8 = 1;
    const UNAVAILABLE: u8 = 2;
    /// The helper thread is registering.
    const REGISTERING: u8 = 3;

    /// Whether the heavy side uses `membarrier` (and so the light side may skip its fence).
    static STATE: AtomicU8 = AtomicU8::new(UNKNOWN);

    fn membarrier(cmd: libc::c_int) -> libc::c_long {
        // SAFETY: `membarrier` takes two integers and touches no memory of ours.
        unsafe {
            libc::syscall(
                libc::SYS_membarrier,
                cmd,
                0 as libc::c_uint,
                0 as libc::c_int,
            )
        }
    }

    /// A `fork` child is not registered (the kernel's registration belongs to the parent's
    /// memory map): start over there. Only the forking thread runs in the child, so no light
    /// fence is under way.
    extern "C" fn forget_in_child() {
        STATE.store(UNKNOWN, Ordering::SeqCst);
    }

    /// Starts the registration for expedited private barriers, once (again in a `fork`
    /// child), on a helper thread: the caller does not wait for it. Light fences skip the
    /// hardware fence only once the helper has published `AVAILABLE`.
    pub(super) fn init() {
        if STATE.load(Ordering::Relaxed) != UNKNOWN
            // Acquire: nothing to order here; the winner alone starts the helper.
            || STATE
                .compare_exchange(UNKNOWN, REGISTERING, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        static AT_FORK: std::sync::Once = std::sync::Once::new();
        AT_FORK.call_once(|| {
            // SAFETY: registers a handler that only stores to an atomic; it stays valid for
            // the life of the process (a function of this library, never unloaded while in
            // use). A failure (ENOMEM) leaves fork children to the fallback below.
            unsafe { libc::pthread_atfork(None, None, Some(forget_in_child)) };
        });
        let helper = std::thread::Builder::new()
            .name("wt-membarrier".into())
            .stack_size(64 * 1024)
            .spawn(register);
        if helper.is_err() {
            // No thread to spare: full fences for good, which are always correct.
            publish(false);
        }
    }

    /// Registers this process and publishes the outcome (the helper thread's body).
    fn register() {
        let q = membarrier(CMD_QUERY);
        let ok = q >= 0
            && q & (CMD_PRIVATE_EXPEDITED as libc::c_long) != 0
            && membarrier(CMD_REGISTER_PRIVATE_EXPEDITED) == 0;
        publish(ok);
    }

    /// Ends `REGISTERING`. An acquire-release read-modify-write: heavy fences that read
    /// `REGISTERING` with theirs head release sequences it continues, so they happen before
    /// every light fence that reads `AVAILABLE` (see the module documentation). It fails only
    /// in a `fork` child that reset the state meanwhile, which starts over.
    fn publish(ok: bool) {
        let _ = STATE.compare_exchange(
            REGISTERING,
            if ok { AVAILABLE } else { UNAVAILABLE },
            Ordering::AcqRel,
            Ordering::Relaxed,
        );
    }

    #[inline(always)]
    pub(super) fn available() -> bool {
        // Acquire: pairs with the helper's publication, which carries every heavy fence that
        // did not see it (see the module documentation). A stale value other than `AVAILABLE`
        // only makes the light side use a full fence.
        STATE.load(Ordering::Acquire) == AVAILABLE
    }

    /// Full light fences a thread issues before it registers the process itself.
    const FULL_FENCES_BEFORE_REGISTERING: u32 = 256;

    /// Counts a light fence that had to be a full fence (the process is not registered);
    /// the thread that issues [`FULL_FENCES_BEFORE_REGISTERING`] of them registers. So a
    /// short program (a few sends, nobody sleeping) never pays the registration, and a
    /// long one pays it once, spread over at least that many sends.
    #[cold]
    pub(super) fn note_full_fence() {
        std::thread_local! {
            static FULL: core::cell::Cell<u32> = const { core::cell::Cell::new(0) };
        }
        let due = FULL
            .try_with(|n| {
                let k = n.get() + 1;
                n.set(if k >= FULL_FENCES_BEFORE_REGISTERING {
                    0
                } else {
                    k
                });
                k >= FULL_FENCES_BEFORE_REGISTERING
            })
            .unwrap_or(false);
        if due {
            init();
        }
    }

    /// Returns `false` when light fences may have skipped the hardware fence and the
    /// barrier could not be issued: the state is `UNAVAILABLE` from then on.
    pub(super) fn heavy() -> bool {
        // AcqRel read-modify-write: reads the newest state, and if that is not `AVAILABLE`,
        // heads a release sequence the helper's publication continues (see the module
        // documentation): light fences that skip the hardware fence are then ordered after
        // this one without a barrier.
        if STATE.fetch_or(0, Ordering::AcqRel) != AVAILABLE
            || membarrier(CMD_PRIVATE_EXPEDITED) == 0
        {
            return true;
        }
        // SeqCst: every light fence that starts after this sees it and fences fully.
        STATE.store(UNAVAILABLE, Ordering::SeqCst);
        false
    }

    /// The state now, for tests.
    #[cfg(test)]
    pub(super) fn registered() -> bool {
        available()
    }

    /// Waits until no registration is under way, for tests.
    #[cfg(test)]
    pub(super) fn settled() {
        while STATE.load(Ordering::Acquire) == REGISTERING {
            std::thread::yield_now();
        }
    }

    /// Registers on the calling thread if nobody has started to, for a `fork` child of a
    /// multithreaded test, which must not start threads.
    #[cfg(test)]
    pub(super) fn register_here() {
        if STATE
            .compare_exchange(UNKNOWN, REGISTERING, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
        {
            register();
        }
    }
}

#[cfg(not(all(target_os = "linux", not(loom), not(miri))))]
mod imp {
    pub(super) fn init() {}
    #[inline(always)]
    pub(super) fn available() -> bool {
        false
    }
    #[inline(always)]
    pub(super) fn note_full_fence() {}
    pub(super) fn heavy() -> bool {
        true
    }
}

/// Starts the heavy side's registration with the kernel, once per process, without waiting
/// for it (see the module documentation). Called before a heavy fence.
pub(crate) fn init() {
    imp::init();
}

/// The light fence: a compiler fence when the heavy side uses `membarrier`, else `SeqCst`.
#[inline(always)]
pub(crate) fn light() {
    if imp::available() {
        core::sync::atomic::compiler_fence(Ordering::SeqCst);
    } else {
        fence(Ordering::SeqCst);
        imp::note_full_fence();
    }
}

/// The heavy fence: `membarrier` when available, else `SeqCst`. Returns whether it is ordered
/// against every light fence; `false` only the first time `membarrier` fails (see the module
/// documentation), when the caller must not rely on it to sleep without a timeout.
#[must_use]
pub(crate) fn heavy() -> bool {
    // A SeqCst fence as well, for this thread's own accesses on either path.
    fence(Ordering::SeqCst);
    imp::heavy()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

    /// The store-buffer litmus test: with a light fence on one side and a heavy one on the
    /// other, the two loads never both miss the other side's store.
    #[test]
    fn light_and_heavy_forbid_the_store_buffer_outcome() {
        init();
        let rounds = if cfg!(miri) { 20 } else { 2_000 };
        let x = AtomicUsize::new(0);
        let y = AtomicUsize::new(0);
        let go = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let r1 = AtomicUsize::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                for i in 1..=rounds {
                    while go.load(Ordering::Acquire) != i {
                        std::hint::spin_loop();
                    }
                    x.store(i, Relaxed);
                    light();
                    r1.store(y.load(Relaxed), Relaxed);
                    done.store(i, Ordering::Release);
                }
            });
            for i in 1..=rounds {
                go.store(i, Ordering::Release);
                y.store(i, Relaxed);
                assert!(heavy());
                let r2 = x.load(Relaxed);
                while done.load(Ordering::Acquire) != i {
                    std::hint::spin_loop();
                }
                let r1 = r1.load(Relaxed);
                assert!(r1 == i || r2 == i, "both loads missed in round {i}");
            }
        });
    }

    /// A `fork` child re-registers: its heavy fences are real barriers again (before the
    /// `atfork` reset, the child believed itself registered and every `membarrier` failed).
    #[cfg(all(target_os = "linux", not(miri)))]
    #[test]
    fn a_fork_child_registers_again() {
        init();
        imp::settled();
        let registered = imp::registered();
        // SAFETY: the child only calls async-signal-safe code (atomics, raw system calls)
        // before `_exit`.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            imp::register_here();
            let code = if imp::registered() == registered && imp::heavy() {
                0
            } else {
                1
            };
            // SAFETY: ends the child without running the parent's atexit handlers.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: `pid` is our child; `status` is a valid out-pointer.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFEXITED(status), "child status {status}");
        assert_eq!(
            libc::WEXITSTATUS(status),
            0,
            "the child's heavy fence failed"
        );
    }
}
