//! A condition variable for every lock of this crate: [`lock_api::RawCondvar`] over a futex
//! sequence word.
//!
//! **Algorithm.** The futex condition variable of Rust's standard library on Linux
//! (`library/std/src/sys/sync/condvar/futex.rs`, <https://github.com/rust-lang/rust>), which is
//! the sequence-counter scheme of Drepper's "Futexes Are Tricky" (2011,
//! <https://www.akkadia.org/drepper/futex.pdf>, section 7 discusses why it may wake spuriously).
//! A waiter reads the 32-bit sequence word while it holds the mutex, unlocks the mutex, and
//! sleeps on the word while it still holds the value read; a notifier increments the word and
//! wakes one sleeper (`notify_one`) or all of them (`notify_all`).
//!
//! **No lost wake-ups.** A notifier that changes the waited-for state does so holding the mutex
//! (or after taking it), so either its increment comes after the waiter's read, and the sleep
//! sees a new value and returns, or the state change came before the waiter held the mutex, and
//! the waiter's predicate saw it and never waited. The mutex orders every access to the word,
//! so the word itself is `Relaxed`.
//!
//! **Guarantees.** Waits may end spuriously (a notification meant for an earlier waiter, a
//! wrapped counter after 2^32 notifications while one waiter slept), so the notify methods
//! return `false` and `0`, as [`lock_api::RawCondvar`] asks of such implementations; use
//! `wait_while` or a loop. `notify_all` wakes every sleeper, and they then contend for the
//! mutex; parking_lot instead requeues them onto the mutex's own wait queue, which needs the
//! mutex to be parking_lot's. One condition variable works with any number of mutexes of its
//! type (nothing is recorded about the mutex). A wait that unwinds re-locks the mutex before the
//! unwind continues; if the re-lock itself panics the process aborts, since the guard would
//! otherwise claim a lock nobody holds. Off Linux the futex wait yields once and returns, so a
//! waiter polls instead of sleeping (see [`crate::futex`]). Memory: 4 bytes.

use crate::futex;
use crate::sync::{AtomicU32, Ordering};
use core::marker::PhantomData;
#[cfg(not(loom))]
use std::time::Duration;
use std::time::Instant;

/// A condition variable for the default [`crate::Mutex`]: `wait`, `wait_while`, `wait_for`,
/// `wait_until`, `notify_one` and `notify_all`, as parking_lot's.
///
/// ```
/// use std::sync::Arc;
/// use welltempered_lock::{Condvar, Mutex};
///
/// let pair = Arc::new((Mutex::new(false), Condvar::new()));
/// let pair2 = Arc::clone(&pair);
/// let t = std::thread::spawn(move || {
///     let (ready, cv) = &*pair2;
///     *ready.lock() = true;
///     cv.notify_one();
/// });
/// let (ready, cv) = &*pair;
/// let mut g = ready.lock();
/// cv.wait_while(&mut g, |ready| !*ready);
/// assert!(*g);
/// drop(g);
/// t.join().unwrap();
/// ```
#[cfg(not(loom))]
pub type Condvar = lock_api::Condvar<RawCondvar<crate::RawMutex>>;

/// A condition variable for `lock_api::Mutex<R, T>` with any raw lock `R` of this crate (or any
/// other [`lock_api::RawMutex`]), for example `CondvarFor<Hemlock>`.
///
/// ```
/// use welltempered_lock::{CondvarFor, Hemlock};
///
/// let m = lock_api::Mutex::<Hemlock, u32>::new(0);
/// let cv = CondvarFor::<Hemlock>::new();
/// let mut g = m.lock();
/// let r = cv.wait_for(&mut g, std::time::Duration::from_millis(1));
/// assert!(r.timed_out());
/// ```
#[cfg(not(loom))]
pub type CondvarFor<R> = lock_api::Condvar<RawCondvar<R>>;

/// The raw condition variable behind [`Condvar`] and [`CondvarFor`] (see the module
/// documentation).
pub struct RawCondvar<R> {
    /// Incremented by every notification.
    seq: AtomicU32,
    _mutex: PhantomData<fn(&R)>,
}

