//! Worksharing: loops (`GOMP_loop_*`, `GOMP_loop_ull_*`, `GOMP_parallel_loop_*`), `sections`,
//! `ordered` and `single copyprivate` (OpenMP 5.2 §11.5 `for`, §11.3 `sections`, §15.10
//! `ordered`, §5.7.2 `copyprivate`), in the iterator form libgomp's ABI uses: a `start` call
//! that returns the calling thread's first chunk, `next` calls for the following ones, and an
//! `end` call with or without the implicit barrier.
//!
//! The team's constructs share state through a ring of [`RING`] slots, like
//! `welltempered-par`'s dispenser ring and libgomp's work-share chain: the `s`-th worksharing
//! construct a thread meets uses slot `s % RING`. The first thread to arrive claims the slot for
//! construct `s` (a compare-and-swap of its state word), the others see it claimed and join;
//! the last of the team to leave resets it and hands it to construct `s + RING`, which a thread
//! running that far ahead (through `nowait` constructs) waits for. So every thread of a team
//! must meet the worksharing constructs in the same order, as OpenMP requires.
//!
//! Iterations are numbered `0..iters` whatever the loop's bounds and step: a chunk `a..b` of
//! those is returned as `start + a*incr .. start + b*incr` (the end of the last chunk is the
//! loop's own end), in wrapping arithmetic on the 64-bit pattern of `long` or
//! `unsigned long long` alike. Static schedules need nothing shared (thread `t`'s `k`-th chunk is
//! a function of `t` and `k`, the blocks as libgomp's); dynamic and guided ones claim from the
//! slot's [`ChunkDispenser`].
//!
//! `ordered`: a thread enters the ordered region of an iteration once every chunk before the
//! one holding it is finished. The slot keeps the first iteration not yet finished in order; a
//! thread that finishes chunk `a..b` waits for it to reach `a` and moves it to `b` (chunks are
//! claimed in increasing order and a thread holds one at a time, so the chain always moves).
//!
//! Guarantees: every iteration runs exactly once; chunks never overlap; `ordered` regions run in
//! iteration order; a `sections` construct runs each section once.

use crate::team::ThreadState;
use core::ffi::c_void;
use core::ops::Range;
use crossbeam_utils::{Backoff, CachePadded};
use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering};
use welltempered_par::{ChunkDispenser, Schedule, static_block};

/// How many worksharing constructs a team may have in flight at once (a power of two).
pub(crate) const RING: usize = 8;
const _: () = assert!(RING.is_power_of_two());

/// One slot of the ring.
#[derive(Debug, Default)]
pub(crate) struct WorkShare {
    /// `4 * s` while free for construct `s`, `4 * s + 1` while serving it.
    state: AtomicU64,
    /// Team threads that have left the construct.
    left: AtomicUsize,
    /// The next chunk of a dynamic or guided loop or of `sections`.
    dispenser: ChunkDispenser,
    /// `ordered`: the first iteration not yet finished in order.
    ordered: AtomicU64,
    /// `single copyprivate`: the executing thread's data.
    copyprivate: AtomicPtr<c_void>,
}

/// A team's ring of worksharing slots.
#[derive(Debug)]
pub(crate) struct WsRing {
    n: usize,
    slots: Box<[CachePadded<WorkShare>]>,
}

/// Waits a little, yielding the CPU once spinning has gone on long enough (threads may
/// outnumber cores).
fn snooze(backoff: &Backoff) {
    if backoff.is_completed() {
        std::thread::yield_now();
    } else {
        backoff.snooze();
    }
}

impl WsRing {
    /// The ring of a team of `n` (a team of one needs a single slot: it leaves each construct
    /// before meeting the next).
    pub(crate) fn new(n: usize) -> WsRing {
        let len = if n <= 1 { 1 } else { RING };
        let slots: Box<[CachePadded<WorkShare>]> = (0..len)
            .map(|_| CachePadded::new(WorkShare::default()))
            .collect();
        let ring = WsRing { n: n.max(1), slots };
        ring.reset();
        ring
    }

    fn slot(&self, seq: u64) -> &WorkShare {
        // The length is a power of two (1 or RING): a mask, not a division, on every chunk.
        &self.slots[(seq as usize) & (self.slots.len() - 1)]
    }

    /// Joins construct `seq`; true for the first thread to arrive (the one that claimed the
    /// slot).
    pub(crate) fn enter(&self, seq: u64) -> bool {
        let slot = self.slot(seq);
        let free = seq.wrapping_mul(4);
        let serving = free | 1;
        let backoff = Backoff::new();
        loop {
            // Acquire: a free state was stored (Release) by the last leaver of the slot's previous
            // construct, after it reset the slot.
            let s = slot.state.load(Ordering::Acquire);
            if s == serving {
                return false;
            }
            if s == free {
                match slot.state.compare_exchange(
                    free,
                    serving,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                ) {
                    Ok(_) => return true,
                    Err(_) => continue,
                }
            }
            // An earlier construct still holds the slot.
            snooze(&backoff);
        }
    }

