//! A phase-fair reader-writer lock: Brandenburg and Anderson's PF-T lock, its writers ordered by
//! a barging FIFO mutex rather than a ticket, with upgradable reads, downgrades, timed
//! acquisitions, and spin-then-sleep waiting.
//!
//! Source: B. B. Brandenburg and J. H. Anderson, "Reader-Writer Synchronization for
//! Shared-Memory Multiprocessor Real-Time Systems", ECRTS 2009, and its journal version
//! "Spin-Based Reader-Writer Synchronization for Multiprocessor Real-Time Systems",
//! Real-Time Systems 46(1), 2010 (<https://doi.org/10.1007/s11241-010-9097-2>): the PF-T lock.
//!
//! # Guarantees
//!
//! *Phase-fair* (with one bounded exception): reader phases and writer phases alternate while
//! both kinds wait.
//!
//! * A reader that arrives while a writer holds (or waits for) the lock enters as soon as that
//!   one writer leaves, before any later writer. The exception: a reader that is about to sleep
//!   gives its place back, at most [`READER_GIVE_BACKS`] (2) times, and counts in again when
//!   that writer has left (see [`RawRwLock::lock_shared`] for why). So a reader waits out at
//!   most three writer phases, and a stream of writers cannot starve readers.
//! * A writer announces itself on arrival at the head of the writer queue; readers that arrive
//!   after the announcement wait, so the writer waits only for the readers already inside: a
//!   stream of readers cannot starve writers.
//! * Writers (and upgradable readers, which hold a writer's place) are ordered among
//!   themselves by the crate's default mutex, a Fissile lock (see [`crate::Mutex`]): a writer
//!   that finds no other writer takes its place at once, and those that cannot are served in
//!   FIFO order, the first of them, while awake, overtaken by at most
//!   [`MUTEX_BYPASS_LIMIT`](crate::MUTEX_BYPASS_LIMIT) newcomers and by none once it has
//!   waited [`MUTEX_PATIENCE`](crate::MUTEX_PATIENCE). The paper's PF-T orders
//!   writers with a ticket lock, strictly FIFO; when threads outnumber cores a ticket hands the
//!   writer's place to a thread that is not running, and every writer behind it, and every
//!   reader it then shuts out, waits for the scheduler: with a ticket this lock ran at
//!   0.03-0.4x parking_lot's at 4 to 64 threads on 2 cores (`welltempered mutex --workload
//!   read50,read90,read99`), where it now runs at about 1x. Phase-fairness is untouched: it is
//!   about readers and the writer phases, whoever the writer is.
//! * Timed acquisitions of the write and upgradable forms retry without joining the writers'
//!   queue (a place in it cannot be abandoned), and a timed upgrade retries without announcing
//!   itself (a writer phase must not end before the readers it counted left); a timed read is
//!   phase-fair as above.
//!
//! # The words
//!
//! Two 32-bit words and the writers' mutex, 16 bytes, all zero when new:
//!
//! * `rin`: readers that arrived, counted in units of `RINC` (bits 8 and up), and in the
//!   low bits the writer's `PRES` bit and the phase bit `PHID` (together `WBITS`), plus
//!   `RSLEEP`, set by a thread that sleeps on `rin` until `WBITS` change.
//! * `rout`: readers that left, in the same units, plus `WSLEEP`, set by the writer that
//!   sleeps on `rout` until the readers it waits for have left.
//! * `writers`: the default [`RawMutex`](crate::mutex::RawMutex) (8 bytes), held by the
//!   writer or upgradable reader whose turn it is.
//!
//! A reader adds `RINC` to `rin`; if `PRES` was clear it is in, otherwise it waits until
//! `WBITS` change (the writer left, or the next writer flipped the phase bit). A writer takes the
//! writers' mutex, waits for the previous writer's `PRES` to be cleared, sets `PRES`
//! and flips `PHID` in one `fetch_xor`, and waits until `rout` counts every reader that `rin`
//! counted before. The phase bit is flipped per writer phase, not taken from the ticket number
//! as in the paper's listing (there is no ticket here, and a ticket given back by a failed `try`
//! would leave no phase: with ticket parity, two consecutive writer phases could show a waiting
//! reader the same bits,
//! and the second writer would wait for that reader forever). A reader that gives up (a timed
//! read) while the writer it saw is still present takes its count back from `rin`, where no
//! writer has counted it yet; once the phase changed it was let in and leaves through `rout`.
//! Unlocking a write releases the writers' mutex first (the next writer then waits for `PRES`
//! to clear) and clears `PRES` last, so that one read-modify-write lets anyone in;
//! after it the unlocking thread touches only the lock's address (a futex wake-up), so another
//! thread may free the lock as soon as it can acquire it (pthreads' rule, kept by every lock of
//! this crate). Reader unlock is one `fetch_add` on `rout` for the same reason.
//!
//! The sleep bits live in the word that is waited on, so a waiter and the thread that changes
//! the word need no fence: the waiter sets its bit with a compare-and-swap and sleeps only while
//! the word holds exactly that value; every change to the word either comes later in the word's
//! modification order (and sees the bit) or makes the sleep return at once.
//!
//! Waiting spins [`SPIN_PAUSES`](crate::SPIN_PAUSES) pauses (a few microseconds) and then
//! sleeps, so the lock does not collapse when threads outnumber cores. It has no `sched_yield`
//! phase, unlike the mutexes' [`SpinThenPark`](crate::SpinThenPark): a reader that waits out a
//! writer phase, or a writer that waits for readers, waits for a thread that may not be
//! running, and yielding in a loop for tens of microseconds only turned the waits into
//! context switches. Measured with `welltempered mutex --workload read90,read99 --threads
//! 4,16` (2 cores, 5 paired repetitions): with the yielding spin the lock made 0.01-0.05
//! context switches per acquisition and ran at 0.5-0.9x parking_lot's; without it, 1e-4-4e-4
//! and 0.9-1.3x.
//!
//! More than 2^22 readers inside at once (reachable only by leaking guards) would overflow the
//! count: [`RawRwLock::lock_shared`] panics first, without holding the lock.