impl<R> RawCondvar<R> {
    /// A condition variable nobody waits on.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            seq: AtomicU32::new(0),
            _mutex: PhantomData,
        }
    }

    /// A condition variable nobody waits on.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            seq: AtomicU32::new(0),
            _mutex: PhantomData,
        }
    }

    /// The waiter's protocol with the mutex given as two actions: reads the sequence word,
    /// runs `unlock`, sleeps until notified (or spuriously, or until `deadline`), then runs
    /// `relock`, also when the sleep unwinds. Returns whether the deadline passed.
    ///
    /// The caller must hold the mutex that `unlock` releases, and every notifier must change
    /// the waited-for state under that mutex.
    fn wait_with(
        &self,
        unlock: impl FnOnce(),
        relock: impl FnOnce(),
        deadline: Option<Instant>,
    ) -> bool {
        /// Runs the re-lock when dropped, on return and on unwind alike.
        struct Relock<F: FnOnce()>(Option<F>);
        impl<F: FnOnce()> Drop for Relock<F> {
            fn drop(&mut self) {
                if let Some(f) = self.0.take() {
                    f();
                }
            }
        }
        // Relaxed: the mutex we hold orders this read after every notification that came
        // before the state we checked (see the module documentation).
        let seen = self.seq.load(Ordering::Relaxed);
        unlock();
        let _relock = Relock(Some(relock));
        let timeout = match deadline {
            None => None,
            Some(d) => match d.checked_duration_since(Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return true,
            },
        };
        futex::wait(&self.seq, seen, timeout);
        deadline.is_some_and(|d| Instant::now() >= d)
    }

    fn notify(&self, all: bool) {
        // Relaxed: see `wait_with`; the futex call reads the new value in the kernel.
        self.seq.fetch_add(1, Ordering::Relaxed);
        if all {
            futex::wake_all(&self.seq);
        } else {
            futex::wake(&self.seq, 1);
        }
    }
}

impl<R> Default for RawCondvar<R> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> core::fmt::Debug for RawCondvar<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RawCondvar").finish_non_exhaustive()
    }
}

/// Aborts the process if dropped, i.e. if what it guards unwinds.
#[cfg(not(loom))]
struct AbortOnUnwind;

#[cfg(not(loom))]
impl Drop for AbortOnUnwind {
    fn drop(&mut self) {
        // A re-lock that panicked would leave the caller's guard claiming a lock nobody
        // holds; the `RawCondvar` contract requires an abort then.
        std::process::abort();
    }
}

/// Waits on `cv` with the guard of `mutex` moved out for the duration of the sleep.
///
/// # Safety
/// The caller holds `mutex` through `guard` and does not touch the protected data until this
/// returns (the [`lock_api::RawCondvar::wait`] contract).
#[cfg(not(loom))]
unsafe fn wait_guarded<R: lock_api::RawMutex>(
    cv: &RawCondvar<R>,
    mutex: &R,
    guard: &mut R::Guard,
    deadline: Option<Instant>,
) -> bool {
    let slot: *mut R::Guard = guard;
    cv.wait_with(
        || {
            // SAFETY: the caller's guard proves the lock held; it is moved out here and
            // written back by the re-lock below before anyone can observe the slot (the
            // caller is inside this call until then).
            let g = unsafe { slot.read() };
            // SAFETY: the guard of the caller's acquisition of `mutex`.
            unsafe { mutex.unlock(g) };
        },
        || {
            let bomb = AbortOnUnwind;
            let g = mutex.lock();
            core::mem::forget(bomb);
            // SAFETY: the slot's old guard was moved out above; this refills it.
            unsafe { slot.write(g) };
        },
        deadline,
    )
}

#[cfg(not(loom))]
// SAFETY: `wait` reads the sequence word before it unlocks and sleeps only while the word
// still holds that value, so a notification after the unlock ends the sleep (atomic with
// respect to notify, as the trait requires); the re-lock runs on return and on unwind and
// refills the guard; a panicking re-lock aborts. Nothing ties it to one mutex.
unsafe impl<R: lock_api::RawMutex> lock_api::RawCondvar for RawCondvar<R> {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = Self::new();
    type RawMutex = R;

    unsafe fn wait(&self, mutex: &R, guard: &mut R::Guard) {
        // SAFETY: the caller's contract is `wait_guarded`'s.
        unsafe { wait_guarded(self, mutex, guard, None) };
    }

    fn notify_one(&self) -> bool {
        self.notify(false);
        false
    }

    fn notify_all(&self) -> usize {
        self.notify(true);
        0
    }
}

#[cfg(not(loom))]
// SAFETY: as for `RawCondvar`; the timed wait differs only in how long it sleeps.
unsafe impl<R> lock_api::RawCondvarTimed for RawCondvar<R>
where
    R: lock_api::RawMutexTimed<Duration = Duration, Instant = Instant>,
{
    fn checked_duration_to_instant(timeout: &Duration) -> Option<Instant> {
        Instant::now().checked_add(*timeout)
    }

    unsafe fn wait_until(&self, mutex: &R, guard: &mut R::Guard, timeout: &Instant) -> bool {
        // SAFETY: the caller's contract is `wait_guarded`'s.
        unsafe { wait_guarded(self, mutex, guard, Some(*timeout)) }
    }
}

#[cfg(loom)]
impl<R> RawCondvar<R> {
    /// The waiter's protocol for loom models, with the mutex as two actions.
    pub fn wait_model(&self, unlock: impl FnOnce(), relock: impl FnOnce()) {
        self.wait_with(unlock, relock, None);
    }

    /// Wakes one waiter.
    pub fn notify_one_model(&self) {
        self.notify(false);
    }