    /// Leaves construct `seq`; the last of the team resets the slot for construct
    /// `seq + RING`.
    pub(crate) fn leave(&self, seq: u64) {
        let slot = self.slot(seq);
        // AcqRel: the last leaver sees every other thread done with the slot (their increments
        // release it) before resetting it.
        if slot.left.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
            slot.left.store(0, Ordering::Relaxed);
            slot.dispenser.reset();
            slot.ordered.store(0, Ordering::Relaxed);
            slot.copyprivate
                .store(core::ptr::null_mut(), Ordering::Relaxed);
            let next = seq.wrapping_add(self.slots.len() as u64).wrapping_mul(4);
            // Release: publishes the reset to the next construct's first thread.
            slot.state.store(next, Ordering::Release);
        }
    }

    /// Back to construct 0. Only while no thread uses the ring (after a region's join).
    pub(crate) fn reset(&self) {
        for (i, s) in self.slots.iter().enumerate() {
            s.state.store(i as u64 * 4, Ordering::Relaxed);
        }
    }
}

/// A worksharing loop (or `sections`) as one thread sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LoopState {
    /// The construct number (the ring slot).
    seq: u64,
    schedule: Schedule,
    /// The 64-bit patterns of the first value, the step and the end.
    start: u64,
    incr: u64,
    end: u64,
    /// The number of iterations.
    iters: u64,
    ordered: bool,
    /// Static schedules: chunks this thread has taken.
    trip: u64,
    /// The chunk this thread runs now, in iteration numbers.
    cur: Option<(u64, u64)>,
}

impl Default for LoopState {
    fn default() -> Self {
        LoopState {
            seq: 0,
            schedule: Schedule::Static,
            start: 0,
            incr: 1,
            end: 0,
            iters: 0,
            ordered: false,
            trip: 0,
            cur: None,
        }
    }
}

impl LoopState {
    /// A loop `for (i = start; i < end; i += incr)` (or `>` for a negative `incr`) on `long`.
    pub(crate) fn signed(start: i64, end: i64, incr: i64, schedule: Schedule) -> LoopState {
        let (s, e, i) = (i128::from(start), i128::from(end), i128::from(incr));
        let iters = if i > 0 && e > s {
            (e - s + i - 1) / i
        } else if i < 0 && s > e {
            (s - e - i - 1) / -i
        } else {
            0
        };
        LoopState {
            schedule,
            start: start as u64,
            incr: incr as u64,
            end: end as u64,
            iters: iters as u64,
            ..LoopState::default()
        }
    }

    /// The same on `unsigned long long`, `up` saying which way it goes (`incr` is then the
    /// two's complement of the step when going down).
    pub(crate) fn unsigned(up: bool, start: u64, end: u64, incr: u64, sched: Schedule) -> Self {
        let (s, e) = (u128::from(start), u128::from(end));
        let iters = if up && incr != 0 && e > s {
            (e - s).div_ceil(u128::from(incr))
        } else if !up && incr != 0 && s > e {
            (s - e).div_ceil(u128::from(incr.wrapping_neg()))
        } else {
            0
        };
        LoopState {
            schedule: sched,
            start,
            incr,
            end,
            iters: u64::try_from(iters).unwrap_or(u64::MAX),
            ..LoopState::default()
        }
    }

    /// `sections` with `count` sections, numbered from 1 (one per claim).
    pub(crate) fn sections(count: u32) -> LoopState {
        LoopState::signed(1, i64::from(count) + 1, 1, Schedule::Dynamic { chunk: 1 })
    }

    /// The same loop with `ordered` regions.
    pub(crate) fn with_ordered(self) -> LoopState {
        LoopState {
            ordered: true,
            ..self
        }
    }

    /// The number of iterations.
    pub(crate) fn iters(&self) -> u64 {
        self.iters
    }

    /// The bounds of the chunk of iteration numbers `r`.
    pub(crate) fn bounds(&self, r: (u64, u64)) -> (u64, u64) {
        let first = self.start.wrapping_add(r.0.wrapping_mul(self.incr));
        let last = if r.1 == self.iters {
            self.end
        } else {
            self.start.wrapping_add(r.1.wrapping_mul(self.incr))
        };
        (first, last)
    }
}

