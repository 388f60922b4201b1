//! Ticket lock: Reed & Kanodia, "Synchronization with eventcounts and sequencers" (CACM 1979);
//! Mellor-Crummey & Scott (TOCS 1991) section 2.2. A thread takes a ticket from `next` with
//! fetch-and-add and waits until `serving` shows it; unlock advances `serving`.
//!
//! Guarantees: FIFO admission (in ticket order); global spinning (every waiter polls `serving`,
//! the Hemlock paper's reason ticket locks fade under contention); not lock-free. Space: lock
//! body 8 bytes (two 32-bit counters), all-zero when unlocked; nothing per thread. Counters wrap
//! at 2^32, so up to 2^31 waiters are told apart.
//!
//! Tickets advance in steps of 2: bit 0 of `serving` is the park form's "a sleeper may be here"
//! flag, so a release is one atomic swap that both advances `serving` and tells the releaser
//! whether to wake anyone. After that swap the releaser touches the lock body only to pass its
//! address to `futex_wake` (a kernel lookup key, not a memory access), so a lock freed by the
//! next owner right after the hand-over is never read.
//!
//! Park form ([`TicketPark`]): the thread whose turn is next spins
//! [`SPIN_WINDOW`](crate::SPIN_WINDOW) and then sleeps; threads further back sleep at once. A
//! sleeper sets the flag and sleeps on `serving` itself. Wake-ups are broadcast: every release
//! that finds the flag wakes *all* sleepers (a futex cannot pick the one holding the next
//! ticket); those whose turn has not come set the flag again and go back to sleep.

use crate::stats::{StatKind, record_acquire};
use crate::sync::{AtomicU32, Ordering};
use crate::wait::{Spin, SpinThenPark, Wait, impl_raw_mutex};
use core::marker::PhantomData;

/// Bit 0 of `serving`: a waiter sleeps (or is about to) on `serving`.
const PARKED: u32 = 1;
/// The distance between consecutive tickets.
const STEP: u32 = 2;

/// The ticket lock, generic over its waiting policy.
///
/// ```
/// use welltempered_lock::{Ticket, TicketPark};
///
/// let m = lock_api::Mutex::<Ticket, _>::new(1);
/// let p = lock_api::Mutex::<TicketPark, _>::new(2);
/// assert_eq!(*m.lock() + *p.lock(), 3);
/// ```
pub struct Ticket<W: Wait = Spin> {
    next: AtomicU32,
    serving: AtomicU32,
    _wait: PhantomData<fn() -> W>,
}

/// [`Ticket`] with spin-then-park waiting (broadcast wake-ups).
pub type TicketPark = Ticket<SpinThenPark>;

impl<W: Wait> Default for Ticket<W> {
    fn default() -> Self {
        Self::new()
    }
}

impl<W: Wait> core::fmt::Debug for Ticket<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Ticket")
            .field("wait", &W::NAME)
            .field("locked", &self.is_locked())
            .finish()
    }
}

