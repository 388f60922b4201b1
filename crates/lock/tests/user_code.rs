//! User code inside the locks' protocols.
//!
//! | where user code runs | panics | re-enters |
//! |---|---|---|
//! | the critical section (a guard is held) | `a_panic_in_the_critical_section_releases_every_kind` | `other_locks_inside_the_critical_section` |
//! | `mem::forget` of a guard (safe), then the thread exits | - | `a_thread_that_exits_holding_a_lock` |
//! | the global allocator, on a thread's first lock operation | - (a global allocator must not unwind) | `an_allocator_that_locks_on_a_threads_first_use` |
//! | a condition variable's `wait_while` predicate (the mutex held) | `a_panic_in_a_condvar_predicate` | `a_condvar_predicate_that_notifies_and_locks_another_mutex` |
//! | a reader-writer lock's read, write, upgradable or upgraded section | `a_panic_in_a_read_write_or_upgradable_section_releases_the_rwlock` | (as a mutex: deadlock, not undefined behaviour) |
//! | a reentrant mutex's nested critical section | `a_panic_in_a_nested_reentrant_section` | (nesting is its purpose: `remutex.rs`) |
//!
//! The locks run no other user code: `unlock` and the timed forms call nothing of the
//! caller's, and a condition variable's wait runs nothing of the caller's between its unlock
//! and its re-lock. A lock taken again by the thread that holds it deadlocks (these locks are
//! not reentrant, as `std`'s and parking_lot's are not; [`ReentrantMutex`] is); it is not
//! undefined behaviour.

#![cfg(not(loom))]

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use welltempered_lock::{Condvar, DynMutex, LockKind, Mutex, ReentrantMutex, dyn_mutex};

fn kinds() -> impl Iterator<Item = LockKind> {
    LockKind::ALL.into_iter()
}

#[test]
fn a_panic_in_the_critical_section_releases_every_kind() {
    for kind in kinds() {
        let m: DynMutex<Vec<u32>> = dyn_mutex(kind, Vec::new());
        let r = catch_unwind(AssertUnwindSafe(|| {
            let mut g = m.lock();
            g.push(1);
            panic!("in the critical section");
        }));
        assert!(r.is_err());
        std::thread::scope(|s| {
            s.spawn(|| m.lock().push(2));
        });
        assert_eq!(*m.lock(), [1, 2], "{kind}");
    }
}

#[test]
fn other_locks_inside_the_critical_section() {
    // Every kind held together with every other (a Hemlock Grant waited on for several locks
    // at once, several queue nodes per thread), from two threads taking them in one order.
    let locks: Vec<DynMutex<u64>> = kinds().map(|k| dyn_mutex(k, 0)).collect();
    let rounds = if cfg!(miri) { 3 } else { 500 };
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                for _ in 0..rounds {
                    let mut guards: Vec<_> = locks.iter().map(|l| l.lock()).collect();
                    for g in &mut guards {
                        **g += 1;
                    }
                    // Released in reverse order of acquisition.
                    while guards.pop().is_some() {}
                }
            });
        }
    });
    for (k, l) in kinds().zip(&locks) {
        assert_eq!(*l.lock(), 2 * rounds, "{k}");
    }
}

#[test]
fn a_thread_that_exits_holding_a_lock() {
    // Forgetting a guard is safe: the lock stays held after its thread is gone, and that
    // thread's Grants and queue nodes, given back at its exit and reused by later threads,
    // must not let anyone into it (nor disturb the later threads' own locks).
    for kind in kinds() {
        let held: DynMutex<()> = dyn_mutex(kind, ());
        let other: DynMutex<u64> = dyn_mutex(kind, 0);
        std::thread::scope(|s| {
            s.spawn(|| std::mem::forget(held.lock()));
        });
        let rounds = if cfg!(miri) { 2 } else { 50 };
        for _ in 0..rounds {
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        assert!(held.try_lock().is_none(), "{kind}: let into a held lock");
                        for _ in 0..20 {
                            *other.lock() += 1;
                        }
                    });
                }
            });
        }
        assert!(held.try_lock().is_none(), "{kind}");
        assert_eq!(*other.lock(), rounds * 40, "{kind}");
    }
}

// ---- A global allocator that locks one of our locks when armed. ----

mod locking_alloc {
    use super::*;
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    use std::sync::OnceLock;

    /// The system allocator, which first locks (and unlocks) `LOCKS[kind]` on a thread where
    /// it is armed: the allocator of a program that guards its own state with our locks.
    pub struct Locking;

    thread_local! {
        static ARMED: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// One lock per kind, made on first use (with the allocator disarmed).
    pub fn locks() -> &'static [DynMutex<usize>] {
        static LOCKS: OnceLock<Vec<DynMutex<usize>>> = OnceLock::new();
        LOCKS.get_or_init(|| LockKind::ALL.iter().map(|&k| dyn_mutex(k, 0)).collect())
    }

