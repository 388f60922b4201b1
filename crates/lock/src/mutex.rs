//! The default mutex: a Fissile lock, a barging test-and-set word over a FIFO queue of waiters,
//! with a bounded bypass.
//!
//! Source: D. Dice and A. Kogan, "Fissile Locks" (arXiv:2003.05025, 2020): an outer
//! test-and-set lock that arriving threads may take at once ("barging", the fast path), and an
//! inner FIFO lock that orders the threads that could not. The owner of the inner lock, the
//! *head*, is the only waiter that contends for the outer word; everyone behind it waits in the
//! inner lock. When the head has waited long enough it becomes *impatient* and barging stops, so
//! the head gets the next unlock. Patience is bounded two ways: the outer word counts the
//! barging acquisitions made since the head announced itself, and barging is refused once that
//! count reaches [`MUTEX_BYPASS_LIMIT`] (which short critical sections reach first); and a
//! head that has waited [`MUTEX_PATIENCE`] (the paper's time-based patience, which long
//! critical sections reach first: 256 sections of 10 µs are 2.5 ms) sets the count to the
//! limit itself. Both apply to a head that is awake. A head that sleeps is woken by the first
//! unlock after it fell asleep; until it runs again, barging goes on uncounted, so the lock is
//! never handed to a thread that still has to be scheduled (a futex wake-up takes 50-100 µs on
//! a virtual machine, hundreds of acquisitions at this lock's rates). **While a head is awake,
//! at most [`MUTEX_BYPASS_LIMIT`] `lock` acquisitions overtake it, and none once it has waited
//! [`MUTEX_PATIENCE`]; a word that refuses barging refuses until the head has the lock.**
//! (`try_lock` takes any free lock, as POSIX requires of `pthread_mutex_trylock`: see
//! [`RawMutex::try_lock`].)
//!
//! Why this design (the measurements of two studies): omp0, a minimal OpenMP runtime evaluated
//! against libgomp (Sreeram and Bhargav), found FIFO spin
//! locks collapsing 30-100x once threads outnumber cores (a descheduled waiter stalls the queue)
//! and a fixed-budget futex lock burning 5-6x the cycles of glibc's adaptive one; the Hemlock
//! paper's MutexBench shows barging locks winning on throughput and losing on fairness. Barging
//! keeps the lock with the running threads, which is what throughput on an oversubscribed
//! machine needs; the count bound and the FIFO queue give the fairness that pure barging lacks,
//! without the hand-over-to-a-sleeper convoy of a strictly FIFO lock (a hand-over happens at most
//! once per [`MUTEX_BYPASS_LIMIT`] + 1 acquisitions, not at every unlock).
//!
//! The outer word (`state`, 32 bits, futex-waitable):
//!
//! | bits | name | meaning |
//! |---|---|---|
//! | 0 | `LOCKED` | held |
//! | 1 | `HEAD` | a head waits for the outer word, or is about to: the previous head saw a thread queued behind it |
//! | 2 | `PARKED` | the head may sleep on this word: an unlock that finds the bit wakes it |
//! | 3 | `REQUEUED` | condition-variable waiters may sleep on this word: an unlock that finds the bit wakes one |
//! | 4 | `ASLEEP` | the head sleeps, or has been woken and not yet run: barging is not refused; only the head sets and clears it |
//! | 8.. | bypass count | barging acquisitions since `HEAD` was set |
//!
//! `PARKED` and the count are only ever non-zero while `HEAD` is set; the head's own acquisition
//! clears all of them at once (`state = LOCKED`). `PARKED` is set by the head, `REQUEUED` by the
//! holder (see below), both only while `LOCKED`; an unlock leaves them as they are and wakes,
//! so on a free word they are stale (their wake-up has been issued) and every acquisition
//! clears them. Set while `LOCKED`, each was set during the current hold, and the holder's
//! unlock will find it.
//!
//! **Requeued condition-variable waiters.** [`crate::Condvar`]'s `notify_all` wakes a herd the
//! CPUs can run and moves the other waiters from the condition variable's word to this one
//! (`FUTEX_CMP_REQUEUE`), instead of waking more than would only contend for the lock. Two
//! classes of sleeper then
//! share the word, told apart by futex bitsets: the head (`HEAD_CLASS`) and requeued waiters
//! (`COND_CLASS`); a wake of one class never takes the other's. A condition-variable waiter that
//! may have been requeued sets `REQUEUED` once it holds the lock again, so its unlock wakes the
//! next requeued waiter: a chain that ends with an unlock that finds none (one wasted wake-up).
//!
//! Paths:
//! - lock: one CAS 0→`LOCKED`; unlock: one `fetch_sub` of `LOCKED` (a single `lock xadd` on
//!   x86, whatever other bits are set: a waiting head costs the holder nothing), plus a futex
//!   wake only when the head may sleep (`PARKED` was set). The wake uses only the word's
//!   address: once the releasing read-modify-write is done, a barger may take and release the
//!   lock, the head may take it and free the object that holds it (legal for a
//!   `pthread_mutex_t`; glibc bug 13690 is this race), so the unlocker never touches the word
//!   again, and leaves `PARKED` for the next acquisition to clear. Until then another unlock
//!   could find it and wake again (harmless); a barger's acquisition clears it, so this happens
//!   at most on the rare paths that do not barge. An earlier form cleared `LOCKED` and
//!   `PARKED` in one `fetch_and`, which x86 compiles to a load and a CAS loop, behind a first
//!   CAS that fails whenever `HEAD` is set: two or three accesses to the contended line per
//!   unlock instead of one (MutexBench at maximum contention, empty critical section, 2 to
//!   64 threads on 2 CPUs, one run of five paired repetitions each: 0.64-0.73x parking_lot
//!   before, 0.72-0.77x with the `fetch_sub` alone).
//! - A newcomer whose CAS failed spins (2, 4, 8 hints), then yields (7 times), barging
//!   whenever the word allows, as parking_lot's `SpinWait` does, with its counts (4 spinning
//!   and 4 yielding rounds sent two to three times as many threads into the queue at maximum
//!   contention, and gave up to 20% less throughput in the same runs). While the word refuses only
//!   because the head is due, it yields without spending those rounds: the head is about to
//!   take its turn, and sending every running thread into the queue at each hand-over would
//!   start the convoy this design exists to avoid.
//! - If its rounds run out, it joins the inner queue, [`crate::McsCompact`] (MCS with
//!   spin-then-park waiting and a 4-byte tail; FIFO, and its unlock does not wait for the
//!   successor, unlike Hemlock's, whose acknowledgement would keep the outer lock held across a
//!   wake-up). The queued thread keeps its node (a token) in `lock` itself, since the queue is
//!   held only there; the body keeps just the tail.
//! - The head sets `HEAD`, spins on the outer word, yields a few times (oversubscribed, the
//!   holder may need the core), then sets `PARKED` and sleeps on the word, with `ASLEEP` unless
//!   it is impatient (then barging stays refused while it sleeps: its turn is next). Woken, it
//!   clears `ASLEEP` and spins again; before each sleep it checks its patience. Measured
//!   (MutexBench on 2 CPUs, 5 paired repetitions, two runs each, against the count bound
//!   alone): letting barging go on while the head sleeps took 10 µs critical sections at 2
//!   threads from 0.92-0.96x parking_lot to 1.02x, and the time bound took the per-thread
//!   max/min at 64 threads and 10 µs from 194-311 to 89-125; it costs fairness at 64 threads
//!   and 1 µs (max/min 2.0-2.1 before, 4.0-4.8 after: more barging during a head's wake-up).
//!   Once it has the outer
//!   lock it releases the inner one, and the next queued thread becomes head. If a thread is
//!   queued behind it, it first sets `HEAD` again on the successor's behalf, so the bypass
//!   count also bounds barging while the successor wakes up and is scheduled: without that, the
//!   word was free for all in that window, which on an oversubscribed machine lasts time
//!   slices, and the queue hardly moved (per-thread max/min of 80 to 170 at 64 threads on 2
//!   CPUs, against 2 to 8 with it).
//!
//! Guarantees: mutual exclusion; bounded bypass of an awake head (above), and FIFO order
//! among the queued threads before that; waiters sleep, so oversubscription does not collapse
//! it. Not FIFO overall (newcomers barge). Bytes per lock: 8 (the outer word and the queue's
//! 4-byte tail), all-zero when unlocked. Bytes per thread: an MCS queue node (128
//! bytes, from a per-thread cache) only while queued. The inner lock is held only inside
//! `lock`, by the acquiring thread, so the outer guard depends on no thread-local state: it is
//! [`lock_api::GuardSend`], and a guard may be released on another thread.