/// The next chunk of this thread's static schedule (`trip` chunks taken already).
fn static_chunk(lp: &LoopState, tid: usize, n: usize) -> Option<Range<u64>> {
    match lp.schedule {
        Schedule::Static => {
            if lp.trip > 0 {
                return None;
            }
            let iters = usize::try_from(lp.iters).ok()?;
            let r = static_block(iters, n, tid);
            (!r.is_empty()).then_some(r.start as u64..r.end as u64)
        }
        Schedule::StaticChunked { chunk } => {
            let chunk = chunk.max(1) as u64;
            let k = lp.trip.checked_mul(n as u64)?.checked_add(tid as u64)?;
            let a = k.checked_mul(chunk)?;
            (a < lp.iters).then(|| a..lp.iters.min(a.saturating_add(chunk)))
        }
        _ => None,
    }
}

/// What the `next` call of a dynamic loop without `ordered` needs, read-only for the whole loop
/// (the common case, kept apart so that claiming a chunk copies and writes no loop state).
#[derive(Clone, Copy, Debug)]
pub(crate) struct DynamicLoop {
    /// The slot's dispenser; null when the current loop is not such a loop.
    dispenser: *const ChunkDispenser,
    chunk: usize,
    iters: usize,
    threads: usize,
    start: u64,
    incr: u64,
    end: u64,
}

impl DynamicLoop {
    /// No such loop.
    pub(crate) const NONE: DynamicLoop = DynamicLoop {
        dispenser: core::ptr::null(),
        chunk: 0,
        iters: 0,
        threads: 0,
        start: 0,
        incr: 0,
        end: 0,
    };
}

/// Makes `lp` (construct `lp.seq`) this thread's current loop.
pub(crate) fn install(st: &ThreadState, lp: LoopState) {
    st.lp.set(lp);
    st.dynamic
        .set(match (lp.schedule, lp.ordered, usize::try_from(lp.iters)) {
            (Schedule::Dynamic { chunk }, false, Ok(iters)) => DynamicLoop {
                dispenser: &st.ring().slot(lp.seq).dispenser,
                chunk,
                iters,
                threads: st.n,
                start: lp.start,
                incr: lp.incr,
                end: lp.end,
            },
            _ => DynamicLoop::NONE,
        });
}

/// Starts the worksharing loop `lp` on this thread; its first chunk's bounds, if any.
pub(crate) fn loop_start(st: &ThreadState, lp: LoopState) -> Option<(u64, u64)> {
    let seq = st.seq.get();
    st.seq.set(seq.wrapping_add(1));
    st.ring().enter(seq);
    install(st, LoopState { seq, ..lp });
    loop_next(st)
}

/// This thread's next chunk of its current loop, if any.
#[inline(always)]
pub(crate) fn loop_next(st: &ThreadState) -> Option<(u64, u64)> {
    let d = st.dynamic.get();
    // SAFETY: a non-null dispenser is the current loop's, in its team's ring (or the ring on the
    // stack of the `parallel` call running this region), alive until the loop ends, when
    // `loop_end` clears it.
    if let Some(dispenser) = unsafe { d.dispenser.as_ref() } {
        return dispenser
            .claim_dynamic(d.iters, d.chunk, d.threads)
            .map(|r| {
                let first = d.start.wrapping_add((r.start as u64).wrapping_mul(d.incr));
                let last = if r.end == d.iters {
                    d.end
                } else {
                    d.start.wrapping_add((r.end as u64).wrapping_mul(d.incr))
                };
                (first, last)
            });
    }
    loop_next_slow(st)
}

/// [`loop_next`] for the other loops: static schedules, guided, `ordered`, `sections`.
#[inline(never)]
fn loop_next_slow(st: &ThreadState) -> Option<(u64, u64)> {
    let mut lp = st.lp.get();
    finish_chunk(st, &mut lp);
    let claim = match lp.schedule {
        Schedule::Static | Schedule::StaticChunked { .. } => static_chunk(&lp, st.tid, st.n),
        s => {
            let iters = usize::try_from(lp.iters).unwrap_or(usize::MAX);
            st.ring()
                .slot(lp.seq)
                .dispenser
                .claim(iters, s, st.n)
                .map(|r| r.start as u64..r.end as u64)
        }
    };
    lp.trip += 1;
    lp.cur = claim.map(|r| (r.start, r.end));
    st.lp.set(lp);
    lp.cur.map(|r| lp.bounds(r))
}

/// Done with the current chunk: in an ordered loop, waits for the chunks before it and lets
/// the next one's ordered regions run.
fn finish_chunk(st: &ThreadState, lp: &mut LoopState) {
    if let Some((a, b)) = lp.cur.take()
        && lp.ordered
        && st.n > 1
    {
        let slot = st.ring().slot(lp.seq);
        wait_for(&slot.ordered, a);
        // Release: the next chunk's ordered region (which acquires this) sees this one's.
        slot.ordered.store(b, Ordering::Release);
    }
}

