//! Helpers shared by the unit tests of the lock algorithms.

use lock_api::RawMutex;
use std::cell::UnsafeCell;

/// A plain counter shared by threads that only touch it under a lock.
pub(crate) struct Counter(pub(crate) UnsafeCell<u64>);
// SAFETY: the counter is only accessed by threads holding the lock under test.
unsafe impl Sync for Counter {}

impl Counter {
    /// The counter's cell (a method, so closures capture the whole `Sync` counter).
    pub(crate) fn cell(&self) -> *mut u64 {
        self.0.get()
    }
}

/// `threads` threads each take `lock` `iters` times and increment a plain (non-atomic) counter
/// inside; the final count proves mutual exclusion (a lost update would show).
pub(crate) fn hammer<L: RawMutex + Sync>(lock: &L, threads: usize, iters: u64) {
    let c = Counter(UnsafeCell::new(0));
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                for _ in 0..iters {
                    let g = lock.lock();
                    // SAFETY: we hold the lock.
                    unsafe { *c.cell() += 1 };
                    // SAFETY: `g` is this thread's guard from the `lock` just above.
                    unsafe { lock.unlock(g) };
                }
            });
        }
    });
    assert_eq!(c.0.into_inner(), threads as u64 * iters);
    assert!(!lock.is_locked());
}
