//! Loop schedules and the chunk dispenser (OpenMP 5.2 §11.5.3, the `schedule` clause; omp0's
//! `StaticScheduler`, `DynamicScheduler` and `GuidedScheduler`).
//!
//! - `Static`: thread `t` of `n` runs one contiguous block, the first `len % n` blocks one
//!   iteration longer. No shared state at all.
//! - `StaticChunked { chunk }`: chunk `k` goes to thread `k % n` (round robin). No shared state.
//! - `Dynamic { chunk }`: threads claim the next `chunk` iterations from a shared counter: one
//!   relaxed `fetch_add` on a cache-padded word per claim.
//! - `Guided { min_chunk }`: a claim takes `ceil(remaining / n)` iterations, at least
//!   `min_chunk`, with a compare-and-swap loop on the same counter.
//!
//! Each dynamic or guided loop *instance* needs a counter of its own, because a thread that
//! leaves a `nowait` loop early may start the next loop while others still claim from the
//! previous one. The team keeps a ring of [`RING`] dispensers: the `s`-th dynamic/guided loop a
//! thread meets uses slot `s % RING`; the slot serves loop `s` until all `n` threads have left
//! it, and the last to leave resets the counter and hands the slot to loop `s + RING` (a
//! thread that runs that far ahead waits for it). This is what requires every thread of the
//! team to meet the worksharing loops in the same order, as OpenMP does.
//!
//! Guarantees: every index of the range is run exactly once, by one thread; claims never
//! overlap (the counter only grows; a claim is a range of it taken atomically). Each thread's
//! dynamic and guided claims come in increasing order of iterations (because the counter only
//! grows), which is what OpenMP's `monotonic` modifier asks; `nonmonotonic` allows any order,
//! so both hold (`OMP_SCHEDULE` accepts either).

use crate::sync::{AtomicUsize, Ordering};
use crate::wait::{POISON, Poisoned, WaitWord, Waiter};
use core::ops::Range;
use crossbeam_utils::CachePadded;

/// How a worksharing loop's iterations are divided among the team (`WELLTEMPERED_SCHEDULE`,
/// `OMP_SCHEDULE`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// One contiguous block per thread (`schedule(static)`).
    #[default]
    Static,
    /// Chunks of `chunk` iterations dealt round robin (`schedule(static, chunk)`); a chunk of
    /// 0 counts as 1.
    StaticChunked {
        /// Iterations per chunk.
        chunk: usize,
    },
    /// Chunks of `chunk` iterations claimed on demand (`schedule(dynamic, chunk)`); a chunk of
    /// 0 counts as 1.
    Dynamic {
        /// Iterations per claim.
        chunk: usize,
    },
    /// Claims of `ceil(remaining / threads)` iterations, at least `min_chunk`
    /// (`schedule(guided, min_chunk)`); 0 counts as 1.
    Guided {
        /// The smallest claim (except the last).
        min_chunk: usize,
    },
}

impl Schedule {
    /// Whether the schedule claims from a shared dispenser (dynamic or guided).
    pub const fn is_dynamic(self) -> bool {
        matches!(self, Schedule::Dynamic { .. } | Schedule::Guided { .. })
    }
}

/// Thread `tid` of `n`'s block of `0..len` under [`Schedule::Static`].
pub fn static_block(len: usize, n: usize, tid: usize) -> Range<usize> {
    let n = n.max(1);
    let (base, rem) = (len / n, len % n);
    let start = tid * base + tid.min(rem);
    start..start + base + usize::from(tid < rem)
}

/// Runs `f` on each of thread `tid` of `n`'s chunks of `0..len` under
/// [`Schedule::StaticChunked`], in order.
pub fn static_chunks(
    len: usize,
    chunk: usize,
    n: usize,
    tid: usize,
    mut f: impl FnMut(Range<usize>),
) {
    let chunk = chunk.max(1);
    let stride = chunk.saturating_mul(n.max(1));
    let mut start = match tid.checked_mul(chunk) {
        Some(s) => s,
        None => return,
    };
    while start < len {
        let end = start.saturating_add(chunk).min(len);
        f(start..end);
        start = match start.checked_add(stride) {
            Some(s) => s,
            None => return,
        };
    }
}

