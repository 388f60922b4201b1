//! Release, then touch nothing: once an unlock's releasing operation is done, another thread
//! may take the lock, release it, and free the memory that holds it (legal for a
//! `pthread_mutex_t`, which the preload library embeds our locks in; glibc bug 13690 is this
//! race in glibc's own mutex). So an unlock may use the lock's address after that point (for
//! a futex wake-up), but never read or write the lock again.
//!
//! Each round, several threads lock a heap-allocated lock once, and the last of them to get it
//! frees it right after its own unlock, while the others may still be inside theirs. A lock
//! that touches its body after releasing it is a use after free: Miri reports it, most
//! reliably with several schedules (`-Zmiri-many-seeds`, as CI runs this file). Natively the
//! test only exercises the path.
//!
//! [`HemlockAh`](welltempered_lock::HemlockAh) is left out on purpose: its Aggressive
//! Hand-over stores into the lock *after* handing it over, the hazard its documentation states;
//! the lock must stay allocated until its unlock returns.
//!
//! A fourth thread, in the rounds of the default [`RawMutex`], barges in with `try_lock` while
//! the head sleeps: the shape of the race in which the Fissile unlock used to clear the
//! `PARKED` bit after its release.

#![cfg(not(loom))]

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use welltempered_lock as wl;

/// A lock and a count of the threads that held it, on the heap.
struct Shared<L> {
    lock: L,
    holders: UnsafeCell<usize>,
}

/// The address of a [`Shared`], moved into the threads.
struct Ptr<L>(*mut Shared<L>);
impl<L> Clone for Ptr<L> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<L> Copy for Ptr<L> {}
// SAFETY: the pointee is a lock (Sync) and a counter accessed only under it.
unsafe impl<L> Send for Ptr<L> {}

/// One thread's part: lock once, count itself, unlock; the last one frees the lock.
///
/// # Safety
///
/// `p` points to a live `Shared` that `threads` threads use this way, nothing else.
unsafe fn take_turn<L: lock_api::RawMutex>(p: Ptr<L>, threads: usize) {
    // SAFETY: live until the last thread frees it, which happens after our unlock's release
    // (it needs the lock after us); we do not use `lock` after `unlock`.
    let lock = unsafe { &(*p.0).lock };
    let guard = lock.lock();
    // SAFETY: under the lock.
    let last = unsafe {
        let n = &mut *(*p.0).holders.get();
        *n += 1;
        *n == threads
    };
    // SAFETY: the guard of the acquisition above, on this thread.
    unsafe { lock.unlock(guard) };
    if last {
        // SAFETY: every other thread has had its turn (they counted before us); their unlocks
        // may still be running, which is the point.
        drop(unsafe { Box::from_raw(p.0) });
    }
}

fn rounds() -> usize {
    if cfg!(miri) { 3 } else { 200 }
}