use crate::futex::{wait_bitset, wake_bitset_address};
use crate::sync::{AtomicU32, Ordering, spin_loop, yield_now};

/// The inner lock that orders the threads that could not barge: compact MCS (FIFO; 4 bytes;
/// spin-then-park; its unlock does not wait for the successor, unlike Hemlock's, whose
/// acknowledgement would keep the outer lock held across a wake-up). The queue is held only
/// inside `lock`, by one thread, so the node can stay with that thread instead of in the body.
/// Under loom, the futex lock, so the models explore the outer protocol rather than the
/// queue's (the queue has models of its own).
#[cfg(not(loom))]
type Queue = crate::McsCompact;
#[cfg(loom)]
#[derive(Debug)]
struct Queue(crate::Futex, AtomicU32);

/// The loom queue's token: it holds nothing.
#[cfg(loom)]
struct Held;

#[cfg(loom)]
impl Queue {
    fn new() -> Self {
        Queue(crate::Futex::new(), AtomicU32::new(0))
    }

    fn lock(&self) -> Held {
        // The threads that want the queue, the holder included: the release below tells from
        // it whether a successor waits.
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.lock();
        Held
    }

    /// Releases the queue, calling `before_hand_over` first if another thread wants it (as
    /// [`crate::McsCompact::unlock_noting_successor`]).
    ///
    /// # Safety
    ///
    /// Held by the calling thread.
    unsafe fn unlock_noting_successor(&self, _: Held, before_hand_over: impl FnOnce()) {
        // A read-modify-write: it sees every thread that announced itself before it.
        if self.1.fetch_sub(1, Ordering::Relaxed) > 1 {
            before_hand_over();
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.0.unlock() };
    }
}