/// A shared counter from which threads claim chunks of `0..len` (dynamic and guided
/// schedules). All claimers of one loop must pass the same `len` (and `threads`).
#[derive(Debug, Default)]
pub struct ChunkDispenser {
    next: CachePadded<AtomicUsize>,
}

impl ChunkDispenser {
    /// A dispenser at the start of its range.
    pub fn new() -> Self {
        ChunkDispenser::default()
    }

    /// Claims the next `chunk` iterations of `0..len`, or `None` once all are claimed.
    #[inline]
    pub fn claim_dynamic(&self, len: usize, chunk: usize, threads: usize) -> Option<Range<usize>> {
        let chunk = chunk.clamp(1, len.max(1));
        // Each claimer overshoots `len` at most once, by at most `chunk <= len`: the counter
        // stays below `len * (threads + 1)`, which must not wrap; beyond that, claim by CAS.
        // (`checked_mul` rather than a division: this runs on every claim.)
        if len.checked_mul(threads.max(1) + 1).is_some() {
            // Relaxed: a claim only needs atomicity; what the loop body writes is ordered by
            // the barrier (or the join) after the loop.
            let start = self.next.fetch_add(chunk, Ordering::Relaxed);
            (start < len).then(|| start..start + chunk.min(len - start))
        } else {
            self.claim_cas(len, |_| chunk)
        }
    }

    /// Claims `ceil(remaining / threads)` iterations of `0..len`, at least `min_chunk`, or
    /// `None` once all are claimed.
    #[inline]
    pub fn claim_guided(
        &self,
        len: usize,
        min_chunk: usize,
        threads: usize,
    ) -> Option<Range<usize>> {
        let threads = threads.max(1);
        self.claim_cas(len, |remaining| {
            remaining.div_ceil(threads).max(min_chunk.max(1))
        })
    }

    fn claim_cas(&self, len: usize, size: impl Fn(usize) -> usize) -> Option<Range<usize>> {
        // Relaxed throughout: as in `claim_dynamic`, only atomicity matters.
        let mut cur = self.next.load(Ordering::Relaxed);
        loop {
            if cur >= len {
                return None;
            }
            let end = cur + size(len - cur).min(len - cur);
            match self
                .next
                .compare_exchange_weak(cur, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(cur..end),
                Err(now) => cur = now,
            }
        }
    }

    /// Claims by `schedule` (dynamic or guided; a static schedule claims like `Dynamic` with
    /// its chunk, or one block per claim).
    #[inline]
    pub fn claim(&self, len: usize, schedule: Schedule, threads: usize) -> Option<Range<usize>> {
        match schedule {
            Schedule::Dynamic { chunk } | Schedule::StaticChunked { chunk } => {
                self.claim_dynamic(len, chunk, threads)
            }
            Schedule::Guided { min_chunk } => self.claim_guided(len, min_chunk, threads),
            Schedule::Static => self.claim_dynamic(len, len.div_ceil(threads.max(1)), threads),
        }
    }

    /// Back to the start. Only while no thread claims.
    pub fn reset(&self) {
        // Relaxed: published by whatever hands the dispenser to its next users.
        self.next.store(0, Ordering::Relaxed);
    }
}

/// How many dynamic/guided loops may be in flight at once (a thread more than `RING - 1`
/// loops ahead of the slowest waits).
pub(crate) const RING: usize = 8;

/// One slot of the ring.
#[derive(Debug)]
pub(crate) struct RingSlot {
    /// The loop number (mod 2^31) this slot serves now.
    owner: CachePadded<WaitWord>,
    /// Threads that have left the loop.
    left: CachePadded<AtomicUsize>,
    pub(crate) dispenser: ChunkDispenser,
}

/// The team's ring of dispensers.
#[derive(Debug)]
pub(crate) struct DispenserRing {
    n: usize,
    slots: [RingSlot; RING],
}

fn tag(seq: u32) -> u32 {
    seq & !POISON
}