    /// Wakes every waiter.
    pub fn notify_all_model(&self) {
        self.notify(true);
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::{Futex, HemlockPark, McsPark, TicketPark};
    use std::sync::atomic::AtomicUsize;

    fn scale(n: usize, miri: usize) -> usize {
        if cfg!(miri) { miri } else { n }
    }

    /// A bounded producer/consumer handing over `items` numbers through one slot, waiting on
    /// two condition variables with short random timeouts (so timed-out waits loop): nothing
    /// lost, nothing duplicated, whatever the lock.
    fn hand_over<R>(items: u64)
    where
        R: lock_api::RawMutexTimed<Duration = Duration, Instant = Instant> + Sync,
    {
        struct Slot {
            value: Option<u64>,
            done: bool,
        }
        let m = lock_api::Mutex::<R, Slot>::new(Slot {
            value: None,
            done: false,
        });
        let (full, empty) = (CondvarFor::<R>::new(), CondvarFor::<R>::new());
        let consumers = 3;
        let sums: Vec<AtomicUsize> = (0..consumers).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|s| {
            for (c, sum) in sums.iter().enumerate() {
                let (m, full, empty) = (&m, &full, &empty);
                s.spawn(move || {
                    let mut g = m.lock();
                    loop {
                        if let Some(v) = g.value.take() {
                            sum.fetch_add(v as usize, Ordering::Relaxed);
                            empty.notify_one();
                        } else if g.done {
                            return;
                        } else {
                            // Some waits untimed, some with a timeout that may pass.
                            if c == 0 {
                                full.wait(&mut g);
                            } else {
                                let us = 1 + (c as u64 * 37 + g.value.unwrap_or(7)) % 300;
                                let _ = full.wait_for(&mut g, Duration::from_micros(us));
                            }
                        }
                    }
                });
            }
            let mut g = m.lock();
            for i in 1..=items {
                empty.wait_while(&mut g, |slot| slot.value.is_some());
                g.value = Some(i);
                full.notify_one();
            }
            empty.wait_while(&mut g, |slot| slot.value.is_some());
            g.done = true;
            full.notify_all();
        });
        let total: usize = sums.iter().map(|s| s.load(Ordering::Relaxed)).sum();
        assert_eq!(total as u64, items * (items + 1) / 2);
    }

    #[test]
    fn hand_over_loses_nothing_with_every_kind_of_lock() {
        // Four threads on however many cores: the parking forms of the FIFO locks, whose
        // spinning forms collapse when threads outnumber cores (that is measured elsewhere).
        let items = scale(3_000, 30) as u64;
        hand_over::<crate::RawMutex>(items);
        hand_over::<HemlockPark>(items);
        hand_over::<McsPark>(items);
        hand_over::<Futex>(items);
        hand_over::<TicketPark>(items);
    }

    #[test]
    fn notify_all_wakes_every_waiter() {
        let m = crate::Mutex::new(false);
        let cv = Condvar::new();
        let woke = AtomicUsize::new(0);
        let waiters = scale(6, 3);
        std::thread::scope(|s| {
            for _ in 0..waiters {
                s.spawn(|| {
                    let mut g = m.lock();
                    cv.wait_while(&mut g, |go| !*go);
                    woke.fetch_add(1, Ordering::Relaxed);
                });
            }
            // Let some of them reach their sleep (not needed for correctness).
            std::thread::sleep(Duration::from_millis(scale(10, 1) as u64));
            *m.lock() = true;
            // Our notify methods report nothing: waits may end spuriously.
            assert_eq!(cv.notify_all(), 0);
        });
        assert_eq!(woke.load(Ordering::Relaxed), waiters);
    }

    #[test]
    fn timed_waits_time_out_and_relock() {
        let m = crate::Mutex::new(5u32);
        let cv = Condvar::new();
        let mut g = m.lock();
        assert!(cv.wait_for(&mut g, Duration::from_millis(1)).timed_out());
        assert!(m.is_locked() && *g == 5);
        // A deadline already past returns at once, still holding the lock.
        let past = Instant::now();
        assert!(cv.wait_until(&mut g, past).timed_out());
        assert!(m.is_locked());
        *g += 1;
        let r = cv.wait_while_for(&mut g, |v| *v < 100, Duration::from_millis(1));
        assert!(r.timed_out() && *g == 6);
        drop(g);
        assert!(!m.is_locked());
    }

    #[test]
    fn one_condvar_serves_two_mutexes() {
        // Nothing in the condition variable is tied to one mutex.
        let (a, b) = (crate::Mutex::new(0), crate::Mutex::new(0));
        let cv = Condvar::new();
        std::thread::scope(|s| {
            for m in [&a, &b] {
                let cv = &cv;
                s.spawn(move || {
                    let mut g = m.lock();
                    while *g == 0 {
                        let _ = cv.wait_for(&mut g, Duration::from_millis(1));
                    }
                });
            }
            *a.lock() = 1;
            *b.lock() = 1;
            cv.notify_all();
        });
    }
}