/// How many barging acquisitions may overtake a waiting head before barging is refused.
/// (1 under loom, so the models reach the refusal.)
pub const MUTEX_BYPASS_LIMIT: u32 = if cfg!(loom) { 1 } else { 256 };

const LOCKED: u32 = 1;
const HEAD: u32 = 2;
const PARKED: u32 = 4;
const REQUEUED: u32 = 8;
const ASLEEP: u32 = 16;
const BYPASS_SHIFT: u32 = 8;

/// The futex class of the head sleeping on the word.
const HEAD_CLASS: u32 = 1;
/// The futex class of condition-variable waiters (requeued onto the word, or on the condition
/// variable's own word).
pub(crate) const COND_CLASS: u32 = 2;
const BYPASS_ONE: u32 = 1 << BYPASS_SHIFT;
// The count never overflows its field.
const _: () = assert!(MUTEX_BYPASS_LIMIT < (u32::MAX >> BYPASS_SHIFT));

/// Rounds of exponential spinning (2, 4, 8 hints) a newcomer tries before yielding.
const SPIN_ROUNDS: u32 = if cfg!(loom) { 1 } else { 3 };
/// `sched_yield`s a newcomer tries after spinning, before it queues.
const YIELD_ROUNDS: u32 = if cfg!(loom) { 0 } else { 7 };
/// Reads of the outer word the head tries before it starts yielding.
const HEAD_SPINS: u32 = if cfg!(loom) { 1 } else { 128 };
/// `sched_yield`s the head tries after spinning, before it sleeps.
const HEAD_YIELDS: u32 = if cfg!(loom) { 0 } else { 16 };

/// The state a barging acquisition moves the word `s` to, or `None` if barging is not allowed
/// now (held, or the head has been overtaken [`MUTEX_BYPASS_LIMIT`] times). Clears the stale
/// `PARKED` and `REQUEUED` of a free word (see the module documentation).
#[inline]
fn barge(s: u32) -> Option<u32> {
    if s & LOCKED != 0 {
        None
    } else if s & HEAD == 0 {
        Some(acquired(s))
    } else if bypasses(s) < MUTEX_BYPASS_LIMIT {
        Some(acquired(s) + BYPASS_ONE)
    } else if s & ASLEEP != 0 {
        Some(acquired(s))
    } else {
        None
    }
}

/// The free word `s` taken without counting a bypass: `LOCKED` set, the stale `PARKED` and
/// `REQUEUED` (whose wake-ups the last unlock issued) cleared.
#[inline]
fn acquired(s: u32) -> u32 {
    (s & !(PARKED | REQUEUED)) | LOCKED
}

/// How long a head waits before it makes the word refuse barging, if [`MUTEX_BYPASS_LIMIT`]
/// barging acquisitions have not done so first. (30 µs was measured too: no fairness gained at
/// 64 threads, and 0.86x instead of 1.0x parking_lot at 2 threads with 10 µs sections.)
pub const MUTEX_PATIENCE: std::time::Duration = std::time::Duration::from_micros(100);

/// When the head's wait began (under loom, nothing: patience is by count alone there).
#[cfg(not(loom))]
fn patience_start() -> std::time::Instant {
    std::time::Instant::now()
}

/// Whether a head that began waiting at `since` has waited out [`MUTEX_PATIENCE`].
#[cfg(not(loom))]
fn patience_over(since: std::time::Instant) -> bool {
    since.elapsed() >= MUTEX_PATIENCE
}

#[cfg(loom)]
fn patience_start() {}

#[cfg(loom)]
fn patience_over((): ()) -> bool {
    false
}

/// Wakes the sleeping head, by the address of the word only (it may be freed by now).
#[cold]
fn wake_head(word: *const u32) {
    wake_bitset_address(word, 1, HEAD_CLASS);
}

/// Wakes one requeued condition-variable waiter, by the address of the word only.
#[cold]
fn wake_requeued(word: *const u32) {
    wake_bitset_address(word, 1, COND_CLASS);
}