fn last_one_frees<L: lock_api::RawMutex + Send + Sync + 'static>() {
    let threads = 3;
    for _ in 0..rounds() {
        let p = Ptr(Box::into_raw(Box::new(Shared {
            lock: L::INIT,
            holders: UnsafeCell::new(0),
        })));
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                thread::spawn(move || {
                    let p = p;
                    // SAFETY: `threads` threads, this protocol only.
                    unsafe { take_turn(p, threads) }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}

macro_rules! release_then_free {
    ($($name:ident: $ty:ty,)*) => {$(
        #[test]
        fn $name() {
            last_one_frees::<$ty>();
        }
    )*};
}

release_then_free! {
    hemlock: wl::Hemlock,
    hemlock_park: wl::HemlockPark,
    hemlock_overlap: wl::HemlockOverlap,
    hemlock_overlap_park: wl::HemlockOverlapPark,
    mcs: wl::Mcs,
    mcs_park: wl::McsPark,
    clh: wl::Clh,
    clh_park: wl::ClhPark,
    ticket: wl::Ticket,
    ticket_park: wl::TicketPark,
    tas: wl::Tas,
    ttas: wl::Ttas,
    ttas_yield: wl::TtasYield,
    futex: wl::Futex,
    two_phase: wl::TwoPhase,
    mutex: wl::RawMutex,
}

/// The default mutex's race: the holder unlocks while the head waits (and perhaps sleeps), a
/// barger takes and releases the lock (waking the head), and the head takes it and frees it;
/// the holder's and the barger's unlocks may still be running.
#[test]
fn mutex_freed_by_the_woken_head_while_a_barger_unlocks() {
    /// The address of the lock, moved into the threads.
    #[derive(Clone, Copy)]
    struct RawPtr(*mut wl::RawMutex);
    // SAFETY: the pointee is a lock (Sync).
    unsafe impl Send for RawPtr {}

    for _ in 0..if cfg!(miri) { 10 } else { 200 } {
        let p = RawPtr(Box::into_raw(Box::new(wl::RawMutex::new())));
        let barged = Arc::new(AtomicBool::new(false));
        // SAFETY: live: only the head frees it, after its last lock, which comes after ours.
        let m = unsafe { &*p.0 };
        m.lock();
        let b = barged.clone();
        let head = thread::spawn(move || {
            let p = p;
            // SAFETY: freed by this thread only, at the end.
            let m = unsafe { &*p.0 };
            loop {
                m.lock();
                let done = b.load(Ordering::SeqCst);
                // SAFETY: held, on this thread.
                unsafe { m.unlock() };
                if done {
                    break;
                }
                thread::yield_now();
            }
            // The barger set the flag while holding the lock, before its unlock, and the holder
            // unlocked before anyone else could lock; neither locks again, though both unlocks
            // may still be running.
            // SAFETY: allocated above by `Box::into_raw`, and nobody locks it again.
            drop(unsafe { Box::from_raw(p.0) });
        });
        // Let the head queue up and go to sleep before the release, and the barger try.
        while !m.head_sleeps() {
            thread::yield_now();
        }
        let b = barged.clone();
        let barger = thread::spawn(move || {
            let p = p;
            // SAFETY: freed only after the flag below is set and seen under the lock.
            let m = unsafe { &*p.0 };
            while !m.try_lock() {
                thread::yield_now();
            }
            b.store(true, Ordering::SeqCst);
            // SAFETY: held, on this thread.
            unsafe { m.unlock() };
        });
        // SAFETY: held since `lock` above. After this, `m` may be freed at any time.
        unsafe { m.unlock() };
        head.join().unwrap();
        barger.join().unwrap();
    }
}

/// The reader-writer lock: each thread takes it in one of its forms (read, write, upgradable
/// then upgrade, write then downgrade), and the last to count itself takes a write, which
/// waits for the others' releases, and frees the lock right after its unlock.
#[test]
fn rwlock_last_one_frees() {
    use std::sync::atomic::AtomicUsize;

    struct RwShared {
        lock: wl::RawRwLock,
        holders: AtomicUsize,
    }
    #[derive(Clone, Copy)]
    struct RwPtr(*mut RwShared);
    // SAFETY: the pointee is a lock (Sync) and an atomic counter.
    unsafe impl Send for RwPtr {}

    let threads = 4;
    for _ in 0..rounds() {
        let p = RwPtr(Box::into_raw(Box::new(RwShared {
            lock: wl::RawRwLock::new(),
            holders: AtomicUsize::new(0),
        })));
        let handles: Vec<_> = (0..threads)
            .map(|form| {
                thread::spawn(move || {
                    let p = p;
                    // SAFETY: live until the last thread frees it, which happens after every
                    // other thread's release; nobody uses `lock` after its own unlock.
                    let lock = unsafe { &(*p.0).lock };
                    // SAFETY: as `lock`; the count is read only while the lock is held.
                    let holders = unsafe { &(*p.0).holders };
                    // SAFETY: in each form, each unlock matches the acquisition before it.
                    let last = unsafe {
                        match form {
                            0 => {
                                lock.lock_shared();
                                let n = holders.fetch_add(1, Ordering::SeqCst);
                                lock.unlock_shared();
                                n
                            }
                            1 => {
                                lock.lock_exclusive();
                                let n = holders.fetch_add(1, Ordering::SeqCst);
                                lock.unlock_exclusive();
                                n
                            }
                            2 => {
                                lock.lock_upgradable();
                                lock.upgrade();
                                let n = holders.fetch_add(1, Ordering::SeqCst);
                                lock.unlock_exclusive();
                                n
                            }
                            _ => {
                                lock.lock_exclusive();
                                lock.downgrade();
                                let n = holders.fetch_add(1, Ordering::SeqCst);
                                lock.unlock_shared();
                                n
                            }
                        }
                    } + 1
                        == threads;
                    if last {
                        // Wait out every other holder's release, then free.
                        lock.lock_exclusive();
                        // SAFETY: held by this thread; afterwards `lock` is not used.
                        unsafe { lock.unlock_exclusive() };
                        // SAFETY: allocated by `Box::into_raw`; everyone else has released.
                        drop(unsafe { Box::from_raw(p.0) });
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}
