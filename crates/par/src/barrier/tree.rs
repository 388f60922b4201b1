//! The static tree barrier (Mellor-Crummey & Scott 1991, §3.3, Algorithm 11, here with fan-in
//! two and the same binary tree for the wake-up; omp0's `TreeBarrier`).
//!
//! Thread `i`'s children are `2i + 1` and `2i + 2`. A thread waits until its children have
//! arrived (each stores the phase's sense in its own arrival word), then stores its own
//! arrival for its parent and waits for its release word; the root, once both subtrees have
//! arrived, starts the release, which each thread passes to its children. Each thread spins
//! only on its own words, written by one other thread, so a phase costs O(log n) latency and
//! O(n) remote writes with no hot line. The per-thread sense lives in the barrier, not in a
//! thread-local.
//!
//! Guarantees: as for every barrier (no thread leaves phase `k` before all have arrived; writes
//! before arrival are visible after leaving, through the acquire/release chain up and down the
//! tree). Memory: three padded words per thread.

use super::unpoisoned;
use crate::sync::{AtomicU32, Ordering};
use crate::wait::{Poisoned, WaitPolicy, WaitWord, Waiter};
use crossbeam_utils::CachePadded;

/// The static binary-tree barrier for `n` threads.
#[derive(Debug)]
pub struct TreeBarrier {
    n: usize,
    /// `arrive[i]`: thread `i` has arrived with its subtree (written by `i`, read by its parent).
    arrive: Box<[CachePadded<WaitWord>]>,
    /// `release[i]`: thread `i` may leave (written by its parent).
    release: Box<[CachePadded<WaitWord>]>,
    /// Thread `tid`'s local sense; only that thread touches it.
    local: Box<[CachePadded<AtomicU32>]>,
}

impl TreeBarrier {
    /// A barrier for `n` threads (at least one).
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let words = || -> Box<[CachePadded<WaitWord>]> {
            (0..n).map(|_| CachePadded::new(WaitWord::new(0))).collect()
        };
        TreeBarrier {
            n,
            arrive: words(),
            release: words(),
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
        let children = (2 * tid + 1..=2 * tid + 2).filter(|&c| c < self.n);
        for c in children.clone() {
            self.arrive[c].wait_until(w, |v| v == s)?;
        }
        if tid != 0 {
            self.arrive[tid].store_wake(s);
            self.release[tid].wait_until(w, |v| v == s)?;
        }
        for c in children {
            self.release[c].store_wake(s);
        }
        Ok(())
    }

    pub(crate) fn poison(&self) {
        for word in self.arrive.iter().chain(self.release.iter()) {
            word.poison();
        }
    }

    pub(crate) fn reset(&self) {
        for word in self.arrive.iter().chain(self.release.iter()) {
            word.reset(0);
        }
        for l in self.local.iter() {
            l.store(0, Ordering::SeqCst);
        }
    }
}