/// Whether the word `s` refuses barging because its head has been overtaken enough.
#[inline]
fn impatient(s: u32) -> bool {
    s & (HEAD | ASLEEP) == HEAD && bypasses(s) >= MUTEX_BYPASS_LIMIT
}

/// Barging acquisitions counted against the current head in the word `s`.
#[inline]
fn bypasses(s: u32) -> u32 {
    s >> BYPASS_SHIFT
}

/// The raw lock behind [`Mutex`]: see the module documentation.
///
/// Layout (`repr(C)`): the outer word in bytes 0..4, the inner queue's tail in bytes 4..8;
/// both zero when unlocked. Every byte is an atomic: `&self` of an `unlock` that is still
/// running then asserts nothing that the next owner's freeing of the lock could violate.
#[derive(Debug)]
#[repr(C)]
pub struct RawMutex {
    state: AtomicU32,
    queue: Queue,
}

#[cfg(not(loom))]
const _: () = assert!(core::mem::size_of::<RawMutex>() == 8);

/// The default mutex of welltempered: [`lock_api::Mutex`] over [`RawMutex`].
#[cfg(not(loom))]
pub type Mutex<T> = lock_api::Mutex<RawMutex, T>;

/// The guard of [`Mutex`].
#[cfg(not(loom))]
pub type MutexGuard<'a, T> = lock_api::MutexGuard<'a, RawMutex, T>;

/// A [`MutexGuard`] mapped to a part of the data (`MutexGuard::map`).
#[cfg(not(loom))]
pub type MappedMutexGuard<'a, T> = lock_api::MappedMutexGuard<'a, RawMutex, T>;

impl Default for RawMutex {
    fn default() -> Self {
        Self::new()
    }
}

