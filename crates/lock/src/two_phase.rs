//! Two-phase waiting: a test-and-set lock whose waiters spin with backoff for a bounded time,
//! then sleep on a futex.
//!
//! Sources: J. K. Ousterhout, "Scheduling Techniques for Concurrent Systems" (ICDCS 1982), which
//! named *two-phase waiting* (spin for a while, then block); A. R. Karlin, K. Li, M. S. Manasse
//! and S. Owicki, "Empirical Studies of Competitive Spinning for a Shared-Memory Multiprocessor"
//! (SOSP 1991), which showed that spinning for about the cost of a block-and-wake before
//! blocking costs at most twice the optimum; T. E. Anderson, "The Performance of Spin Lock
//! Alternatives for Shared-Memory Multiprocessors" (IEEE TPDS 1(1), 1990) for the exponential
//! backoff between attempts; and U. Drepper, "Futexes Are Tricky" (2011), "mutex3", for the
//! sleeping phase. GCC's libgomp builds `omp_lock_t` and `critical` the same way
//! (`gomp_mutex_lock_slow` in `libgomp/config/linux/mutex.c`: spin, then `FUTEX_WAIT`), with a
//! budget of 300,000 spins that `OMP_WAIT_POLICY` sets.
//!
//! The word is 0 (unlocked), 1 (locked) or 2 (locked, maybe sleepers).
//! - lock: one CAS 0→1.
//! - A waiter whose CAS failed spins: `PAUSE` hints doubling from 1 to 64 between attempts,
//!   each attempt a CAS 0→1 (a test-and-set, not a read first). The holder of a short critical
//!   section that releases and takes the lock again in a loop then keeps the lock's line in its
//!   cache most of the time, and the waiter takes it when it finds it free; a FIFO hand-over
//!   would move the line, and wake a parked waiter, at every acquisition. (Reading first, as a
//!   test-and-test-and-set lock does, measured slower here: EPCC's `CRITICAL` at 2 threads on
//!   a 2-CPU VM, 0.03-0.05 µs per section against 0.016-0.021 for the CAS.)
//! - Once the *window* has passed (measured with [`Instant`], read every few attempts), the
//!   waiter sleeps as Drepper's mutex does: it swaps 2 in and sleeps while the swap does not
//!   return 0.
//! - unlock: `swap(0)`, and a `FUTEX_WAKE` of one sleeper only when the word was 2. The wake
//!   uses only the word's address: once the swap is done another thread may take, release and
//!   free the lock.
//!
//! The window is per lock (see [`TwoPhase::with_window`]): [`TWO_PHASE_WINDOW`] by default, the
//! cost of a futex sleep and wake-up on the machines this crate is measured on, so short waits
//! never sleep and long ones waste at most about as much again; [`Duration::MAX`] never sleeps
//! (`OMP_WAIT_POLICY=active`), and [`Duration::ZERO`] sleeps after one failed attempt
//! (`OMP_WAIT_POLICY=passive`). A waiter that spins longer than 64 backoff rounds also yields
//! its time slice once per 64 rounds, so that an endless window does not starve a descheduled
//! holder when threads outnumber CPUs.
//!
//! Guarantees: mutual exclusion; not FIFO (a waiter may be overtaken without bound, and a woken
//! sleeper competes with spinners); waiters sleep once their window has passed, so threads
//! beyond the CPUs do not collapse it (unless the window is endless). Bytes per lock: 8 (the
//! word and the window; all-zero is an unlocked lock with the default window, so a zero-filled
//! `pthread_mutex_t` can hold one).
//! Bytes per thread: 0. Unlocking needs no thread-local state: guards are
//! [`lock_api::GuardSend`]. Timed acquisition ([`lock_api::RawMutexTimed`]) spins within both
//! the window and the deadline, then sleeps with a futex timeout.

use crate::futex_mutex::{UNLOCKED, sleep_phase};
use crate::sync::{AtomicU32, spin_loop, yield_now};
use std::time::{Duration, Instant};

/// The default spin window of a [`TwoPhase`] lock: 150 µs, about a futex sleep and wake-up on a
/// virtual machine, and the default spin window of `welltempered-par`'s teams.
pub const TWO_PHASE_WINDOW: Duration = Duration::from_micros(150);

/// Largest backoff, in spin hints, between two attempts of a spinning waiter.
const MAX_BACKOFF: u32 = if cfg!(loom) { 1 } else { 64 };

/// The window in the lock body: 0 for [`TWO_PHASE_WINDOW`] (so an all-zero lock is an unlocked
/// lock with the default window), `NEVER` for "never sleep", otherwise microseconds plus one.
const NEVER: u32 = u32::MAX;

/// Encodes a window for the lock body (microseconds, rounded up; `NEVER` from about 71 minutes).
const fn encode(window: Duration) -> u32 {
    let micros = window.as_micros() + !window.subsec_nanos().is_multiple_of(1_000) as u128;
    if micros >= (NEVER - 1) as u128 {
        NEVER
    } else {
        micros as u32 + 1
    }
}

/// Decodes the lock body's window (`None`: never sleep).
const fn decode(stored: u32) -> Option<Duration> {
    match stored {
        0 => Some(TWO_PHASE_WINDOW),
        NEVER => None,
        s => Some(Duration::from_micros(s as u64 - 1)),
    }
}

/// A test-and-set lock with two-phase waiting: spin with backoff for a window, then sleep.
#[derive(Debug)]
pub struct TwoPhase {
    /// 0 unlocked, 1 locked, 2 locked and possibly with sleepers.
    state: AtomicU32,
    /// The spin window, encoded (see [`encode`]). Written only at construction.
    window: u32,
}