impl DispenserRing {
    pub(crate) fn new(n: usize) -> Self {
        DispenserRing {
            n,
            slots: core::array::from_fn(|i| RingSlot {
                owner: CachePadded::new(WaitWord::new(i as u32)),
                left: CachePadded::new(AtomicUsize::new(0)),
                dispenser: ChunkDispenser::new(),
            }),
        }
    }

    /// Enters loop `seq`: waits until its slot serves it.
    #[inline]
    pub(crate) fn enter(&self, seq: u32, w: Waiter<'_>) -> Result<&RingSlot, Poisoned> {
        let slot = &self.slots[seq as usize % RING];
        slot.owner.wait_until(w, |v| v == tag(seq))?;
        Ok(slot)
    }

    /// Leaves loop `seq`; the last thread to leave passes the slot to loop `seq + RING`.
    #[inline]
    pub(crate) fn leave(&self, slot: &RingSlot, seq: u32) {
        // AcqRel: the last leaver acquires every claim made before the others left, so its
        // reset comes after all of them.
        if slot.left.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            slot.left.store(0, Ordering::Relaxed);
            slot.dispenser.reset();
            // Publishes the two resets to the next loop's threads (they acquire the owner).
            slot.owner.store_wake(tag(seq.wrapping_add(RING as u32)));
        }
    }

    pub(crate) fn poison(&self) {
        for s in &self.slots {
            s.owner.poison();
        }
    }

    pub(crate) fn reset(&self) {
        for (i, s) in self.slots.iter().enumerate() {
            s.left.store(0, Ordering::SeqCst);
            s.dispenser.reset();
            s.owner.reset(i as u32);
        }
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn covered(n: usize, len: usize, per_thread: impl Fn(usize, &mut dyn FnMut(Range<usize>))) {
        let mut seen = vec![0u8; len];
        for tid in 0..n {
            per_thread(tid, &mut |r: Range<usize>| {
                for i in r {
                    seen[i] += 1;
                }
            });
        }
        assert!(seen.iter().all(|&c| c == 1), "n={n} len={len}: {seen:?}");
    }

    #[test]
    fn static_blocks_partition() {
        for n in 1..9 {
            for len in [0, 1, 2, 7, 8, 9, 100] {
                covered(n, len, |tid, f| f(static_block(len, n, tid)));
                for chunk in [0, 1, 3, 64, usize::MAX] {
                    covered(n, len, |tid, f| static_chunks(len, chunk, n, tid, &mut *f));
                }
            }
        }
    }

    #[test]
    fn claims_partition() {
        for s in [
            Schedule::Dynamic { chunk: 1 },
            Schedule::Dynamic { chunk: 3 },
            Schedule::Dynamic { chunk: usize::MAX },
            Schedule::Guided { min_chunk: 1 },
            Schedule::Guided { min_chunk: 4 },
            Schedule::StaticChunked { chunk: 5 },
            Schedule::Static,
        ] {
            for len in [0, 1, 5, 100] {
                let d = ChunkDispenser::new();
                covered(1, len, |_, f| {
                    while let Some(r) = d.claim(len, s, 3) {
                        assert!(!r.is_empty());
                        f(r);
                    }
                });
            }
        }
    }

    #[test]
    fn guided_shrinks() {
        let d = ChunkDispenser::new();
        let sizes: Vec<usize> = std::iter::from_fn(|| d.claim_guided(100, 2, 4))
            .map(|r| r.len())
            .collect();
        assert_eq!(sizes[0], 25);
        assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
        assert_eq!(sizes.iter().sum::<usize>(), 100);
    }

    #[test]
    fn huge_range_claims_by_cas() {
        let d = ChunkDispenser::new();
        let len = usize::MAX - 1;
        assert_eq!(
            d.claim_dynamic(len, usize::MAX / 2, 4),
            Some(0..usize::MAX / 2)
        );
        assert_eq!(
            d.claim_dynamic(len, usize::MAX / 2, 4),
            Some(usize::MAX / 2..len)
        );
        assert_eq!(d.claim_dynamic(len, usize::MAX / 2, 4), None);
    }
}