impl RawMutex {
    /// An unlocked lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            state: AtomicU32::new(0),
            queue: Queue::new(),
        }
    }

    /// An unlocked lock.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            state: AtomicU32::new(0),
            queue: Queue::new(),
        }
    }

    /// Acquires the lock.
    #[inline]
    pub fn lock(&self) {
        // Acquire: the critical section must see the previous holder's writes.
        if self
            .state
            .compare_exchange_weak(0, LOCKED, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            self.lock_slow();
        }
    }

    /// Acquires the lock if it is free; returns whether it did. Never fails on a free lock
    /// (POSIX's `pthread_mutex_trylock` may report `EBUSY` only for a mutex that is held, and
    /// the preload library maps this to it): a `try_lock` counts against a waiting head's
    /// bypass bound like a barging `lock`, and still takes a free lock once the bound is
    /// reached, so the bound is on `lock`'s barging (a thread polling with `try_lock` races the
    /// head for a free lock, as with any barging mutex).
    #[inline]
    pub fn try_lock(&self) -> bool {
        let mut s = self.state.load(Ordering::Relaxed);
        loop {
            if s & LOCKED != 0 {
                return false;
            }
            // Counted while under the bound; past it, taken uncounted.
            let next = barge(s).unwrap_or_else(|| acquired(s));
            match self
                .state
                .compare_exchange_weak(s, next, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => s = now,
            }
        }
    }

    /// Releases the lock, waking the head if it sleeps.
    ///
    /// # Safety
    ///
    /// The lock must be held, by this or (no thread-local state is involved) any other thread
    /// that took over the holder's duty to release it.
    #[inline]
    pub unsafe fn unlock(&self) {
        // Taken before the release: afterwards the lock may be freed (see the module docs).
        let word = core::ptr::from_ref(&self.state).cast::<u32>();
        // Release: publishes the critical section to the next acquirer. LOCKED is set (the
        // caller holds the lock), so subtracting it clears exactly that bit, in one
        // read-modify-write whatever else the word holds.
        let prev = self.state.fetch_sub(LOCKED, Ordering::Release);
        debug_assert!(prev & LOCKED != 0, "unlock of an unlocked mutex");
        if prev & (PARKED | REQUEUED) != 0 {
            Self::unlock_wake(word, prev);
        }
    }

    /// The wake-ups an unlock owes, by the word's address only: the head if it may sleep, a
    /// requeued condition-variable waiter if the holder marked one.
    #[cold]
    #[inline(never)]
    fn unlock_wake(word: *const u32, prev: u32) {
        if prev & PARKED != 0 {
            wake_head(word);
        }
        if prev & REQUEUED != 0 {
            wake_requeued(word);
        }
    }

    /// The address of the word requeued condition-variable waiters sleep on.
    #[cfg(not(loom))]
    pub(crate) fn word(&self) -> *const u32 {
        core::ptr::from_ref(&self.state).cast::<u32>()
    }

    /// Makes the holder's unlock wake one requeued condition-variable waiter (see the module
    /// documentation). Only the holder calls it.
    #[cfg(not(loom))]
    pub(crate) fn mark_requeued(&self) {
        // Relaxed: read only by this thread's own unlock (program order).
        let prev = self.state.fetch_or(REQUEUED, Ordering::Relaxed);
        debug_assert!(prev & LOCKED != 0, "REQUEUED set on a free mutex");
    }

    /// Releases the lock and, if a head waits, gives it the next turn: the word is left
    /// refusing barging (as if the head had been overtaken [`MUTEX_BYPASS_LIMIT`] times), so
    /// the next `lock` to succeed is the head's (a `try_lock`, which takes any free lock, may
    /// still come first). Without a head, a plain unlock.
    ///
    /// # Safety
    ///
    /// As for [`RawMutex::unlock`].
    pub unsafe fn unlock_fair(&self) {
        // Taken before the release: afterwards the lock may be freed (see the module docs).
        let word = core::ptr::from_ref(&self.state).cast::<u32>();
        let mut s = self.state.load(Ordering::Relaxed);
        loop {
            debug_assert!(s & LOCKED != 0, "unlock of an unlocked mutex");
            let next = if s & HEAD != 0 {
                HEAD | (MUTEX_BYPASS_LIMIT << BYPASS_SHIFT)
            } else {
                s & !(LOCKED | PARKED | REQUEUED)
            };
            // Release: publishes the critical section to the next acquirer. This path may
            // clear PARKED and REQUEUED itself (it rewrites the word anyway); it owes their
            // wake-ups as `unlock` does.
            match self
                .state
                .compare_exchange_weak(s, next, Ordering::Release, Ordering::Relaxed)
            {
                Ok(_) => break,
                Err(now) => s = now,
            }
        }
        if s & (PARKED | REQUEUED) != 0 {
            Self::unlock_wake(word, s);
        }
    }

    /// Acquires the lock, waiting at most until `deadline`; returns whether it did. Barges
    /// as `lock` does (so it never takes the turn of an impatient head), spinning, yielding and
    /// then sleeping in short steps between attempts; it does not join the queue, whose
    /// positions cannot be abandoned, so timed acquisitions are not FIFO.
    #[cfg(not(loom))]
    pub fn try_lock_until(&self, deadline: std::time::Instant) -> bool {
        crate::wait::poll_until(deadline, || {
            self.try_barge(self.state.load(Ordering::Relaxed)).is_ok()
        })
    }

    /// Whether the lock is held (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.state.load(Ordering::Relaxed) & LOCKED != 0
    }

    /// Whether a head is waiting for the outer word (a momentary snapshot; for tests).
    pub fn has_head(&self) -> bool {
        self.state.load(Ordering::Relaxed) & HEAD != 0
    }

    /// Whether the word refuses barging now: a head waits, awake, and has been overtaken
    /// [`MUTEX_BYPASS_LIMIT`] times or waited longer than [`MUTEX_PATIENCE`] (a momentary
    /// snapshot; once true it stays so until the head has the lock).
    pub fn head_is_due(&self) -> bool {
        impatient(self.state.load(Ordering::Relaxed))
    }

    /// Whether the waiting head sleeps, so that the next unlock must wake it (a momentary
    /// snapshot; for tests).
    pub fn head_sleeps(&self) -> bool {
        self.state.load(Ordering::Relaxed) & PARKED != 0
    }

    /// How many barging acquisitions have overtaken the waiting head so far (a momentary
    /// snapshot; 0 when no head waits).
    pub fn bypass_count(&self) -> u32 {
        bypasses(self.state.load(Ordering::Relaxed))
    }

    /// Barges if the word allows it; `Err` carries the word that refused.
    #[inline]
    fn try_barge(&self, mut s: u32) -> Result<(), u32> {
        while let Some(next) = barge(s) {
            match self
                .state
                .compare_exchange_weak(s, next, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return Ok(()),
                Err(now) => s = now,
            }
        }
        Err(s)
    }

    #[cold]
    fn lock_slow(&self) {
        // Newcomer: spin, then yield, barging whenever the word allows.
        let mut round = 0;
        while round < SPIN_ROUNDS + YIELD_ROUNDS {
            let s = match self.try_barge(self.state.load(Ordering::Relaxed)) {
                Ok(()) => return,
                Err(s) => s,
            };
            if impatient(s) {
                // The head is about to take its turn (the unlock that made the word free woke
                // it if it slept): wait for that without using up this thread's rounds, so a
                // hand-over does not push every running thread into the queue. Yield, since
                // oversubscribed, the head may need this core.
                yield_now();
                continue;
            }
            round += 1;
            if round <= SPIN_ROUNDS {
                for _ in 0..(1u32 << round) {
                    spin_loop();
                }
            } else {
                yield_now();
            }
        }
        // Queue: the inner lock's order decides who becomes head.
        let token = self.queue.lock();
        self.lock_as_head();
        // The head's turn is over, and the next queued thread, if any, is about to become
        // head (it may be asleep, or not even scheduled, for a while). Set `HEAD` again for it,
        // with the count at zero, so that barging stays counted and bounded in that window
        // too: with the word clear, every arriving thread could take the lock, without limit,
        // until the successor ran and announced itself, and on an oversubscribed machine that
        // lasts scheduler time slices (measured: the queue then barely moved, and one thread
        // made 80 to 170 times the acquisitions of another at 64 threads on 2 CPUs). Set while
        // this thread holds the outer lock, so no one else writes `HEAD` concurrently; the
        // successor's own `fetch_or` finds it set, and its acquisition clears it. The queue
        // calls this exactly when a successor exists (decided by the read-modify-write of its
        // release); one that queues later finds the queue free and announces itself at once.
        // Relaxed: a hint to bargers, ordered for them by the CAS that takes the word.
        // SAFETY: `token` is from `queue.lock()` just above, released once; the head role ends
        // with the outer lock acquired, so the next head may start.
        unsafe {
            self.queue.unlock_noting_successor(token, || {
                self.state.fetch_or(HEAD, Ordering::Relaxed);
            });
        };
    }

    /// The head's wait for the outer word. Returns holding it.
    fn lock_as_head(&self) {
        // Announce the head; Relaxed, the CAS that acquires below carries the Acquire.
        let mut s = self.state.fetch_or(HEAD, Ordering::Relaxed) | HEAD;
        let mut spins = 0;
        let since = patience_start();
        loop {
            if s & LOCKED == 0 {
                // The head may always take a free word; doing so ends its turn and resets the
                // bypass count and PARKED (nobody else sets either).
                match self.state.compare_exchange_weak(
                    s,
                    LOCKED,
                    Ordering::Acquire,
                    Ordering::Relaxed,
                ) {
                    Ok(_) => return,
                    Err(now) => {
                        s = now;
                        continue;
                    }
                }
            }
            if spins < HEAD_SPINS {
                spin_loop();
                spins += 1;
                s = self.state.load(Ordering::Relaxed);
                continue;
            }
            // From here on each round is a system call (a yield or a sleep), and a yield may
            // give the CPU away for a while when threads outnumber CPUs: check the patience
            // before each.
            if !impatient(s) && patience_over(since) {
                // Waited out its patience: the word refuses barging from now on, as if the
                // count had reached the bound.
                let next = (s & (BYPASS_ONE - 1)) | (MUTEX_BYPASS_LIMIT << BYPASS_SHIFT);
                if !self.head_update(&mut s, next) {
                    continue;
                }
            }
            if spins < HEAD_SPINS + HEAD_YIELDS {
                // Oversubscribed, the holder may be waiting for this core.
                yield_now();
                spins += 1;
                s = self.state.load(Ordering::Relaxed);
                continue;
            }
            // Held: ask the unlocker to wake us, and let barging go on while we sleep unless
            // it is our turn.
            let want = if impatient(s) {
                PARKED
            } else {
                PARKED | ASLEEP
            };
            let next = (s & !ASLEEP) | want;
            if next != s && !self.head_update(&mut s, next) {
                continue;
            }
            wait_bitset(&self.state, s, None, HEAD_CLASS);
            // Awake (woken, or the word changed before we slept): barging counts again, and
            // the spinning starts over. Relaxed: a hint to bargers, as `HEAD` is.
            s = self.state.fetch_and(!ASLEEP, Ordering::Relaxed) & !ASLEEP;
            spins = 0;
        }
    }

    /// The head's own changes of the word: moves it from `*s` to `next` and returns `true`,
    /// or returns `false` with `*s` the word found. Relaxed: hints to bargers and the futex
    /// value; the CAS that acquires carries the Acquire.
    fn head_update(&self, s: &mut u32, next: u32) -> bool {
        match self
            .state
            .compare_exchange_weak(*s, next, Ordering::Relaxed, Ordering::Relaxed)
        {
            Ok(_) => {
                *s = next;
                true
            }
            Err(now) => {
                *s = now;
                false
            }
        }
    }
}