    /// Arms the allocator of this thread with the lock of `kind` (by index in `LockKind::ALL`).
    pub fn arm(kind: usize) {
        ARMED.with(|a| a.set(Some(kind)));
    }

    // SAFETY: every block comes from `System` with the caller's layout.
    unsafe impl GlobalAlloc for Locking {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            if let Ok(Some(k)) = ARMED.try_with(|a| a.get())
                && let Some(locks) = LOCKS_READY.get()
            {
                *locks[k].lock() += 1;
            }
            // SAFETY: forwarded.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded.
            unsafe { System.dealloc(ptr, layout) }
        }
    }

    /// Set once the locks exist (the allocator must not create them itself).
    pub static LOCKS_READY: OnceLock<&'static [DynMutex<usize>]> = OnceLock::new();
}

#[global_allocator]
static ALLOC: locking_alloc::Locking = locking_alloc::Locking;

#[test]
fn an_allocator_that_locks_on_a_threads_first_use() {
    // A fresh thread's first lock operation allocates its Grant or queue node; the allocator
    // locks a lock of the same kind, whose first use needs the same allocation: that must not
    // recurse forever, and both locks must work.
    let locks = locking_alloc::locks();
    let _ = locking_alloc::LOCKS_READY.set(locks);
    for (i, kind) in kinds().enumerate() {
        let m: DynMutex<u64> = dyn_mutex(kind, 0);
        let ok = AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                locking_alloc::arm(i);
                *m.lock() += 1;
                // Allocate while holding it, too.
                let v = std::hint::black_box(Box::new(1u8));
                *m.lock() += u64::from(*v);
                ok.store(true, Ordering::SeqCst);
            });
        });
        assert!(ok.load(Ordering::SeqCst));
        assert_eq!(*m.lock(), 2, "{kind}");
        assert!(
            *locks[i].lock() >= 1,
            "{kind}: the allocator's lock was never taken"
        );
    }
}

#[test]
fn a_panic_in_a_condvar_predicate() {
    let m = Mutex::new(0u32);
    let cv = Condvar::new();
    let r = catch_unwind(AssertUnwindSafe(|| {
        let mut g = m.lock();
        cv.wait_while(&mut g, |_| panic!("in the predicate"));
    }));
    assert!(r.is_err());
    // The guard was dropped by the unwind: the mutex is free, and the pair still works.
    assert!(!m.is_locked());
    std::thread::scope(|s| {
        s.spawn(|| {
            *m.lock() = 1;
            cv.notify_all();
        });
        let mut g = m.lock();
        cv.wait_while(&mut g, |v| *v == 0);
        assert_eq!(*g, 1);
    });
}

#[test]
fn a_condvar_predicate_that_notifies_and_locks_another_mutex() {
    let (m, other) = (Mutex::new(0u32), Mutex::new(0u32));
    let cv = Condvar::new();
    let mut g = m.lock();
    let r = cv.wait_while_for(
        &mut g,
        |v| {
            // Re-enters the same condition variable, and takes another lock.
            cv.notify_all();
            *other.lock() += 1;
            *v == 0
        },
        Duration::from_millis(2),
    );
    assert!(r.timed_out());
    assert!(*other.lock() >= 1);
    drop(g);
    assert!(!m.is_locked());
}

#[test]
fn a_panic_in_a_nested_reentrant_section() {
    let m = ReentrantMutex::new(std::cell::Cell::new(0u32));
    let r = catch_unwind(AssertUnwindSafe(|| {
        let _outer = m.lock();
        let inner = m.lock();
        inner.set(1);
        panic!("nested");
    }));
    assert!(r.is_err());
    // Both levels were released by the unwind: another thread can take it.
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(m.lock().get(), 1));
    });
    assert!(!m.is_locked());
}

#[test]
fn a_panic_in_a_read_write_or_upgradable_section_releases_the_rwlock() {
    use welltempered_lock::{RwLock, RwLockUpgradableReadGuard};
    let l = RwLock::new(0u32);
    for form in 0..4 {
        let r = catch_unwind(AssertUnwindSafe(|| match form {
            0 => {
                let _g = l.read();
                panic!("in a read section");
            }
            1 => {
                let mut g = l.write();
                *g += 1;
                panic!("in a write section");
            }
            2 => {
                let _g = l.upgradable_read();
                panic!("in an upgradable section");
            }
            _ => {
                let mut g = RwLockUpgradableReadGuard::upgrade(l.upgradable_read());
                *g += 1;
                panic!("in an upgraded section");
            }
        }));
        assert!(r.is_err());
        assert!(
            !l.is_locked(),
            "form {form}: left held by the unwinding guard"
        );
        std::thread::scope(|s| {
            s.spawn(|| *l.write() += 10);
        });
    }
    assert_eq!(*l.read(), 42);
}