impl<W: Wait> Ticket<W> {
    /// An unlocked lock (all-zero).
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Ticket {
            next: AtomicU32::new(0),
            serving: AtomicU32::new(0),
            _wait: PhantomData,
        }
    }

    /// An unlocked lock (all-zero).
    #[cfg(loom)]
    pub fn new() -> Self {
        Ticket {
            next: AtomicU32::new(0),
            serving: AtomicU32::new(0),
            _wait: PhantomData,
        }
    }

    /// Acquires the lock, waiting in FIFO (ticket) order.
    #[inline]
    pub fn lock(&self) {
        // Relaxed: the ticket only orders us; `serving` carries the synchronisation.
        let my = self.next.fetch_add(STEP, Ordering::Relaxed);
        // Acquire: the previous holder's critical section happens-before ours.
        let mine = || self.serving.load(Ordering::Acquire) & !PARKED == my;
        if mine() {
            record_acquire(StatKind::Ticket, false);
            return;
        }
        self.wait_for_turn(my);
        record_acquire(StatKind::Ticket, true);
    }

    /// The contended half of [`lock`](Self::lock): waits until `serving` reaches ticket `my`.
    /// Out of line, so that the uncontended path, inlined, saves no registers for it.
    #[inline(never)]
    fn wait_for_turn(&self, my: u32) {
        // Acquire: the previous holder's critical section happens-before ours.
        let mine = || self.serving.load(Ordering::Acquire) & !PARKED == my;
        if !W::PARKS {
            W::spin(mine);
        } else {
            loop {
                let s = self.serving.load(Ordering::Acquire);
                if s & !PARKED == my {
                    break;
                }
                let next_up = my.wrapping_sub(s & !PARKED) == STEP;
                if next_up && W::spin(mine) {
                    break;
                }
                self.park(my);
            }
        }
    }

    /// One sleep on `serving` with the PARKED flag set; may return spuriously.
    fn park(&self, my: u32) {
        let s = self.serving.load(Ordering::Acquire);
        if s & !PARKED == my {
            return;
        }
        if s & PARKED == 0
            && self
                .serving
                .compare_exchange(s, s | PARKED, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        // The releaser's swap either saw the flag (and wakes us) or changed the word first (and
        // the wait returns at once): the word is the condition, so no wake-up is lost.
        crate::futex::wait(&self.serving, s | PARKED, None);
    }

    /// Acquires the lock if it is free; never waits.
    #[inline]
    pub fn try_lock(&self) -> bool {
        // Acquire: the previous holder's Release store of `serving` (the value we read) makes
        // its critical section happen-before ours if the CAS below succeeds.
        let s = self.serving.load(Ordering::Acquire) & !PARKED;
        let ok = self
            .next
            .compare_exchange(
                s,
                s.wrapping_add(STEP),
                Ordering::Relaxed,
                Ordering::Relaxed,
            )
            .is_ok();
        if ok {
            record_acquire(StatKind::Ticket, false);
        }
        ok
    }

    /// Releases the lock to the holder of the next ticket.
    ///
    /// # Safety
    ///
    /// The calling thread must hold this lock (acquired by `lock` or a successful `try_lock`,
    /// and not yet released).
    #[inline]
    pub unsafe fn unlock(&self) {
        // Relaxed: only the holder writes the ticket part, and we hold the lock.
        let s = self.serving.load(Ordering::Relaxed);
        let next = (s & !PARKED).wrapping_add(STEP);
        if W::PARKS {
            // Taken before the release: afterwards the lock may be freed.
            let word = core::ptr::from_ref(&self.serving).cast::<u32>();
            // Release: our critical section happens-before the next holder's.
            let old = self.serving.swap(next, Ordering::Release);
            if old & PARKED != 0 {
                crate::futex::wake_address(word, u32::MAX);
            }
        } else {
            // Release: as above. A spin-form lock never has the flag set.
            self.serving.store(next, Ordering::Release);
        }
    }

    /// Whether some thread holds the lock (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        self.next.load(Ordering::Relaxed) != self.serving.load(Ordering::Relaxed) & !PARKED
    }

    /// An opaque value that changes whenever a thread joins the queue (the next ticket), for
    /// tests and diagnostics that must know a waiter has enqueued.
    #[inline]
    pub fn queue_probe(&self) -> usize {
        self.next.load(Ordering::Relaxed) as usize
    }
}

impl_raw_mutex!(Ticket);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    const ITERS: u64 = if cfg!(miri) { 20 } else { 5_000 };

    #[test]
    fn exclusion_spin() {
        // As many threads as cores: with more, a preempted waiter stalls a spinning FIFO queue
        // for a time slice at each turn (slow, not wrong; the park form below takes 4).
        crate::test_util::hammer(&Ticket::<Spin>::new(), 2, ITERS);
    }

    #[test]
    fn exclusion_park() {
        crate::test_util::hammer(&Ticket::<SpinThenPark>::new(), 4, ITERS);
    }

    #[test]
    fn try_lock_and_zero_body() {
        assert_eq!(core::mem::size_of::<Ticket>(), 8);
        let l = Ticket::<SpinThenPark>::new();
        assert!(l.try_lock());
        assert!(l.is_locked());
        assert!(!l.try_lock());
        // SAFETY: locked above.
        unsafe { l.unlock() };
        assert!(!l.is_locked());
        assert!(l.try_lock());
        // SAFETY: locked above.
        unsafe { l.unlock() };
    }

    #[test]
    fn counters_wrap() {
        let l = Ticket::<Spin>::new();
        l.next.store(u32::MAX - 1, Ordering::Relaxed);
        l.serving.store(u32::MAX - 1, Ordering::Relaxed);
        for _ in 0..4 {
            l.lock();
            // SAFETY: locked above.
            unsafe { l.unlock() };
        }
        assert!(!l.is_locked());
        assert_eq!(l.next.load(Ordering::Relaxed), 6);
    }
}