impl Default for TwoPhase {
    fn default() -> Self {
        Self::new()
    }
}

impl TwoPhase {
    /// An unlocked lock with the default window, [`TWO_PHASE_WINDOW`].
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            window: 0,
        }
    }

    /// An unlocked lock whose waiters spin for `window` before they sleep. `Duration::MAX` (or
    /// anything from about 71 minutes) never sleeps; `Duration::ZERO` sleeps after one failed
    /// attempt. The window is kept in whole microseconds, rounded up.
    #[cfg(not(loom))]
    pub const fn with_window(window: Duration) -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            window: encode(window),
        }
    }

    /// An unlocked lock with the default window.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            window: 0,
        }
    }

    /// An unlocked lock whose waiters spin for `window` before they sleep.
    #[cfg(loom)]
    pub fn with_window(window: Duration) -> Self {
        Self {
            state: AtomicU32::new(UNLOCKED),
            window: encode(window),
        }
    }

    /// How long a waiter spins before it sleeps (`None`: it never sleeps).
    pub fn window(&self) -> Option<Duration> {
        decode(self.window)
    }

    /// Acquires the lock, spinning for the window and then sleeping.
    #[inline]
    pub fn lock(&self) {
        if !self.try_lock() {
            self.lock_contended(None);
        }
    }

    /// The first phase: spins with backoff until the lock is taken (`true`), or the window or
    /// `deadline` has passed (`false`).
    fn spin(&self, deadline: Option<Instant>) -> bool {
        let window = self.window();
        if window == Some(Duration::ZERO) {
            return false;
        }
        let start = Instant::now();
        let mut backoff = 1;
        let mut round: u32 = 0;
        loop {
            for _ in 0..backoff {
                spin_loop();
            }
            if self.try_lock() {
                return true;
            }
            round = round.wrapping_add(1);
            if backoff < MAX_BACKOFF {
                backoff *= 2;
            } else if round.is_multiple_of(64) {
                // A long (or endless) window: let a descheduled holder have the CPU.
                yield_now();
            }
            if cfg!(loom) && round >= 2 {
                return false;
            }
            if round.is_multiple_of(4) {
                let now = Instant::now();
                if window.is_some_and(|w| now.duration_since(start) >= w)
                    || deadline.is_some_and(|d| now >= d)
                {
                    return false;
                }
            }
        }
    }

    /// The slow path: spin for the window, then Drepper's sleep loop. Returns `false` only when
    /// `deadline` passed without the lock being acquired.
    #[cold]
    fn lock_contended(&self, deadline: Option<Instant>) -> bool {
        if self.spin(deadline) {
            return true;
        }
        sleep_phase(&self.state, deadline)
    }
}

crate::futex_mutex::impl_word_lock!(TwoPhase);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn windows_round_up_and_saturate() {
        assert_eq!(TwoPhase::new().window(), Some(TWO_PHASE_WINDOW));
        assert_eq!(
            TwoPhase::with_window(Duration::from_nanos(1_001)).window(),
            Some(Duration::from_micros(2))
        );
        assert_eq!(
            TwoPhase::with_window(Duration::ZERO).window(),
            Some(Duration::ZERO)
        );
        assert_eq!(TwoPhase::with_window(Duration::MAX).window(), None);
        assert_eq!(
            TwoPhase::with_window(Duration::from_secs(5_000)).window(),
            None
        );
        assert_eq!(core::mem::size_of::<TwoPhase>(), 8);
    }

    #[test]
    fn try_lock_and_unlock() {
        let l = TwoPhase::new();
        assert!(l.try_lock());
        assert!(l.is_locked());
        assert!(!l.try_lock());
        // SAFETY: held just above.
        unsafe { l.unlock() };
        assert!(!l.is_locked());
    }

    #[test]
    fn timed_lock_gives_up_only_after_the_deadline() {
        for window in [Duration::ZERO, Duration::from_micros(50), Duration::MAX] {
            let l = TwoPhase::with_window(window);
            l.lock();
            let t = Instant::now();
            assert!(!l.try_lock_for(Duration::from_millis(5)));
            assert!(t.elapsed() >= Duration::from_millis(5));
            // SAFETY: held above.
            unsafe { l.unlock() };
            assert!(l.try_lock_for(Duration::from_millis(5)));
            // SAFETY: held above.
            unsafe { l.unlock() };
        }
    }

    /// Every window, with more threads than this machine has CPUs: no increment is lost, and
    /// a sleeping waiter is woken (the test would hang otherwise).
    #[test]
    fn excludes_with_every_window() {
        for window in [Duration::ZERO, Duration::from_micros(20), Duration::MAX] {
            let lock = Arc::new(lock_api::Mutex::<TwoPhase, u64>::from_raw(
                TwoPhase::with_window(window),
                0,
            ));
            let per = if cfg!(miri) { 100 } else { 20_000 };
            let threads: Vec<_> = (0..4)
                .map(|_| {
                    let lock = Arc::clone(&lock);
                    std::thread::spawn(move || {
                        for i in 0..per {
                            let mut g = lock.lock();
                            *g += 1;
                            if i % 50 == 0 {
                                // Long enough that waiters pass a short window and sleep.
                                std::thread::sleep(Duration::from_micros(100));
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
            assert_eq!(*lock.lock(), 4 * per);
        }
    }
}