/// Waits until `word` holds `value`.
fn wait_for(word: &AtomicU64, value: u64) {
    let backoff = Backoff::new();
    // Acquire: pairs with the Release store of the chunk before.
    while word.load(Ordering::Acquire) != value {
        snooze(&backoff);
    }
}

/// Leaves the current loop (or `sections`), then waits for the team if `barrier`.
pub(crate) fn loop_end(st: &ThreadState, barrier: bool) {
    let mut lp = st.lp.get();
    finish_chunk(st, &mut lp);
    st.lp.set(LoopState::default());
    st.dynamic.set(DynamicLoop::NONE);
    st.ring().leave(lp.seq);
    if barrier {
        st.barrier();
    }
}

/// `#pragma omp ordered` inside the current loop: waits until every iteration before this
/// thread's chunk has finished.
pub(crate) fn ordered_start(st: &ThreadState) {
    let lp = st.lp.get();
    if let Some((a, _)) = lp.cur
        && lp.ordered
        && st.n > 1
    {
        wait_for(&st.ring().slot(lp.seq).ordered, a);
    }
}

/// `single copyprivate`, entry: null for the thread that runs the body (the first to arrive);
/// for the others, after the executing thread has published it, its data.
pub(crate) fn single_copy_start(st: &ThreadState) -> *mut c_void {
    let seq = st.seq.get();
    st.seq.set(seq.wrapping_add(1));
    let first = st.ring().enter(seq);
    if first {
        st.lp.set(LoopState {
            seq,
            ..LoopState::default()
        });
        return core::ptr::null_mut();
    }
    // The executing thread stores its data, then waits at this barrier.
    st.barrier();
    let slot = st.ring().slot(seq);
    // Relaxed: the barrier ordered the store before this load.
    let data = slot.copyprivate.load(Ordering::Relaxed);
    st.ring().leave(seq);
    data
}

/// `single copyprivate`, exit of the executing thread: publishes `data` to the others.
pub(crate) fn single_copy_end(st: &ThreadState, data: *mut c_void) {
    let seq = st.lp.get().seq;
    st.lp.set(LoopState::default());
    // Relaxed: the barrier below orders it before the others' loads.
    st.ring()
        .slot(seq)
        .copyprivate
        .store(data, Ordering::Relaxed);
    st.barrier();
    st.ring().leave(seq);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iterations(lp: &LoopState) -> Vec<i64> {
        (0..lp.iters)
            .map(|k| lp.bounds((k, k + 1)).0 as i64)
            .collect()
    }

    #[test]
    fn counts_and_bounds() {
        assert_eq!(LoopState::signed(0, 10, 3, Schedule::Static).iters, 4);
        assert_eq!(
            iterations(&LoopState::signed(0, 10, 3, Schedule::Static)),
            [0, 3, 6, 9]
        );
        assert_eq!(
            iterations(&LoopState::signed(10, 0, -4, Schedule::Static)),
            [10, 6, 2]
        );
        assert_eq!(LoopState::signed(5, 5, 1, Schedule::Static).iters, 0);
        assert_eq!(LoopState::signed(5, 0, 1, Schedule::Static).iters, 0);
        let full = LoopState::signed(i64::MIN, i64::MAX, i64::MAX, Schedule::Static);
        assert_eq!(full.iters, 3);
        let down = LoopState::unsigned(false, 10, 0, 3u64.wrapping_neg(), Schedule::Static);
        assert_eq!(down.iters, 4);
        assert_eq!(down.bounds((0, 4)), (10, 0));
        let up = LoopState::unsigned(true, u64::MAX - 5, u64::MAX, 2, Schedule::Static);
        assert_eq!(up.iters, 3);
        assert_eq!(up.bounds((2, 3)), (u64::MAX - 1, u64::MAX));
    }

    #[test]
    fn static_chunks_cover_once() {
        for n in 1..5 {
            for sched in [Schedule::Static, Schedule::StaticChunked { chunk: 3 }] {
                let mut seen = vec![0; 23];
                for tid in 0..n {
                    let mut lp = LoopState::signed(0, 23, 1, sched);
                    while let Some(r) = static_chunk(&lp, tid, n) {
                        r.for_each(|i| seen[i as usize] += 1);
                        lp.trip += 1;
                    }
                }
                assert!(seen.iter().all(|&c| c == 1), "{n} {sched:?} {seen:?}");
            }
        }
    }

    #[test]
    fn ring_slots_are_reused_in_order() {
        let ring = WsRing::new(2);
        for seq in 0..3 * RING as u64 {
            assert!(ring.enter(seq));
            assert!(!ring.enter(seq));
            ring.leave(seq);
            ring.leave(seq);
        }
        ring.reset();
        assert!(ring.enter(0));
    }
}
