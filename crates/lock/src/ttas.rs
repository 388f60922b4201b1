//! Test-and-test-and-set spin locks (TTAS, and TTAS that yields), from the lock study of
//! omp0, a minimal OpenMP runtime evaluated against libgomp (Sreeram and Bhargav; its "Locks"
//! section: "TTAS spins on a cached read, only writes to acquire"; its TTAS-yield
//! variant is the one that kept ~5 M ops/s at 128 threads where ticket and MCS collapsed).
//!
//! Guarantees of both: mutual exclusion; not FIFO (a waiter may be overtaken without bound);
//! never park; a waiter takes the lock with a CAS only after it read it free. [`Ttas`] spins forever on a shared read, so under oversubscription a waiter burns
//! whole time slices while the holder is descheduled; [`TtasYield`] spins a bounded number of
//! reads and then calls `sched_yield` between rounds, which gives a descheduled holder the core.
//! Bytes per lock: 1 (one `AtomicBool`, all-zero when unlocked); bytes per thread: 0.
//!
//! Unlocking needs no thread-local state, so guards are [`lock_api::GuardSend`].

use crate::sync::{AtomicBool, Ordering, spin_loop, yield_now};

/// How many reads a [`TtasYield`] waiter spins before each `sched_yield`.
pub const TTAS_YIELD_SPINS: u32 = if cfg!(loom) { 1 } else { 128 };

/// Shared body of both locks: one flag, spun on with loads, taken with a CAS.
#[derive(Debug)]
struct Flag {
    locked: AtomicBool,
}

impl Flag {
    #[cfg(not(loom))]
    const fn new() -> Self {
        Self {
            locked: AtomicBool::new(false),
        }
    }

    #[cfg(loom)]
    fn new() -> Self {
        Self {
            locked: AtomicBool::new(false),
        }
    }

    /// One attempt: a load first, so a held lock costs a shared read, not an RMW.
    #[inline]
    fn try_lock(&self) -> bool {
        // Relaxed pre-test: only the CAS's Acquire has to order the critical section. A CAS, not
        // a swap, because the word was just seen free: a failed CAS writes nothing (and loom,
        // which places a failed swap's write after a concurrent unlock store, can explore it).
        !self.locked.load(Ordering::Relaxed)
            && self
                .locked
                .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                .is_ok()
    }

    /// Spins (reading) until the lock looks free, at most `limit` reads; returns whether it
    /// saw it free.
    #[inline]
    fn wait_free(&self, limit: u32) -> bool {
        for _ in 0..limit {
            if !self.locked.load(Ordering::Relaxed) {
                return true;
            }
            spin_loop();
        }
        false
    }

    #[inline]
    fn unlock(&self) {
        // Release: publishes the critical section to the next acquirer's Acquire swap.
        self.locked.store(false, Ordering::Release);
    }

    #[inline]
    fn is_locked(&self) -> bool {
        self.locked.load(Ordering::Relaxed)
    }
}

macro_rules! ttas_lock {
    ($(#[$doc:meta])* $name:ident, $contended:expr) => {
        $(#[$doc])*
        #[derive(Debug)]
        pub struct $name {
            flag: Flag,
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl $name {
            /// An unlocked lock.
            #[cfg(not(loom))]
            pub const fn new() -> Self {
                Self { flag: Flag::new() }
            }

            /// An unlocked lock.
            #[cfg(loom)]
            pub fn new() -> Self {
                Self { flag: Flag::new() }
            }

            /// Acquires the lock, spinning until it is free.
            #[inline]
            pub fn lock(&self) {
                // Uncontended: one CAS, no pre-read (the line is fetched exclusive at once).
                if self
                    .flag
                    .locked
                    .compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
                {
                    return;
                }
                self.lock_contended();
            }

            #[cold]
            fn lock_contended(&self) {
                let contended: fn(&Flag) = $contended;
                contended(&self.flag);
            }

            /// Acquires the lock if it is free; returns whether it did.
            #[inline]
            pub fn try_lock(&self) -> bool {
                self.flag.try_lock()
            }

            /// Releases the lock.
            ///
            /// # Safety
            ///
            /// The lock must be held, by this or (no thread-local state is involved) any other
            /// thread that took over the holder's duty to release it.
            #[inline]
            pub unsafe fn unlock(&self) {
                self.flag.unlock()
            }

            /// Whether the lock is held (a momentary snapshot).
            #[inline]
            pub fn is_locked(&self) -> bool {
                self.flag.is_locked()
            }
        }

        #[cfg(not(loom))]
        // SAFETY: `lock`/`try_lock` return only after this thread's CAS turned `false` into
        // `true`, so at most one guard exists at a time.
        unsafe impl lock_api::RawMutex for $name {
            #[allow(clippy::declare_interior_mutable_const)]
            const INIT: Self = Self::new();
            type Guard = lock_api::GuardSend;

            #[inline]
            fn lock(&self) -> Self::Guard {
                $name::lock(self);
                lock_api::GuardSend::new()
            }

            #[inline]
            fn try_lock(&self) -> Option<Self::Guard> {
                $name::try_lock(self).then(lock_api::GuardSend::new)
            }

            #[inline]
            unsafe fn unlock(&self, _guard: Self::Guard) {
                // SAFETY: the guard proves the lock is held (the trait's contract).
                unsafe { $name::unlock(self) }
            }

            #[inline]
            fn is_locked(&self) -> bool {
                $name::is_locked(self)
            }
        }
    };
}

ttas_lock!(
    /// Test-and-test-and-set: wait with loads, take with a CAS; spins without bound.
    Ttas,
    |flag| loop {
        flag.wait_free(u32::MAX);
        if flag.try_lock() {
            return;
        }
    }
);

ttas_lock!(
    /// Test-and-test-and-set that yields the processor after every
    /// [`TTAS_YIELD_SPINS`] reads of a held lock.
    TtasYield,
    |flag| loop {
        if flag.wait_free(TTAS_YIELD_SPINS) {
            if flag.try_lock() {
                return;
            }
        } else {
            yield_now();
        }
    }
);

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn check<R: lock_api::RawMutex<Guard = lock_api::GuardSend> + Sync>() {
        assert!(size_of::<R>() <= 40);
        let m = lock_api::Mutex::<R, u64>::new(0);
        {
            let g = m.lock();
            assert!(m.is_locked());
            assert!(m.try_lock().is_none());
            drop(g);
        }
        assert!(!m.is_locked());
        let (threads, iters) = if cfg!(miri) { (3, 50) } else { (4, 20_000) };
        std::thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|| {
                    for _ in 0..iters {
                        *m.lock() += 1;
                    }
                });
            }
        });
        assert_eq!(*m.lock(), threads * iters);
    }

    #[test]
    fn ttas_excludes() {
        check::<Ttas>();
    }

    #[test]
    fn ttas_yield_excludes() {
        check::<TtasYield>();
    }

    #[test]
    fn zero_is_unlocked() {
        // SAFETY: both are one `AtomicBool`, for which all-zero is `false`.
        let (a, b): (Ttas, TtasYield) = unsafe { core::mem::zeroed() };
        assert!(!a.is_locked() && !b.is_locked());
    }
}
