//! Waiting for a 32-bit word to change: spin, sleep on a futex, or spin for a window and then
//! sleep (the three wait policies of OpenMP's `OMP_WAIT_POLICY`, plus the window libgomp calls
//! `GOMP_SPINCOUNT`).
//!
//! Every place where a thread of the team waits (an idle worker between regions, the master
//! joining its workers, a barrier) is a [`WaitWord`]: the word itself and a count of the
//! threads asleep on it. A waiter that has spun long enough increments the count, re-reads the
//! word and sleeps on the futex while the word still holds what it read; a waker changes the
//! word and calls `futex_wake` only when the count is non-zero, so a team that never sleeps
//! never makes a system call. Both sides use `SeqCst` for the store/load pair (the count, then
//! the word; the word, then the count): in the single total order either the waiter sees the
//! new word or the waker sees the sleeper (the Dekker argument), and the futex itself re-checks
//! the word in the kernel, so no wake-up is lost.
//!
//! A word may be *poisoned* when a thread of the region panicked (see `team.rs`): bit 31 is then
//! set on the word (which changes it, so a sleeper's futex returns) and a region-wide flag is
//! raised; a waiter that sees either gives up with [`Poisoned`] instead of waiting for a thread
//! that will never arrive. Protocol values therefore stay below `1 << 31`.
//!
//! Guarantees: no lost wake-ups; a waiter returns only once its condition held (or on poison);
//! no system call on the waker's side unless a waiter sleeps.

use crate::sync::{AtomicBool, AtomicU32, Ordering, spin_loop, yield_now};
use std::time::Duration;
use welltempered_lock::futex;

/// The default spin window of [`WaitPolicy::SpinThenSleep`]: 150 µs.
///
/// A futex wake-up costs 40–100 µs on the virtual machines this runtime is measured on (the
/// sleeper's core must be found, woken and rescheduled). Spinning for about as long as a
/// sleep-and-wake would cost is the classic ski-rental choice: a wait that ends within the
/// window costs no more than spinning, and one that lasts longer costs at most twice the
/// optimum, while an idle team stops burning its cores 150 µs after its last region, where
/// libgomp's default spins 300,000 iterations (tens of milliseconds) first.
pub const DEFAULT_SPIN_WINDOW: Duration = Duration::from_micros(150);

/// How a thread of the team waits: in barriers, for the workers to finish, and idle between
/// regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WaitPolicy {
    /// Spin and never sleep in the kernel (`OMP_WAIT_POLICY=active`). The waiter still yields
    /// its time slice every few hundred spins so that an oversubscribed team progresses.
    Active,
    /// Sleep on a futex at once (`OMP_WAIT_POLICY=passive`).
    Passive,
    /// Spin for `window`, then sleep on a futex.
    SpinThenSleep {
        /// How long to spin before sleeping.
        window: Duration,
    },
}

impl WaitPolicy {
    /// How long a waiter spins before it sleeps: endless for [`WaitPolicy::Active`], zero for
    /// [`WaitPolicy::Passive`].
    pub fn spin_window(&self) -> Duration {
        match *self {
            WaitPolicy::Active => Duration::MAX,
            WaitPolicy::Passive => Duration::ZERO,
            WaitPolicy::SpinThenSleep { window } => window,
        }
    }
}

impl Default for WaitPolicy {
    /// Spin-then-sleep with [`DEFAULT_SPIN_WINDOW`].
    fn default() -> Self {
        WaitPolicy::SpinThenSleep {
            window: DEFAULT_SPIN_WINDOW,
        }
    }
}

/// The bit that marks a word as poisoned; protocol values stay below it.
pub(crate) const POISON: u32 = 1 << 31;

/// A wait gave up because the region was poisoned (a thread of the team panicked).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Poisoned;

/// How one wait is carried out: the policy, and the region's poison flag if the wait is one a
/// panicking thread could leave unfinished.
#[derive(Clone, Copy)]
pub(crate) struct Waiter<'a> {
    pub(crate) policy: WaitPolicy,
    pub(crate) poison: Option<&'a AtomicBool>,
}

impl<'a> Waiter<'a> {
    /// A waiter that never gives up.
    pub(crate) fn new(policy: WaitPolicy) -> Self {
        Waiter {
            policy,
            poison: None,
        }
    }

    /// Whether to give up: only a wait that can be poisoned looks at [`POISON`] (the epoch and
    /// join counters use all 32 bits).
    fn poisoned(&self, v: u32, order: Ordering) -> bool {
        self.poison
            .is_some_and(|p| v & POISON != 0 || p.load(order))
    }
}

/// A word threads wait on, with the count of those asleep on it.
#[derive(Debug, Default)]
pub(crate) struct WaitWord {
    word: AtomicU32,
    sleepers: AtomicU32,
}

/// Spins between two reads of the clock while spinning for a window.
const CLOCK_EVERY: u32 = 64;
/// Spins between two yields of a spinning waiter (about 1.5 µs of `pause` on the machines this
/// is measured on). A hand-off between threads on two cores completes well within it, so the
/// common case makes no system call; when the waiter shares a CPU with the thread it waits
/// for (oversubscription, or the scheduler placing both team threads on one CPU) every wait
/// lasts until the waiter yields, so the yield period is the cost of each hand-off: 256 spins
/// made an EPCC region at 2 threads cost 16 µs in that case and a barrier at 8 threads on 2
/// cores 33 µs; 64 brings them to 5 and 10 µs. 16 was tried and slowed the uncontended
/// 2-thread region (3 µs median: the yields themselves get in the way).
const YIELD_EVERY: u32 = 64;

impl WaitWord {
    pub(crate) fn new(v: u32) -> Self {
        WaitWord {
            word: AtomicU32::new(v),
            sleepers: AtomicU32::new(0),
        }
    }