use crate::futex;
use crate::mutex::RawMutex as WriterMutex;
use crate::sync::{AtomicU32, Ordering, spin_loop};
use crate::wait::SPIN_PAUSES;

#[cfg(not(loom))]
mod api;

/// One reader in `rin` and `rout`.
const RINC: u32 = 0x100;
/// A writer is present (holds the lock or waits for readers to leave).
const PRES: u32 = 0b010;
/// The phase bit, flipped by every writer as it announces itself.
const PHID: u32 = 0b001;
/// `PRES | PHID`.
const WBITS: u32 = PRES | PHID;
/// Someone sleeps on `rin` waiting for `WBITS` to change.
const RSLEEP: u32 = 0b100;
/// The reader counts of `rin` and `rout`.
const COUNT: u32 = !0xFF;
/// The writer sleeps on `rout` waiting for readers to leave.
const WSLEEP: u32 = 0b1;
/// How many times a waiting reader that is about to sleep may give its place back (see
/// [`RawRwLock::lock_shared`]).
pub const READER_GIVE_BACKS: u32 = 2;
/// Readers inside or waiting at which [`RawRwLock::lock_shared`] panics rather than let the
/// count approach its wrap-around.
const MAX_READERS: u32 = 1 << 22;

/// The phase-fair reader-writer lock behind [`RwLock`] (see the module documentation).
///
/// ```
/// use welltempered_lock::RwLock;
///
/// let lock = RwLock::new(vec![1, 2]);
/// {
///     let a = lock.read();
///     let b = lock.read(); // readers share
///     assert_eq!(a.len() + b.len(), 4);
/// }
/// lock.write().push(3);
/// assert_eq!(*lock.read(), [1, 2, 3]);
/// ```
#[derive(Debug)]
#[repr(C)]
pub struct RawRwLock {
    rin: AtomicU32,
    rout: AtomicU32,
    writers: WriterMutex,
}

#[cfg(not(loom))]
const _: () = assert!(core::mem::size_of::<RawRwLock>() == 16);

