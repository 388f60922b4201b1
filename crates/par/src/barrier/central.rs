//! The sense-reversing centralized barrier (Mellor-Crummey & Scott 1991, §3.1, Algorithm 7;
//! omp0's `SenseBarrier`).
//!
//! A shared counter counts arrivals; the last arrival resets it and stores the phase's sense
//! into the shared sense word, which the others wait on. Each thread's local sense (flipped at
//! every phase) lives in this barrier, in a padded slot per team thread, not in a thread-local
//! (omp0's bug: a `thread_local` sense shared by every barrier on the thread desynchronised
//! a second runtime).
//!
//! Guarantees: no thread leaves phase `k` before every thread has arrived at it, and every
//! write made before arriving is visible to every thread after leaving; O(n) remote updates
//! per phase on one counter line. Memory: two padded words plus one padded word per thread.

use super::unpoisoned;
use crate::sync::{AtomicU32, AtomicUsize, Ordering};
use crate::wait::{Poisoned, WaitPolicy, WaitWord, Waiter};
use crossbeam_utils::CachePadded;

/// The sense-reversing centralized barrier for `n` threads.
#[derive(Debug)]
pub struct CentralBarrier {
    n: usize,
    count: CachePadded<AtomicUsize>,
    sense: CachePadded<WaitWord>,
    /// Thread `tid`'s local sense; read and written only by that thread.
    local: Box<[CachePadded<AtomicU32>]>,
}

impl CentralBarrier {
    /// A barrier for `n` threads (at least one).
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        CentralBarrier {
            n,
            count: CachePadded::new(AtomicUsize::new(0)),
            sense: CachePadded::new(WaitWord::new(0)),
            local: (0..n)
                .map(|_| CachePadded::new(AtomicU32::new(0)))
                .collect(),
        }
    }

    /// Thread `tid` (in `0..n`) waits until all `n` threads have arrived.
    pub fn wait(&self, tid: usize, policy: WaitPolicy) {
        unpoisoned(self.wait_in(tid, Waiter::new(policy)));
    }

    #[inline]
    pub(crate) fn wait_in(&self, tid: usize, w: Waiter<'_>) -> Result<(), Poisoned> {
        // Relaxed: the slot is only ever touched by thread `tid`.
        let s = self.local[tid].load(Ordering::Relaxed) ^ 1;
        self.local[tid].store(s, Ordering::Relaxed);
        // AcqRel: the last arrival acquires every earlier arrival's writes (release sequence
        // of the read-modify-writes) and passes them on with its sense store.
        if self.count.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            // Relaxed: published by the sense store below, which every next arrival has
            // acquired before it increments again.
            self.count.store(0, Ordering::Relaxed);
            self.sense.store_wake(s);
            Ok(())
        } else {
            self.sense.wait_until(w, |v| v == s).map(drop)
        }
    }

    pub(crate) fn poison(&self) {
        self.sense.poison();
    }

    pub(crate) fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
        self.sense.reset(0);
        for l in self.local.iter() {
            l.store(0, Ordering::SeqCst);
        }
    }
}