#[cfg(not(loom))]
// SAFETY: every acquiring path (the fast CAS, `try_barge`, the head's CAS) returns only after
// this thread's CAS set LOCKED in a word where it was clear, and only `unlock` clears it, so at
// most one guard exists at a time.
unsafe impl lock_api::RawMutex for RawMutex {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = Self::new();
    type Guard = lock_api::GuardSend;

    #[inline]
    fn lock(&self) -> Self::Guard {
        RawMutex::lock(self);
        lock_api::GuardSend::new()
    }

    #[inline]
    fn try_lock(&self) -> Option<Self::Guard> {
        RawMutex::try_lock(self).then(lock_api::GuardSend::new)
    }

    #[inline]
    unsafe fn unlock(&self, _guard: Self::Guard) {
        // SAFETY: the guard proves the lock is held (the trait's contract).
        unsafe { RawMutex::unlock(self) }
    }

    #[inline]
    fn is_locked(&self) -> bool {
        RawMutex::is_locked(self)
    }
}

#[cfg(not(loom))]
// SAFETY: `unlock_fair` releases as `unlock` does (one release RMW that clears LOCKED); it
// only differs in which waiter may take the lock next.
unsafe impl lock_api::RawMutexFair for RawMutex {
    #[inline]
    unsafe fn unlock_fair(&self, _guard: Self::Guard) {
        // SAFETY: the guard proves the lock is held (the trait's contract).
        unsafe { RawMutex::unlock_fair(self) }
    }
}