/// A reader-writer lock over [`RawRwLock`]: phase-fair, with upgradable reads.
///
/// ```
/// use welltempered_lock::{RwLock, RwLockUpgradableReadGuard};
///
/// let lock = RwLock::new(0);
/// let up = lock.upgradable_read(); // shares with readers, excludes writers
/// assert_eq!(*lock.read(), 0);
/// let mut w = RwLockUpgradableReadGuard::upgrade(up);
/// *w += 1;
/// drop(w);
/// assert_eq!(*lock.read(), 1);
/// ```
#[cfg(not(loom))]
pub type RwLock<T> = lock_api::RwLock<RawRwLock, T>;
/// The shared guard of [`RwLock`].
#[cfg(not(loom))]
pub type RwLockReadGuard<'a, T> = lock_api::RwLockReadGuard<'a, RawRwLock, T>;
/// The exclusive guard of [`RwLock`].
#[cfg(not(loom))]
pub type RwLockWriteGuard<'a, T> = lock_api::RwLockWriteGuard<'a, RawRwLock, T>;
/// The upgradable guard of [`RwLock`].
#[cfg(not(loom))]
pub type RwLockUpgradableReadGuard<'a, T> = lock_api::RwLockUpgradableReadGuard<'a, RawRwLock, T>;
/// A [`RwLockReadGuard`] mapped to a part of the data.
#[cfg(not(loom))]
pub type MappedRwLockReadGuard<'a, T> = lock_api::MappedRwLockReadGuard<'a, RawRwLock, T>;
/// A [`RwLockWriteGuard`] mapped to a part of the data.
#[cfg(not(loom))]
pub type MappedRwLockWriteGuard<'a, T> = lock_api::MappedRwLockWriteGuard<'a, RawRwLock, T>;

impl Default for RawRwLock {
    fn default() -> Self {
        Self::new()
    }
}

/// Waits until `done` holds for the value of `word`: spins, then sleeps with `bit` set in the
/// word. Returns `false` if `deadline` passed first.
#[inline]
fn wait_word(
    word: &AtomicU32,
    bit: u32,
    deadline: Option<std::time::Instant>,
    done: impl Fn(u32) -> bool,
) -> bool {
    spin_word(word, deadline, &done) || sleep_word(word, bit, deadline, done)
}

/// The spin phase of [`wait_word`]: whether `done` came to hold within
/// [`SPIN_PAUSES`] pauses (and before `deadline`). No `sched_yield` phase follows, unlike the
/// mutexes' [`SpinThenPark`](crate::SpinThenPark): see the module documentation.
#[inline]
fn spin_word(
    word: &AtomicU32,
    deadline: Option<std::time::Instant>,
    done: impl Fn(u32) -> bool,
) -> bool {
    if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
        return false;
    }
    for _ in 0..SPIN_PAUSES {
        // Acquire: what the thread that made `done` true wrote before it is visible on return.
        if done(word.load(Ordering::Acquire)) {
            return true;
        }
        spin_loop();
    }
    done(word.load(Ordering::Acquire))
}

/// The sleep phase of [`wait_word`]: sleeps with `bit` set in `word` until `done` holds
/// (`true`) or `deadline` passes (`false`).
#[inline]
fn sleep_word(
    word: &AtomicU32,
    bit: u32,
    deadline: Option<std::time::Instant>,
    done: impl Fn(u32) -> bool,
) -> bool {
    loop {
        let v = word.load(Ordering::Acquire);
        if done(v) {
            return true;
        }
        let timeout = match deadline {
            None => None,
            Some(d) => match d.checked_duration_since(std::time::Instant::now()) {
                Some(left) if !left.is_zero() => Some(left),
                _ => return false,
            },
        };
        // Relaxed: the bit carries no data; the sleep's value check orders it.
        if v & bit == 0
            && word
                .compare_exchange_weak(v, v | bit, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            continue;
        }
        futex::wait(word, v | bit, timeout);
    }
}

impl RawRwLock {
    /// An unlocked lock.
    #[cfg(not(loom))]
    pub const fn new() -> Self {
        Self {
            rin: AtomicU32::new(0),
            rout: AtomicU32::new(0),
            writers: WriterMutex::new(),
        }
    }

