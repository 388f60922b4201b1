//! parking_lot's `RawThreadId` for lock_api 0.4's reentrant mutex, over welltempered's.
//!
//! **Algorithm.** The thread id is the address of a thread-local byte, unique among live
//! threads and never zero (welltempered's `RawThreadId`, as parking_lot's). The reentrant
//! mutex itself is lock_api's: an owner id and a count beside [`crate::RawMutex`].
//!
//! **Guarantees.** Those of lock_api's `ReentrantMutex`: the owner locks again without waiting;
//! other threads wait on the inner mutex.

use core::num::NonZeroUsize;
use welltempered_lock::lock_api as api05;

/// The current thread's id for [`crate::ReentrantMutex`].
#[derive(Debug)]
pub struct RawThreadId(welltempered_lock::RawThreadId);

// SAFETY: forwards to welltempered's `RawThreadId`, whose ids are distinct among live threads
// and fixed for the life of each (the same contract in lock_api 0.5).
unsafe impl lock_api::GetThreadId for RawThreadId {
    #[allow(clippy::declare_interior_mutable_const)]
    const INIT: Self = RawThreadId(<welltempered_lock::RawThreadId as api05::GetThreadId>::INIT);

    #[inline]
    fn nonzero_thread_id(&self) -> NonZeroUsize {
        api05::GetThreadId::nonzero_thread_id(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use crate::{ReentrantMutex, const_reentrant_mutex};
    use std::cell::Cell;

    #[test]
    fn the_owner_locks_again_and_others_wait() {
        static M: ReentrantMutex<Cell<u32>> = const_reentrant_mutex(Cell::new(0));
        let outer = M.lock();
        let inner = M.lock();
        inner.set(1);
        std::thread::scope(|s| {
            s.spawn(|| assert!(M.try_lock().is_none()));
        });
        drop(inner);
        drop(outer);
        std::thread::scope(|s| {
            s.spawn(|| M.lock().set(2));
        });
        assert_eq!(M.lock().get(), 2);
        let m = ReentrantMutex::new(Cell::new(0));
        assert_eq!(m.into_inner().get(), 0);
    }
}