#[cfg(not(loom))]
// SAFETY: every success is a barging acquisition (`try_barge`), which sets LOCKED by a CAS in a
// word where it was clear, as `lock` does.
unsafe impl lock_api::RawMutexTimed for RawMutex {
    type Duration = std::time::Duration;
    type Instant = std::time::Instant;

    fn try_lock_for(&self, timeout: Self::Duration) -> Option<Self::Guard> {
        match std::time::Instant::now().checked_add(timeout) {
            Some(deadline) => <Self as lock_api::RawMutexTimed>::try_lock_until(self, deadline),
            None => Some(<Self as lock_api::RawMutex>::lock(self)),
        }
    }

    fn try_lock_until(&self, deadline: Self::Instant) -> Option<Self::Guard> {
        RawMutex::try_lock_until(self, deadline).then(lock_api::GuardSend::new)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn unlock_fair_leaves_the_turn_to_the_head() {
        let m = RawMutex::new();
        // A head waits and sleeps, overtaken 3 times: a fair unlock makes the word refuse
        // barging, so only the head's own CAS (which any free word allows) takes it next.
        m.state.store(
            LOCKED | HEAD | PARKED | (3 << BYPASS_SHIFT),
            Ordering::Relaxed,
        );
        // SAFETY: held (the word says so, and no other thread uses `m`).
        unsafe { m.unlock_fair() };
        let s = m.state.load(Ordering::Relaxed);
        assert_eq!(s & (LOCKED | PARKED), 0);
        assert!(impatient(s) && barge(s).is_none(), "word {s:#x}");
        // Without a head, a fair unlock is a plain one.
        m.state.store(LOCKED, Ordering::Relaxed);
        // SAFETY: as above.
        unsafe { m.unlock_fair() };
        assert_eq!(m.state.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn timed_lock_times_out_and_never_takes_an_impatient_heads_turn() {
        use lock_api::RawMutexTimed as _;
        let m = RawMutex::new();
        let short = std::time::Duration::from_millis(2);
        assert!(<RawMutex as lock_api::RawMutexTimed>::try_lock_for(&m, short).is_some());
        // Held: the timed attempt gives up.
        assert!(m.try_lock_for(short).is_none());
        // SAFETY: held since the timed lock above.
        unsafe { m.unlock() };
        // Free, but the head's turn: a timed lock (a barging one) must not take it.
        let impatient_free = HEAD | (MUTEX_BYPASS_LIMIT << BYPASS_SHIFT);
        m.state.store(impatient_free, Ordering::Relaxed);
        assert!(m.try_lock_for(short).is_none());
        assert_eq!(m.state.load(Ordering::Relaxed), impatient_free);
    }

    #[test]
    fn barge_counts_and_refuses_at_the_bound() {
        // No head: barging is free and uncounted.
        assert_eq!(barge(0), Some(LOCKED));
        assert_eq!(barge(LOCKED), None);
        // A head waits (and sleeps): every barge counts, the bound refuses the next one.
        let mut s = HEAD | PARKED;
        let mut barged = 0;
        while let Some(next) = barge(s) {
            // HEAD stays; the stale PARKED (the last unlock woke the head) is cleared.
            assert_eq!(next & (HEAD | PARKED), HEAD);
            assert_eq!(barge(next), None, "a held word cannot be barged");
            barged += 1;
            s = next - LOCKED; // the barger's unlock
            assert!(barged <= MUTEX_BYPASS_LIMIT);
        }
        assert_eq!(barged, MUTEX_BYPASS_LIMIT);
        assert_eq!(bypasses(s), MUTEX_BYPASS_LIMIT);
    }

    #[test]
    fn a_sleeping_head_lets_barging_go_on_uncounted() {
        // The head sleeps (ASLEEP) and has been overtaken the bound: barging goes on, uncounted,
        // and leaves ASLEEP for the head to clear when it runs.
        let at_bound = HEAD | (MUTEX_BYPASS_LIMIT << BYPASS_SHIFT);
        let s = at_bound | ASLEEP | PARKED;
        assert!(!impatient(s));
        assert_eq!(barge(s), Some(at_bound | ASLEEP | LOCKED));
        // Awake again, the same count refuses.
        assert!(impatient(at_bound));
        assert_eq!(barge(at_bound), None);
        // Below the bound, a sleeping head's overtakes are counted as an awake one's.
        assert_eq!(
            barge(HEAD | ASLEEP),
            Some(HEAD | ASLEEP | LOCKED | BYPASS_ONE)
        );
    }

    #[test]
    fn a_head_that_outwaits_its_patience_is_due() {
        // This thread holds the lock for longer than the head's patience, then barges once
        // (allowed while the head sleeps). The head, woken by the unlock, finds the lock held
        // again and, its patience over, makes the word refuse barging: the overtakes counted
        // are 1, yet the word is due. The waits below are for events, never for time.
        let m = Mutex::new(0u32);
        let raw = &m;
        let g = m.lock();
        std::thread::scope(|s| {
            s.spawn(|| *m.lock() += 1);
            // SAFETY: only snapshots are read through it.
            let word = unsafe { raw.raw() };
            while !word.head_sleeps() {
                std::thread::yield_now();
            }
            std::thread::sleep(MUTEX_PATIENCE * 2);
            drop(g);
            let g = m.lock();
            if *g == 0 {
                // Barged (the head was still asleep or waking): one overtake, far below the
                // bound, yet the head becomes due while this thread holds the lock.
                while !word.head_is_due() {
                    std::thread::yield_now();
                }
                drop(g);
                // The next `lock` is the head's turn.
                assert_eq!(*m.lock(), 1);
            }
        });
        assert_eq!(*m.lock(), 1);
    }

    #[test]
    fn try_lock_takes_a_free_lock_even_past_the_bound() {
        let m = RawMutex::new();
        // A free word whose (pretend) head has been overtaken the maximum number of times:
        // `lock` would not barge, but `try_lock` must not fail on a free lock.
        let impatient_free = HEAD | (MUTEX_BYPASS_LIMIT << BYPASS_SHIFT);
        m.state.store(impatient_free, Ordering::Relaxed);
        assert!(impatient(impatient_free) && barge(impatient_free).is_none());
        assert!(m.try_lock());
        assert!(!m.try_lock(), "held now");
        // SAFETY: held since the successful `try_lock`.
        unsafe { m.unlock() };
        assert_eq!(m.state.load(Ordering::Relaxed), impatient_free);
    }

    #[test]
    fn unlock_touches_the_word_once() {
        // The unlocker's one read-modify-write clears LOCKED and nothing else (so nothing of
        // the lock is accessed after the release but its address, for the wake-up): PARKED,
        // whose wake-up it issued, is left for the next acquisition to clear.
        let m = RawMutex::new();
        m.state.store(
            LOCKED | HEAD | PARKED | (3 << BYPASS_SHIFT),
            Ordering::Relaxed,
        );
        // SAFETY: held (the word says so, and no other thread uses `m`).
        unsafe { m.unlock() };
        let s = m.state.load(Ordering::Relaxed);
        assert_eq!(s, HEAD | PARKED | (3 << BYPASS_SHIFT));
        // The next barging acquisition counts itself and clears the stale bit.
        assert_eq!(barge(s), Some(HEAD | LOCKED | (4 << BYPASS_SHIFT)));
        // So does a `try_lock`.
        assert!(m.try_lock());
        assert_eq!(
            m.state.load(Ordering::Relaxed),
            HEAD | LOCKED | (4 << BYPASS_SHIFT)
        );
        // SAFETY: held since the successful `try_lock`.
        unsafe { m.unlock() };
    }

    #[test]
    fn zero_is_unlocked_and_small() {
        assert!(size_of::<RawMutex>() <= 40);
        // SAFETY: `RawMutex` is atomics whose all-zero value is the unlocked state.
        let m: RawMutex = unsafe { core::mem::zeroed() };
        assert!(!m.is_locked());
        assert!(m.try_lock());
        assert!(!m.try_lock());
        // SAFETY: held since the successful `try_lock`.
        unsafe { m.unlock() };
        assert!(!m.is_locked() && !m.has_head());
    }

    #[test]
    fn excludes() {
        let m = Mutex::new(0u64);
        let (threads, iters) = if cfg!(miri) { (3, 50) } else { (8, 20_000) };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for i in 0..iters {
                        let mut g = m.lock();
                        *g += 1;
                        if i % 128 == 0 {
                            // Hold across a yield now and then so that heads and sleepers occur.
                            std::thread::yield_now();
                        }
                    }
                });
            }
        });
        assert_eq!(*m.lock(), threads * iters);
        assert!(!m.is_locked());
    }
}