    /// An unlocked lock.
    #[cfg(loom)]
    pub fn new() -> Self {
        Self {
            rin: AtomicU32::new(0),
            rout: AtomicU32::new(0),
            writers: WriterMutex::new(),
        }
    }

    /// The address of a word, for a wake-up after the operation that may let another thread
    /// free the lock.
    #[inline]
    fn addr(word: &AtomicU32) -> *const u32 {
        #[cfg(not(loom))]
        {
            word.as_ptr()
        }
        #[cfg(loom)]
        {
            let _ = word;
            core::ptr::null()
        }
    }

    /// Wakes every sleeper on `word` by its address alone (see [`futex::wake_address`]).
    #[inline]
    fn wake_all_at(word: *const u32) {
        #[cfg(not(loom))]
        futex::wake_address(word, u32::MAX);
        #[cfg(loom)]
        let _ = word;
    }

    /// Whether the count in `prev` (the value of `rin` before this thread's increment) says
    /// too many readers are inside or waiting.
    #[inline]
    fn too_many_readers(&self, prev: u32) -> bool {
        // Relaxed: a bound, not a synchronisation; `rout` only grows, so a stale value errs
        // on the side of the panic, and only near the bound.
        // `rout` is read after `prev`, so readers that came and went since then can make it the
        // larger: the difference is read as signed, and only a large positive one counts.
        let out = self.rout.load(Ordering::Relaxed) & COUNT;
        let inside = ((prev & COUNT).wrapping_sub(out) as i32) / RINC as i32;
        inside >= MAX_READERS as i32
    }

    /// Counts this thread as a reader that left; wakes a writer sleeping on the count.
    #[inline]
    fn leave_reader(&self) {
        let addr = Self::addr(&self.rout);
        // Release: the read section happens before the writer that waits for this count.
        // After it, only `addr` is touched: the writer may now enter and free the lock.
        let prev = self.rout.fetch_add(RINC, Ordering::Release);
        if prev & WSLEEP != 0 {
            Self::wake_all_at(addr);
        }
    }

    /// Enters as a reader: counts in, then waits out the phase of a present writer, giving
    /// its place back before it sleeps (see [`lock_shared`](Self::lock_shared)).
    #[inline]
    fn enter_reader(&self, deadline: Option<std::time::Instant>) -> bool {
        let mut give_backs = 0;
        loop {
            // Acquire: reads the value a leaving writer released (or a later one of the same
            // release sequence), so its writes are visible when PRES was clear.
            let prev = self.rin.fetch_add(RINC, Ordering::Acquire);
            let w = prev & WBITS;
            if self.too_many_readers(prev) {
                self.withdraw(w);
                panic!("RwLock reader count overflow: more than 2^22 readers inside at once");
            }
            let changed = |v: u32| v & WBITS != w;
            if w & PRES == 0 || spin_word(&self.rin, deadline, changed) {
                return true;
            }
            if give_backs < READER_GIVE_BACKS {
                if !self.take_back(w) {
                    // The writer left (or the next one announced itself) meanwhile: let in.
                    return true;
                }
                give_backs += 1;
                if !sleep_word(&self.rin, RSLEEP, deadline, changed) {
                    return false;
                }
                continue;
            }
            if sleep_word(&self.rin, RSLEEP, deadline, changed) {
                return true;
            }
            self.withdraw(w);
            return false;
        }
    }