    /// Stores `v` without waking anyone: only for resets while no thread waits.
    pub(crate) fn reset(&self, v: u32) {
        self.word.store(v, Ordering::SeqCst);
    }

    /// Wakes every sleeper if there is one. `SeqCst`: pairs with the sleeper's increment.
    #[inline]
    fn wake_if_sleepers(&self) {
        if self.sleepers.load(Ordering::SeqCst) != 0 {
            futex::wake_all(&self.word);
        }
    }

    /// Stores `v` (a release of everything before it) and wakes the sleepers.
    #[inline]
    pub(crate) fn store_wake(&self, v: u32) {
        self.word.store(v, Ordering::SeqCst);
        self.wake_if_sleepers();
    }

    /// Adds `d` (wrapping), wakes the sleepers, returns the previous value.
    #[inline]
    pub(crate) fn fetch_add_wake(&self, d: u32) -> u32 {
        let prev = self.word.fetch_add(d, Ordering::SeqCst);
        self.wake_if_sleepers();
        prev
    }

    /// Adds `d` (wrapping) and returns the previous value; wakes the sleepers only if `wake`
    /// says so for the new value (the last arrival of a counter).
    #[inline]
    pub(crate) fn fetch_add_wake_if(&self, d: u32, wake: impl FnOnce(u32) -> bool) -> u32 {
        let prev = self.word.fetch_add(d, Ordering::SeqCst);
        if wake(prev.wrapping_add(d)) {
            self.wake_if_sleepers();
        }
        prev
    }

    /// Poisons the word: sets [`POISON`] (changing the word, so that a futex sleeper's wait
    /// fails or is woken) and wakes every sleeper.
    pub(crate) fn poison(&self) {
        self.word.fetch_or(POISON, Ordering::SeqCst);
        futex::wake_all(&self.word);
    }

    /// Waits until `done(word)` holds and returns that value, or gives up with [`Poisoned`].
    /// The load that satisfies `done` is an acquire: everything its writer did before the
    /// store is visible afterwards.
    #[inline]
    pub(crate) fn wait_until(
        &self,
        w: Waiter<'_>,
        done: impl Fn(u32) -> bool,
    ) -> Result<u32, Poisoned> {
        let v = self.word.load(Ordering::Acquire);
        if done(v) {
            return Ok(v);
        }
        self.wait_slow(w, &done)
    }

    #[cold]
    fn wait_slow(&self, w: Waiter<'_>, done: &dyn Fn(u32) -> bool) -> Result<u32, Poisoned> {
        // Spin phase.
        let window = match w.policy {
            WaitPolicy::Passive => Some(Duration::ZERO),
            WaitPolicy::Active => None,
            WaitPolicy::SpinThenSleep { window } => Some(window),
        };
        if window != Some(Duration::ZERO) {
            #[cfg(not(loom))]
            let mut start: Option<std::time::Instant> = None;
            let mut i: u32 = 0;
            loop {
                let v = self.word.load(Ordering::Acquire);
                if done(v) {
                    return Ok(v);
                }
                // Relaxed: the flag only needs to be seen eventually; the word carries order.
                if w.poisoned(v, Ordering::Relaxed) {
                    return Err(Poisoned);
                }
                spin_loop();
                i = i.wrapping_add(1);
                if i.is_multiple_of(YIELD_EVERY) {
                    yield_now();
                }
                if let Some(window) = window {
                    // Under loom there is no clock: one spin stands for the window.
                    #[cfg(loom)]
                    {
                        let _ = window;
                        break;
                    }
                    #[cfg(not(loom))]
                    if i.is_multiple_of(CLOCK_EVERY) {
                        let now = std::time::Instant::now();
                        if now.duration_since(*start.get_or_insert(now)) >= window {
                            break;
                        }
                    }
                }
            }
        }
        // Sleep phase.
        loop {
            self.sleepers.fetch_add(1, Ordering::SeqCst);
            let v = self.word.load(Ordering::SeqCst);
            if done(v) {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                return Ok(v);
            }
            if w.poisoned(v, Ordering::SeqCst) {
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                return Err(Poisoned);
            }
            futex::wait(&self.word, v, None);
            self.sleepers.fetch_sub(1, Ordering::SeqCst);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn handoff(policy: WaitPolicy) {
        let w = Arc::new(WaitWord::new(0));
        let w2 = Arc::clone(&w);
        let t = std::thread::spawn(move || {
            let v = w2.wait_until(Waiter::new(policy), |v| v == 1).unwrap();
            assert_eq!(v, 1);
            w2.store_wake(2);
        });
        w.store_wake(1);
        assert_eq!(w.wait_until(Waiter::new(policy), |v| v == 2), Ok(2));
        t.join().unwrap();
    }

    #[test]
    fn every_policy_hands_off() {
        handoff(WaitPolicy::Active);
        handoff(WaitPolicy::Passive);
        handoff(WaitPolicy::default());
        handoff(WaitPolicy::SpinThenSleep {
            window: Duration::from_micros(1),
        });
    }

    #[test]
    fn poison_releases_a_sleeper() {
        let w = Arc::new(WaitWord::new(0));
        let flag = Arc::new(AtomicBool::new(false));
        let (w2, f2) = (Arc::clone(&w), Arc::clone(&flag));
        let t = std::thread::spawn(move || {
            let waiter = Waiter {
                policy: WaitPolicy::Passive,
                poison: Some(&f2),
            };
            w2.wait_until(waiter, |v| v == 1)
        });
        flag.store(true, Ordering::SeqCst);
        w.poison();
        assert_eq!(t.join().unwrap(), Err(Poisoned));
    }
}
