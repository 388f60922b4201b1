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
//! `wait_while` or a loop. [`RawCondvar`]'s `notify_all` wakes every sleeper, and they then
//! contend for the mutex. [`RequeueCondvar`], behind [`Condvar`] for the default mutex, instead
//! wakes a herd the CPUs can run and moves the others onto the mutex's own word, as parking_lot's
//! condition variable moves them onto its mutex's queue (see its documentation). A `RawCondvar` works with any
//! number of mutexes of its type (nothing is recorded about the mutex); so does a
//! `RequeueCondvar`, which stops requeueing once it sees a second one. A wait that unwinds
//! re-locks the mutex before the unwind continues; if the re-lock itself panics the process
//! aborts, since the guard would otherwise claim a lock nobody holds. Off Linux the sleep is
//! atomic-wait's (see [`crate::futex`]). Memory: 4 bytes (`RequeueCondvar`: 16).

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
pub type Condvar = lock_api::Condvar<RequeueCondvar>;

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
    #[cfg(loom)]
    fn wait_with(
        &self,
        unlock: impl FnOnce(),
        relock: impl FnOnce(),
        deadline: Option<Instant>,
    ) -> bool {
        wait_on(&self.seq, unlock, relock, deadline, None)
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

/// The waiter's protocol on the sequence word `seq`, with the mutex given as two actions:
/// reads the word, runs `unlock`, sleeps until notified (or spuriously, or until `deadline`;
/// as a futex sleeper of `class` if given), then runs `relock`, also when the sleep unwinds.
/// Returns whether the deadline passed.
///
/// The caller must hold the mutex that `unlock` releases, and every notifier must change the
/// waited-for state under that mutex.
fn wait_on(
    seq: &AtomicU32,
    unlock: impl FnOnce(),
    relock: impl FnOnce(),
    deadline: Option<Instant>,
    class: Option<u32>,
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
    let seen = seq.load(Ordering::Relaxed);
    unlock();
    let _relock = Relock(Some(relock));
    let timeout = match deadline {
        None => None,
        Some(d) => match d.checked_duration_since(Instant::now()) {
            Some(left) if !left.is_zero() => Some(left),
            _ => return true,
        },
    };
    match class {
        Some(c) => futex::wait_bitset(seq, seen, timeout, c),
        None => futex::wait(seq, seen, timeout),
    };
    deadline.is_some_and(|d| Instant::now() >= d)
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
    // SAFETY: forwarded from the caller.
    unsafe { wait_guarded_on(&cv.seq, None, mutex, guard, deadline, |_| {}) }
}

/// [`wait_guarded`] on the sequence word `seq`, sleeping as a futex sleeper of `class` if
/// given, with `relocked(mutex)` run once the mutex is held again.
///
/// # Safety
/// As for [`wait_guarded`].
#[cfg(not(loom))]
unsafe fn wait_guarded_on<R: lock_api::RawMutex>(
    seq: &AtomicU32,
    class: Option<u32>,
    mutex: &R,
    guard: &mut R::Guard,
    deadline: Option<Instant>,
    relocked: impl FnOnce(&R),
) -> bool {
    let slot: *mut R::Guard = guard;
    wait_on(
        seq,
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
            relocked(mutex);
            core::mem::forget(bomb);
            // SAFETY: the slot's old guard was moved out above; this refills it.
            unsafe { slot.write(g) };
        },
        deadline,
        class,
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

/// The raw condition variable behind [`Condvar`]: [`RawCondvar`]'s protocol, plus a requeue for
/// the default mutex, as parking_lot's condition variable has for its own. `notify_all` wakes
/// up to [`WAKE_PER_CPU`] waiters per CPU and moves the others onto the mutex's word
/// (`FUTEX_CMP_REQUEUE`), where each sleeps until an unlock hands it the next turn (see
/// [`crate::RawMutex`]'s documentation): beyond a herd the CPUs can run, the waiters run one
/// after another as the lock allows instead of all waking to contend for it.
///
/// **Why not move all but one, as parking_lot does.** Measured on a 2-CPU machine (the
/// `broadcast` example of welltempered-bench: waiters that each take the mutex once per
/// broadcast), waking one and moving the rest serialises every wake-up behind the previous
/// waiter's unlock: 0.34x the rounds per second of waking all, at 16 and at 64 waiters (and
/// parking_lot's rate). Waking 8 per CPU and moving the rest is as fast as waking all up to
/// that many waiters and 1.3-1.4x faster at 64; fewer (2 or 4 per CPU) lost at 16 waiters.
/// Machines with more CPUs were not measured.
///
/// **Which word.** Waiters record the mutex they wait with. Used with two mutexes, the
/// condition variable stops requeueing for good and wakes every waiter (it cannot send one
/// mutex's waiters to another's word); a waiter that records the second mutex does so before it
/// sleeps, and a notifier that requeued checks again afterwards and wakes whatever it moved if
/// the condition variable turned out mixed (the kernel's wait-queue lock orders the two).
///
/// **The chain.** Every waiter notes the count of requeueing broadcasts before it sleeps; one
/// that wakes to a changed count may have been moved, so once it holds the mutex again it marks
/// the mutex's word, and its unlock wakes the next moved waiter (the broadcast itself wakes
/// the first ones, so the chains always start: one per waiter woken at once). Each moved waiter
/// is thereby woken by the unlock of one before it, or by its own timeout, which also leads to
/// an unlock that wakes the next; a chain ends with an unlock that wakes nobody. Where the futex cannot requeue
/// (off Linux, under Miri) every waiter is woken instead. Memory: 16 bytes.
#[cfg(not(loom))]
#[derive(Debug)]
pub struct RequeueCondvar {
    /// Incremented by every notification.
    seq: AtomicU32,
    /// Requeueing broadcasts so far.
    requeues: AtomicU32,
    /// The address of the mutex's word the waiters use, [`NO_MUTEX`] or [`MIXED`].
    mutex: crate::sync::AtomicUsize,
}

/// No waiter has recorded a mutex yet.
#[cfg(not(loom))]
const NO_MUTEX: usize = 0;
/// Waiters have used two mutexes: no more requeueing.
#[cfg(not(loom))]
const MIXED: usize = 1;

#[cfg(not(loom))]
impl RequeueCondvar {
    /// A condition variable nobody waits on.
    pub const fn new() -> Self {
        Self {
            seq: AtomicU32::new(0),
            requeues: AtomicU32::new(0),
            mutex: crate::sync::AtomicUsize::new(NO_MUTEX),
        }
    }

    /// Records `word` as the waiters' mutex, or marks the condition variable mixed.
    fn record(&self, word: usize) {
        // SeqCst, here and in `notify_all`'s second look: a waiter's record must be seen by a
        // notifier that moved it (see the type's documentation).
        match self
            .mutex
            .compare_exchange(NO_MUTEX, word, Ordering::SeqCst, Ordering::SeqCst)
        {
            Ok(_) => {}
            Err(w) if w == word || w == MIXED => {}
            Err(_) => self.mutex.store(MIXED, Ordering::SeqCst),
        }
    }

    /// The count of requeueing broadcasts, noted by a waiter before it sleeps.
    fn requeues(&self) -> u32 {
        // Relaxed: compared after the wake-up, which the futex orders after the broadcast's
        // increment when the broadcast moved this waiter.
        self.requeues.load(Ordering::Relaxed)
    }

    fn notify_one(&self) {
        // Relaxed: see `RawCondvar::notify`.
        self.seq.fetch_add(1, Ordering::Relaxed);
        futex::wake(&self.seq, 1);
    }

    fn notify_all(&self) {
        // Relaxed: see `RawCondvar::notify`.
        let now = self.seq.fetch_add(1, Ordering::Relaxed).wrapping_add(1);
        let word = self.mutex.load(Ordering::SeqCst);
        if word != NO_MUTEX && word != MIXED && futex::BITSETS {
            // Counted before the move, so that every moved waiter sees it when it wakes.
            self.requeues.fetch_add(1, Ordering::Relaxed);
            let target = word as *const u32;
            if futex::requeue(&self.seq, now, wake_first(), target).is_some() {
                if self.mutex.load(Ordering::SeqCst) == MIXED {
                    // A waiter of another mutex may have been moved: release everyone moved.
                    futex::wake_bitset_address(target, u32::MAX, crate::mutex::COND_CLASS);
                }
                return;
            }
        }
        futex::wake_all(&self.seq);
    }
}

/// Waiters per CPU that a broadcast wakes at once before it moves the rest onto the mutex.
#[cfg(not(loom))]
pub const WAKE_PER_CPU: u32 = 8;

/// How many waiters a broadcast wakes at once: [`WAKE_PER_CPU`] per CPU this process may run
/// on (measured once).
#[cfg(not(loom))]
fn wake_first() -> u32 {
    static FIRST: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *FIRST.get_or_init(|| {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        u32::try_from(cpus)
            .unwrap_or(u32::MAX)
            .saturating_mul(WAKE_PER_CPU)
    })
}

#[cfg(not(loom))]
impl Default for RequeueCondvar {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(not(loom))]
impl RequeueCondvar {
    /// # Safety
    /// As for [`wait_guarded`].
    unsafe fn wait(
        &self,
        mutex: &crate::RawMutex,
        guard: &mut lock_api::GuardSend,
        deadline: Option<Instant>,
    ) -> bool {
        self.record(mutex.word() as usize);
        let before = self.requeues();
        let relocked = |m: &crate::RawMutex| {
            if self.requeues() != before {
                m.mark_requeued();
            }
        };
        // SAFETY: forwarded from the caller.
        unsafe {
            wait_guarded_on(
                &self.seq,
                Some(crate::mutex::COND_CLASS),
                mutex,
                guard,
                deadline,
                relocked,
            )
        }
    }
}

#[cfg(not(loom))]
// SAFETY: as for `RawCondvar`: `wait` reads the sequence word before it unlocks and sleeps only
// while the word holds that value, on the condition variable's word or, once moved, on the
// mutex's, from which the chain of unlocks (or its own timeout) wakes it; the re-lock runs on
// return and on unwind and refills the guard; a panicking re-lock aborts.
unsafe impl lock_api::RawCondvar for RequeueCondvar {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = Self::new();
    type RawMutex = crate::RawMutex;

    unsafe fn wait(&self, mutex: &crate::RawMutex, guard: &mut lock_api::GuardSend) {
        // SAFETY: the caller's contract is `wait_guarded`'s.
        unsafe { RequeueCondvar::wait(self, mutex, guard, None) };
    }

    fn notify_one(&self) -> bool {
        RequeueCondvar::notify_one(self);
        false
    }

    fn notify_all(&self) -> usize {
        RequeueCondvar::notify_all(self);
        0
    }
}

#[cfg(not(loom))]
// SAFETY: as for the untimed impl; the timed wait differs only in how long it sleeps.
unsafe impl lock_api::RawCondvarTimed for RequeueCondvar {
    fn checked_duration_to_instant(timeout: &Duration) -> Option<Instant> {
        Instant::now().checked_add(*timeout)
    }

    unsafe fn wait_until(
        &self,
        mutex: &crate::RawMutex,
        guard: &mut lock_api::GuardSend,
        timeout: &Instant,
    ) -> bool {
        // SAFETY: the caller's contract is `wait_guarded`'s.
        unsafe { RequeueCondvar::wait(self, mutex, guard, Some(*timeout)) }
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

    /// Runs `f` on a thread and fails, rather than hangs, if it has not finished after
    /// `limit`: a liveness bound for the requeue chain (a lost wake-up is a hang), far above
    /// any run time; it decides nothing about speed.
    fn finishes_within(limit: Duration, f: impl FnOnce() + Send + 'static) {
        let (tx, rx) = std::sync::mpsc::channel();
        let t = std::thread::spawn(move || {
            f();
            let _ = tx.send(());
        });
        match rx.recv_timeout(limit) {
            Ok(()) => t.join().unwrap(),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => {
                if let Err(p) = t.join() {
                    std::panic::resume_unwind(p);
                }
            }
            Err(e) => panic!("still waiting after {limit:?} ({e}): a waiter was never woken"),
        }
    }

    /// Broadcast rounds: `waiters` threads wait for each new generation (some with short
    /// timeouts), `noise` threads take the mutex in a loop so that its head parks on the same
    /// word the requeued waiters sleep on, and the notifier broadcasts `rounds` times, holding
    /// the mutex or not. Every waiter must see the last generation and leave.
    fn broadcasts(waiters: usize, noise: usize, rounds: u32, timed: bool) {
        struct State {
            generation: u32,
            seen: usize,
        }
        let m = std::sync::Arc::new(crate::Mutex::new(State {
            generation: 0,
            seen: 0,
        }));
        let cv = std::sync::Arc::new(Condvar::new());
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let mut hs = Vec::new();
        for w in 0..waiters {
            let (m, cv) = (m.clone(), cv.clone());
            hs.push(std::thread::spawn(move || {
                let mut g = m.lock();
                let mut mine = 0;
                while mine < rounds {
                    if g.generation == mine {
                        if timed && w % 2 == 0 {
                            let d = Duration::from_micros(50 + 97 * (u64::from(mine) % 7));
                            let _ = cv.wait_for(&mut g, d);
                        } else {
                            cv.wait(&mut g);
                        }
                    }
                    if g.generation > mine {
                        mine = g.generation;
                        g.seen += 1;
                    }
                }
            }));
        }
        for _ in 0..noise {
            let (m, stop) = (m.clone(), stop.clone());
            hs.push(std::thread::spawn(move || {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let g = m.lock();
                    std::hint::black_box(&g.generation);
                    drop(g);
                }
            }));
        }
        for r in 1..=rounds {
            let mut g = m.lock();
            g.generation = r;
            if r % 2 == 0 {
                cv.notify_all();
                drop(g);
            } else {
                drop(g);
                cv.notify_all();
            }
            if r % 16 == 0 {
                std::thread::yield_now();
            }
        }
        let n = hs.len();
        for (i, h) in hs.into_iter().enumerate() {
            if i + noise == n {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
            }
            h.join().unwrap();
        }
        assert!(!m.is_locked());
        assert!(m.lock().seen >= waiters);
    }

    #[test]
    fn broadcasts_requeue_and_every_waiter_wakes() {
        // More waiters than a broadcast wakes at once, so that some are moved.
        let many = scale((wake_first() as usize + 8).min(160), 6);
        let rounds = scale(200, 10) as u32;
        finishes_within(Duration::from_secs(300), move || {
            broadcasts(many, 0, rounds, false);
            broadcasts(many, 2, rounds, false);
            broadcasts(many, 2, rounds, true);
        });
    }

    #[test]
    fn a_condvar_used_with_two_mutexes_stops_requeueing_and_wakes_everyone() {
        let rounds = scale(200, 10) as u32;
        finishes_within(Duration::from_secs(300), move || {
            let ms = std::sync::Arc::new([crate::Mutex::new(0u32), crate::Mutex::new(0u32)]);
            let cv = std::sync::Arc::new(Condvar::new());
            let hs: Vec<_> = (0..6)
                .map(|i| {
                    let (ms, cv) = (ms.clone(), cv.clone());
                    std::thread::spawn(move || {
                        let m = &ms[i % 2];
                        let mut g = m.lock();
                        let mut mine = 0;
                        while mine < rounds {
                            cv.wait_while(&mut g, |v| *v == mine);
                            mine = *g;
                        }
                    })
                })
                .collect();
            for r in 1..=rounds {
                for m in ms.iter() {
                    *m.lock() = r;
                }
                cv.notify_all();
            }
            for h in hs {
                h.join().unwrap();
            }
        });
    }

    #[test]
    #[cfg(all(target_os = "linux", not(miri)))]
    fn the_futex_moves_sleepers_and_wakes_them_by_class() {
        // Two sleepers of the condition variable's class on `from`; a requeue wakes one and
        // moves the other to `to`, where a wake of the head's class does not reach it and a
        // wake of its own class does.
        use crate::mutex::COND_CLASS;
        use std::sync::Arc;
        use std::sync::atomic::AtomicBool;
        let from = Arc::new(AtomicU32::new(0));
        let to = AtomicU32::new(0);
        let released = Arc::new(AtomicBool::new(false));
        let sleepers: Vec<_> = (0..2)
            .map(|_| {
                let (from, released) = (from.clone(), released.clone());
                std::thread::spawn(move || {
                    // Woken or moved and woken: back to sleep on `from` until released.
                    while !released.load(Ordering::Acquire) {
                        futex::wait_bitset(&from, 0, None, COND_CLASS);
                    }
                })
            })
            .collect();
        // Retried (not timed) until both sleep: then one is woken and one moved.
        while futex::requeue(&from, 0, 1, to.as_ptr()).unwrap() < 2 {
            std::thread::yield_now();
        }
        assert_eq!(
            futex::wake_bitset_address(to.as_ptr(), 1, 1),
            0,
            "head class"
        );
        assert_eq!(futex::wake_bitset_address(to.as_ptr(), 1, COND_CLASS), 1);
        released.store(true, Ordering::Release);
        for _ in 0..2 {
            futex::wake(&from, u32::MAX);
        }
        for t in sleepers {
            // A sleeper that went back to sleep before `released` is woken by this loop.
            while !t.is_finished() {
                futex::wake(&from, u32::MAX);
                std::thread::yield_now();
            }
            t.join().unwrap();
        }
    }
}