    /// Takes this thread's reader count off `rin` if the writer bits are still `w`, the bits
    /// its increment saw with `PRES` set, and returns whether it did. While those bits are
    /// unchanged no writer has counted this reader (the present one counted before it, the
    /// next one has not announced itself); once they changed the reader was let in.
    #[inline]
    fn take_back(&self, w: u32) -> bool {
        // Acquire (the load and a failed exchange): a `false` lets the reader in, and the value
        // with changed bits comes from the writer's release (or a later read-modify-write of
        // its release sequence: every write to `rin` is one).
        let mut v = self.rin.load(Ordering::Acquire);
        while v & WBITS == w {
            // Relaxed on success: nothing was read under the lock.
            match self.rin.compare_exchange_weak(
                v,
                v.wrapping_sub(RINC),
                Ordering::Relaxed,
                Ordering::Acquire,
            ) {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
        false
    }

    /// Undoes this thread's reader count, whose increment of `rin` saw writer bits `w`: takes
    /// it back from `rin` if no writer has counted it (see [`take_back`](Self::take_back)),
    /// otherwise leaves through `rout`.
    #[inline]
    fn withdraw(&self, w: u32) {
        if w & PRES != 0 && self.take_back(w) {
            return;
        }
        self.leave_reader();
    }

    /// Acquires a shared (read) lock.
    ///
    /// A reader that finds a writer present waits for that writer phase to end. If its spin
    /// runs out first, it gives its place back before it sleeps, at most
    /// [`READER_GIVE_BACKS`] times, and counts in again once the writer it saw has left. A
    /// counted reader that sleeps holds up the next writer until the scheduler runs it again:
    /// when threads outnumber cores that is a hand-over to a thread that is not running at
    /// every writer phase. Giving the place back keeps the hand-over with the running threads;
    /// the bound keeps the guarantee: a reader waits out at most `READER_GIVE_BACKS + 1`
    /// writer phases.
    #[inline]
    pub fn lock_shared(&self) {
        self.enter_reader(None);
    }

    /// Acquires a shared lock if no writer is present; never waits.
    #[inline]
    pub fn try_lock_shared(&self) -> bool {
        let mut v = self.rin.load(Ordering::Relaxed);
        loop {
            if v & PRES != 0 || self.too_many_readers(v) {
                return false;
            }
            // Acquire: as in `enter_reader`.
            match self
                .rin
                .compare_exchange_weak(v, v + RINC, Ordering::Acquire, Ordering::Relaxed)
            {
                Ok(_) => return true,
                Err(now) => v = now,
            }
        }
    }

    /// Releases a shared lock.
    ///
    /// # Safety
    ///
    /// The caller holds a shared lock of this lock, acquired by any thread.
    #[inline]
    pub unsafe fn unlock_shared(&self) {
        self.leave_reader();
    }

    /// Takes the writers' mutex: this thread's turn among writers and upgradable readers.
    #[inline]
    fn take_turn(&self) {
        // The mutex's acquire orders this holder after the previous one.
        self.writers.lock();
    }

    /// Takes the writers' mutex only if no other writer or upgradable reader holds it.
    #[inline]
    fn try_take_turn(&self) -> bool {
        self.writers.try_lock()
    }

    /// Gives the writers' mutex to the next writer. Nobody is let into a section by it alone
    /// (a writer that takes it then waits for `PRES` to clear), so a `&self` that outlives it
    /// is still safe; after the operation that lets someone in, only addresses are touched.
    #[inline]
    fn give_turn(&self) {
        // SAFETY: this thread took the writers' mutex (`take_turn` or `try_take_turn`), and
        // every caller gives it back once.
        unsafe { self.writers.unlock() };
    }

    /// Gives the writers' mutex to the first queued writer, refusing newcomers (lock_api's
    /// fair unlock).
    #[inline]
    fn give_turn_fair(&self) {
        // SAFETY: as in `give_turn`.
        unsafe { self.writers.unlock_fair() };
    }

    /// Waits until the previous writer has cleared `PRES` (it gives up its turn first).
    /// Called with the turn.
    #[inline]
    fn wait_bits_clear(&self) {
        wait_word(&self.rin, RSLEEP, None, |v| v & PRES == 0);
    }

    /// With the turn and `PRES` set by this thread (when `rin` read `prev`), waits until every
    /// reader counted in `prev` has left.
    #[inline]
    fn drain(&self, prev: u32, deadline: Option<std::time::Instant>) -> bool {
        let target = prev & COUNT;
        let done = wait_word(&self.rout, WSLEEP, deadline, |v| v & COUNT == target);
        // Only this thread sets WSLEEP; readers that leave meanwhile (after a timeout) do not
        // mind whether it is set.
        if self.rout.load(Ordering::Relaxed) & WSLEEP != 0 {
            self.rout.fetch_and(!WSLEEP, Ordering::Relaxed);
        }
        done
    }

    /// Clears the writer bits, letting readers (and the next writer) in; wakes sleepers. After
    /// it the lock may be freed by another thread: only its address is touched.
    #[inline]
    fn clear_writer_bits(&self) {
        let addr = Self::addr(&self.rin);
        // Release: the write section happens before the readers and the next writer.
        let prev = self.rin.fetch_and(!(PRES | RSLEEP), Ordering::Release);
        if prev & RSLEEP != 0 {
            Self::wake_all_at(addr);
        }
    }

    /// Acquires the exclusive (write) lock.
    #[inline]
    pub fn lock_exclusive(&self) {
        self.take_turn();
        self.wait_bits_clear();
        // AcqRel: announces the writer in a new phase (readers arriving later wait) and reads
        // the count of readers already in, which `drain` waits out.
        let prev = self.rin.fetch_xor(WBITS, Ordering::AcqRel);
        self.drain(prev, None);
    }

    /// Acquires the exclusive lock if no one holds or waits for the lock; never waits.
    #[inline]
    pub fn try_lock_exclusive(&self) -> bool {
        if !self.try_take_turn() {
            return false;
        }
        let r = self.rin.load(Ordering::Relaxed);
        // Acquire: the readers that left released their sections here.
        let out = self.rout.load(Ordering::Acquire);
        if r & PRES == 0
            && r & COUNT == out & COUNT
            // Acquire: synchronises with the previous writer's release of `rin`.
            && self
                .rin
                .compare_exchange(r, r ^ WBITS, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
        {
            return true;
        }
        // Nobody is let into a section by giving the turn back (PRES was not set).
        self.give_turn();
        false
    }

    /// Releases the exclusive lock.
    ///
    /// # Safety
    ///
    /// The caller holds the exclusive lock of this lock, acquired by any thread.
    #[inline]
    pub unsafe fn unlock_exclusive(&self) {
        // The next writer waits for PRES to clear, so giving it the turn first lets nobody in.
        self.give_turn();
        self.clear_writer_bits();
    }

    /// Releases the exclusive lock, giving the writers' turn to the first queued writer
    /// rather than to a newcomer (the readers that wait enter as with
    /// [`unlock_exclusive`](Self::unlock_exclusive): phase-fairness needs no help).
    ///
    /// # Safety
    ///
    /// As for [`unlock_exclusive`](Self::unlock_exclusive).
    #[inline]
    pub unsafe fn unlock_exclusive_fair(&self) {
        self.give_turn_fair();
        self.clear_writer_bits();
    }

    /// Acquires an upgradable read: shared with readers, exclusive with writers and other
    /// upgradable reads (it holds the writers' turn).
    #[inline]
    pub fn lock_upgradable(&self) {
        self.take_turn();
        // With the turn, no writer can set PRES; a previous writer's is waited out here.
        self.enter_reader(None);
    }

    /// Acquires an upgradable read if no writer or upgradable read holds or waits; never
    /// waits.
    #[inline]
    pub fn try_lock_upgradable(&self) -> bool {
        if !self.try_take_turn() {
            return false;
        }
        if self.try_lock_shared() {
            return true;
        }
        self.give_turn();
        false
    }

    /// Releases an upgradable read.
    ///
    /// # Safety
    ///
    /// The caller holds an upgradable read of this lock.
    #[inline]
    pub unsafe fn unlock_upgradable(&self) {
        // No writer waits on the count while this thread holds the turn, so leaving as a
        // reader lets no one in; giving the turn last is the one release that does.
        self.rout.fetch_add(RINC, Ordering::Release);
        self.give_turn();
    }

    /// Releases an upgradable read, giving the writers' turn to the first queued writer rather
    /// than to a newcomer.
    ///
    /// # Safety
    ///
    /// As for [`unlock_upgradable`](Self::unlock_upgradable).
    #[inline]
    pub unsafe fn unlock_upgradable_fair(&self) {
        // As in `unlock_upgradable`.
        self.rout.fetch_add(RINC, Ordering::Release);
        self.give_turn_fair();
    }

    /// Upgrades an upgradable read to the exclusive lock, waiting for the other readers.
    ///
    /// # Safety
    ///
    /// The caller holds an upgradable read of this lock.
    #[inline]
    pub unsafe fn upgrade(&self) {
        // AcqRel: as in `lock_exclusive`; this thread's own read is counted in `prev` and
        // leaves just below. With the turn held, PRES is clear.
        let prev = self.rin.fetch_xor(WBITS, Ordering::AcqRel);
        self.rout.fetch_add(RINC, Ordering::Relaxed);
        self.drain(prev, None);
    }

    /// Upgrades an upgradable read if it is the only reader; never waits.
    ///
    /// # Safety
    ///
    /// The caller holds an upgradable read of this lock.
    #[inline]
    pub unsafe fn try_upgrade(&self) -> bool {
        let r = self.rin.load(Ordering::Relaxed);
        // Acquire: the readers that left released their sections here.
        let out = self.rout.load(Ordering::Acquire);
        if (r & COUNT).wrapping_sub(out & COUNT) != RINC {
            return false;
        }
        // Success means no reader entered since `r`, so all but this one have left.
        if self
            .rin
            .compare_exchange(r, r ^ WBITS, Ordering::Relaxed, Ordering::Relaxed)
            .is_err()
        {
            return false;
        }
        self.rout.fetch_add(RINC, Ordering::Relaxed);
        true
    }

    /// Turns the exclusive lock into a shared one, letting other readers in.
    ///
    /// # Safety
    ///
    /// The caller holds the exclusive lock of this lock.
    #[inline]
    pub unsafe fn downgrade(&self) {
        // Counted as a reader while PRES still keeps everyone out; this thread's read then
        // keeps the lock alive through the release below.
        self.rin.fetch_add(RINC, Ordering::Relaxed);
        self.give_turn();
        self.clear_writer_bits();
    }

    /// Turns the exclusive lock into an upgradable read.
    ///
    /// # Safety
    ///
    /// The caller holds the exclusive lock of this lock.
    #[inline]
    pub unsafe fn downgrade_to_upgradable(&self) {
        self.rin.fetch_add(RINC, Ordering::Relaxed);
        self.clear_writer_bits();
    }

    /// Turns an upgradable read into a plain shared one, letting the next writer queue for the
    /// readers to leave.
    ///
    /// # Safety
    ///
    /// The caller holds an upgradable read of this lock.
    #[inline]
    pub unsafe fn downgrade_upgradable(&self) {
        self.give_turn();
    }

    /// Whether the lock is held or claimed in any mode (a momentary snapshot).
    #[inline]
    pub fn is_locked(&self) -> bool {
        let r = self.rin.load(Ordering::Relaxed);
        let out = self.rout.load(Ordering::Relaxed);
        r & PRES != 0 || r & COUNT != out & COUNT
    }

    /// Whether a writer holds the lock (a momentary snapshot): its bits are set and no reader
    /// is left inside.
    #[inline]
    pub fn is_locked_exclusive(&self) -> bool {
        let r = self.rin.load(Ordering::Relaxed);
        let out = self.rout.load(Ordering::Relaxed);
        r & PRES != 0 && r & COUNT == out & COUNT
    }
}

#[cfg(not(loom))]
impl RawRwLock {
    /// Acquires a shared lock, waiting at most until `deadline` (phase-fair as `lock_shared`).
    pub fn try_lock_shared_until(&self, deadline: std::time::Instant) -> bool {
        self.enter_reader(Some(deadline))
    }

    /// Acquires the exclusive lock, waiting at most until `deadline`. It retries
    /// [`try_lock_exclusive`](Self::try_lock_exclusive) (spinning, yielding, then sleeping in
    /// short steps) rather than queueing for a turn it could not give back, so it is not FIFO.
    pub fn try_lock_exclusive_until(&self, deadline: std::time::Instant) -> bool {
        crate::wait::poll_until(deadline, || self.try_lock_exclusive())
    }

    /// Acquires an upgradable read, waiting at most until `deadline` (by retries, as
    /// [`try_lock_exclusive_until`](Self::try_lock_exclusive_until)).
    pub fn try_lock_upgradable_until(&self, deadline: std::time::Instant) -> bool {
        crate::wait::poll_until(deadline, || self.try_lock_upgradable())
    }

    /// Upgrades an upgradable read, waiting at most until `deadline` for it to be the only
    /// reader; on a timeout the upgradable read is still held. It retries
    /// [`try_upgrade`](Self::try_upgrade) rather than announcing itself as a writer: a writer
    /// phase that ended without waiting for the readers it counted would let the phase bit
    /// come back to a value that a reader which slept through both phases still waits to
    /// change. So readers that keep arriving can make it time out.
    ///
    /// # Safety
    ///
    /// The caller holds an upgradable read of this lock.
    pub unsafe fn try_upgrade_until(&self, deadline: std::time::Instant) -> bool {
        crate::wait::poll_until(deadline, || {
            // SAFETY: forwarded from the caller; a failed try leaves the upgradable read held.
            unsafe { self.try_upgrade() }
        })
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn is_thirty_two_zero_bytes() {
        assert_eq!(core::mem::size_of::<RawRwLock>(), 16);
        let l = RawRwLock::new();
        assert!(!l.is_locked() && !l.is_locked_exclusive());
    }

    #[test]
    fn readers_share_and_writers_exclude() {
        let l = RawRwLock::new();
        l.lock_shared();
        assert!(l.try_lock_shared());
        assert!(!l.try_lock_exclusive());
        assert!(l.is_locked() && !l.is_locked_exclusive());
        // SAFETY: two shared locks are held.
        unsafe {
            l.unlock_shared();
            l.unlock_shared();
        }
        assert!(!l.is_locked());
        assert!(l.try_lock_exclusive());
        assert!(l.is_locked_exclusive());
        assert!(!l.try_lock_shared() && !l.try_lock_upgradable());
        // SAFETY: held exclusively.
        unsafe { l.unlock_exclusive() };
        assert!(!l.is_locked());
    }

    #[test]
    fn upgradable_excludes_writers_and_upgradables_only() {
        let l = RawRwLock::new();
        l.lock_upgradable();
        assert!(l.try_lock_shared());
        assert!(!l.try_lock_upgradable() && !l.try_lock_exclusive());
        // SAFETY: the upgradable read and one shared lock are held.
        unsafe {
            assert!(!l.try_upgrade(), "another reader is inside");
            l.unlock_shared();
            assert!(l.try_upgrade());
        }
        assert!(l.is_locked_exclusive());
        // SAFETY: held exclusively, then as an upgradable read, then shared.
        unsafe {
            l.downgrade_to_upgradable();
            assert!(l.try_lock_shared());
            l.unlock_shared();
            l.downgrade_upgradable();
            assert!(l.try_lock_upgradable(), "the turn was given back");
            l.unlock_upgradable();
            l.unlock_shared();
        }
        assert!(!l.is_locked());
    }

    #[test]
    fn timed_forms_time_out_and_leave_no_trace() {
        use std::time::{Duration, Instant};
        let l = RawRwLock::new();
        l.lock_exclusive();
        let soon = Instant::now() + Duration::from_millis(5);
        assert!(!l.try_lock_shared_until(soon));
        assert!(!l.try_lock_upgradable_until(soon));
        assert!(!l.try_lock_exclusive_until(soon));
        // SAFETY: held exclusively.
        unsafe { l.unlock_exclusive() };
        assert!(!l.is_locked(), "the timed-out reader withdrew its count");
        l.lock_upgradable();
        l.lock_shared();
        // SAFETY: the upgradable read and a shared lock are held.
        unsafe {
            assert!(!l.try_upgrade_until(Instant::now() + Duration::from_millis(5)));
            // The failed upgrade kept the upgradable read and shut no reader out.
            assert!(l.try_lock_shared());
            l.unlock_shared();
            l.unlock_shared();
            assert!(l.try_upgrade_until(Instant::now() + Duration::from_secs(5)));
            l.unlock_exclusive();
        }
        assert!(!l.is_locked());
    }
}
