//! A reentrant mutex over the default [`crate::RawMutex`]: lock_api's `RawReentrantMutex`
//! (an owner thread id and a count beside any raw mutex) with a thread id of our own.
//!
//! **Algorithm.** The owner's id is compared with the caller's; a match increments the count,
//! otherwise the caller takes the inner lock and records itself (lock_api's `remutex.rs`,
//! <https://github.com/Amanieu/parking_lot>, as parking_lot's `ReentrantMutex`). The thread id
//! is the address of a thread-local byte, which is unique among live threads and never zero
//! (parking_lot's `RawThreadId` does the same).
//!
//! **Guarantees.** Those of the inner mutex (bounded bypass, sleeping waiters) for the first
//! acquisition of a thread; nested ones are a comparison and an increment. The guard gives
//! shared access only (`&T`): use a `Cell` or `RefCell` inside for mutation. The guard is not
//! `Send` (the owner id is the locking thread's).

use core::num::NonZeroUsize;

/// The current thread's id for [`ReentrantMutex`]: the address of a thread-local byte.
#[derive(Debug)]
pub struct RawThreadId;

// SAFETY: a thread-local's address is fixed for the life of its thread and distinct from every
// other live thread's (each has its own storage), and it is never null.
unsafe impl lock_api::GetThreadId for RawThreadId {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawThreadId;

    fn nonzero_thread_id(&self) -> NonZeroUsize {
        std::thread_local!(static KEY: u8 = const { 0 });
        KEY.with(|k| NonZeroUsize::new(core::ptr::from_ref(k) as usize))
            .expect("a thread-local has a non-null address")
    }
}

/// A mutex that the thread holding it may lock again (each lock needs its unlock), over the
/// default [`crate::RawMutex`].
///
/// ```
/// use std::cell::Cell;
/// use welltempered_lock::ReentrantMutex;
///
/// let m = ReentrantMutex::new(Cell::new(1));
/// let outer = m.lock();
/// let inner = m.lock(); // the same thread: no deadlock
/// inner.set(inner.get() + 1);
/// drop(inner);
/// assert_eq!(outer.get(), 2);
/// ```
///
/// The guard stays on the thread that locked (the owner id is that thread's):
///
/// ```compile_fail
/// use welltempered_lock::ReentrantMutex;
///
/// static M: ReentrantMutex<u32> = ReentrantMutex::new(0);
/// let g = M.lock();
/// std::thread::spawn(move || drop(g));
/// ```
pub type ReentrantMutex<T> = lock_api::ReentrantMutex<crate::RawMutex, RawThreadId, T>;

/// The guard of [`ReentrantMutex`].
pub type ReentrantMutexGuard<'a, T> =
    lock_api::ReentrantMutexGuard<'a, crate::RawMutex, RawThreadId, T>;

/// A [`ReentrantMutexGuard`] mapped to a part of the data.
pub type MappedReentrantMutexGuard<'a, T> =
    lock_api::MappedReentrantMutexGuard<'a, crate::RawMutex, RawThreadId, T>;

#[cfg(test)]
mod tests {
    use super::*;
    use core::cell::Cell;
    use lock_api::GetThreadId as _;

    #[test]
    fn thread_ids_differ_between_live_threads() {
        let here = RawThreadId.nonzero_thread_id();
        assert_eq!(here, RawThreadId.nonzero_thread_id());
        std::thread::scope(|s| {
            let there = s.spawn(|| RawThreadId.nonzero_thread_id()).join().unwrap();
            assert_ne!(here, there);
        });
    }

    #[test]
    fn nests_on_one_thread_and_excludes_others() {
        let m = ReentrantMutex::new(Cell::new(0u64));
        let (threads, iters) = if cfg!(miri) { (2, 20) } else { (4, 5_000) };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for _ in 0..iters {
                        let a = m.lock();
                        let b = m.lock();
                        let v = b.get();
                        drop(b);
                        // Still held through `a`: nobody else can have changed it.
                        assert!(m.is_owned_by_current_thread());
                        a.set(v + 1);
                    }
                });
            }
        });
        assert_eq!(m.lock().get(), threads * iters);
        assert!(!m.is_locked());
    }

    #[test]
    fn try_lock_fails_on_another_threads_lock() {
        let m = ReentrantMutex::new(());
        let g = m.lock();
        assert!(m.try_lock().is_some(), "the owner may lock again");
        std::thread::scope(|s| {
            s.spawn(|| assert!(m.try_lock().is_none()));
        });
        drop(g);
    }
}
