//! The dissemination barrier (Hensgen, Finkel & Manber 1988, in the form of Mellor-Crummey &
//! Scott 1991, §3.2, Algorithm 9: two parities of flags and a sense that flips every second
//! phase, so flags are never reset).
//!
//! In round `r` of `ceil(log2 n)`, thread `i` signals thread `(i + 2^r) mod n` and waits for the
//! signal of thread `(i - 2^r) mod n`; after the last round every thread has (transitively)
//! heard from every other. There is no hot word and no root: each flag has one writer and one
//! reader. Each thread's parity and sense live in the barrier, not in a thread-local.
//!
//! Guarantees: as for every barrier (no thread leaves phase `k` before all have arrived; writes
//! before arrival are visible after leaving, through the chains of flag stores and loads);
//! O(n log n) signals per phase, O(log n) on any thread's path. Memory: `2 * ceil(log2 n)`
//! padded flags per thread, plus one padded slot for its parity and sense.

use super::unpoisoned;
use crate::sync::{AtomicU32, Ordering};
use crate::wait::{Poisoned, WaitPolicy, WaitWord, Waiter};
use crossbeam_utils::CachePadded;

/// Per-thread state: bit 0 the parity, bit 1 the sense.
const INITIAL: u32 = 0b10;

/// The dissemination barrier for `n` threads.
#[derive(Debug)]
pub struct DisseminationBarrier {
    n: usize,
    rounds: usize,
    /// Flag `(tid * 2 + parity) * rounds + r`: thread `tid`'s flag for round `r`.
    flags: Box<[CachePadded<WaitWord>]>,
    /// Thread `tid`'s parity and sense; only that thread touches it.
    local: Box<[CachePadded<AtomicU32>]>,
}

impl DisseminationBarrier {
    /// A barrier for `n` threads (at least one).
    pub fn new(n: usize) -> Self {
        let n = n.max(1);
        let rounds = n.next_power_of_two().trailing_zeros() as usize;
        DisseminationBarrier {
            n,
            rounds,
            flags: (0..n * 2 * rounds)
                .map(|_| CachePadded::new(WaitWord::new(0)))
                .collect(),
            local: (0..n)
                .map(|_| CachePadded::new(AtomicU32::new(INITIAL)))
                .collect(),
        }
    }

    /// Thread `tid` (in `0..n`) waits until all `n` threads have arrived.
    pub fn wait(&self, tid: usize, policy: WaitPolicy) {
        unpoisoned(self.wait_in(tid, Waiter::new(policy)));
    }

    fn flag(&self, tid: usize, parity: usize, round: usize) -> &WaitWord {
        &self.flags[(tid * 2 + parity) * self.rounds + round]
    }

    #[inline]
    pub(crate) fn wait_in(&self, tid: usize, w: Waiter<'_>) -> Result<(), Poisoned> {
        // Relaxed: the slot is only ever touched by thread `tid`.
        let state = self.local[tid].load(Ordering::Relaxed);
        let parity = (state & 1) as usize;
        let sense = state >> 1;
        for r in 0..self.rounds {
            let partner = (tid + (1 << r)) % self.n;
            self.flag(partner, parity, r).store_wake(sense);
            self.flag(tid, parity, r).wait_until(w, |v| v == sense)?;
        }
        let sense = if parity == 1 { sense ^ 1 } else { sense };
        self.local[tid].store((sense << 1) | (parity as u32 ^ 1), Ordering::Relaxed);
        Ok(())
    }

    pub(crate) fn poison(&self) {
        for f in self.flags.iter() {
            f.poison();
        }
    }

    pub(crate) fn reset(&self) {
        for f in self.flags.iter() {
            f.reset(0);
        }
        for l in self.local.iter() {
            l.store(INITIAL, Ordering::SeqCst);
        }
    }
}
