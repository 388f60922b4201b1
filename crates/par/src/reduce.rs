//! Team reductions, linear and tree (OpenMP 5.2 §5.5.8, the `reduction` clause; omp0's
//! `LinearReduction` and `TreeReduction`).
//!
//! - Linear: once every thread has published its value, thread 0 combines them in thread
//!   order, `((v0 ⊕ v1) ⊕ v2) ⊕ ...`: n - 1 combines on one thread.
//! - Tree: `ceil(log2 n)` rounds separated by barriers; in round `r` thread `i` with
//!   `i mod 2^(r+1) == 0` combines its value with thread `i + 2^r`'s, `v_i ⊕ v_(i+2^r)`: the
//!   same left-to-right order, in pairs, n - 1 combines spread over the team.
//!
//! Both equal the serial fold for an associative combine (the grouping differs, the order
//! does not), so integer sums are exact; floating-point sums equal the serial evaluation in the
//! same grouping. The values travel through one mutex-guarded slot per thread: no `unsafe`.
//! [`Context::reduce`] moves them as `Box<dyn Any>` (hence `T: 'static`, and a mismatch of
//! types between threads is a panic, not undefined behaviour); [`Runtime::reduce`] keeps typed
//! slots on the caller's stack. The per-thread partial values of `Runtime::reduce` follow the
//! configured schedule; with a static one each thread's partial is a contiguous block, so the
//! result is the serial fold's for any associative combine, and with dynamic or guided ones it
//! is for an associative and commutative one.

use crate::schedule::Schedule;
use crate::team::{Context, Runtime, global};
use core::ops::Range;
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::sync::{Mutex, PoisonError};

/// How a team reduction combines (`WELLTEMPERED_REDUCTION`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ReductionKind {
    /// Thread 0 combines every value in thread order.
    Linear,
    /// Pairwise combining in `ceil(log2 n)` rounds.
    #[default]
    Tree,
}

impl ReductionKind {
    /// Every kind.
    pub const ALL: [ReductionKind; 2] = [ReductionKind::Linear, ReductionKind::Tree];

    /// The kind's name, as `WELLTEMPERED_REDUCTION` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            ReductionKind::Linear => "linear",
            ReductionKind::Tree => "tree",
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Combines `slots` (each holding `Some` value) in place by `kind`, with `barrier` between the
/// rounds: afterwards slot 0 holds the result. Called by every team thread `tid` of `n`; the
/// first barrier is the caller's (after publishing).
fn combine_slots<T>(
    slots: &[CachePadded<Mutex<Option<T>>>],
    kind: ReductionKind,
    tid: usize,
    n: usize,
    barrier: impl Fn(),
    combine: impl Fn(T, T) -> T,
) {
    let take = |i: usize| lock(&slots[i]).take().expect("a published reduction value");
    match kind {
        ReductionKind::Linear => {
            if tid == 0 {
                let mut acc = take(0);
                for i in 1..n {
                    acc = combine(acc, take(i));
                }
                *lock(&slots[0]) = Some(acc);
            }
        }
        ReductionKind::Tree => {
            let mut stride = 1;
            while stride < n {
                if stride > 1 {
                    barrier();
                }
                if tid.is_multiple_of(2 * stride) && tid + stride < n {
                    let (a, b) = (take(tid), take(tid + stride));
                    *lock(&slots[tid]) = Some(combine(a, b));
                }
                stride *= 2;
            }
        }
    }
}

impl Context<'_> {
    /// Combines every team thread's `value` with `combine` (by the configured
    /// [`ReductionKind`]) and returns the result to every thread. All team threads must call
    /// it together with values of the same type (a mismatch panics).
    ///
    /// Deviation from the plain `T: Clone + Send + Sync` bound: `T: 'static`, because the
    /// values travel between the threads as `Box<dyn Any>`.
    pub fn reduce<T: Clone + Send + Sync + 'static>(
        &self,
        value: T,
        combine: impl Fn(T, T) -> T + Sync,
    ) -> T {
        let (tid, n) = (self.thread_num(), self.num_threads());
        if n == 1 {
            return value;
        }
        let slots = &self.shared.reduce_slots;
        *lock(&slots[tid]) = Some(Box::new(value));
        self.barrier();
        let unbox = |b: Box<dyn Any + Send>| -> T {
            *b.downcast::<T>()
                .unwrap_or_else(|_| panic!("Context::reduce called with different types"))
        };
        combine_slots(
            slots,
            self.shared.config.reduction,
            tid,
            n,
            || self.barrier(),
            |a, b| Box::new(combine(unbox(a), unbox(b))) as Box<dyn Any + Send>,
        );
        // Thread 0 hands every thread its copy; then each takes its own.
        if tid == 0 {
            let result = unbox(lock(&slots[0]).take().expect("the reduction's result"));
            for s in &slots[1..] {
                *lock(s) = Some(Box::new(result.clone()));
            }
            *lock(&slots[0]) = Some(Box::new(result));
        }
        self.barrier();
        unbox(
            lock(&slots[tid])
                .take()
                .expect("this thread's copy of the result"),
        )
    }
}

impl Runtime {
    /// Folds `map(i)` over `range` with `combine`, starting every thread's partial value from
    /// `identity` (which must be an identity of `combine`), and combines the partials by the
    /// configured [`ReductionKind`] (`parallel for reduction(...)`). The iterations follow the
    /// configured schedule.
    pub fn reduce<T, M, C>(&self, range: Range<usize>, identity: T, map: M, combine: C) -> T
    where
        T: Clone + Send + Sync,
        M: Fn(usize) -> T + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let schedule = self.config().schedule;
        self.reduce_chunks(
            range,
            schedule,
            identity,
            |r, mut acc| {
                for i in r {
                    acc = combine(acc, map(i));
                }
                acc
            },
            &combine,
        )
    }

    /// The general form of [`Runtime::reduce`]: each thread folds its chunks (under
    /// `schedule`) with `fold(chunk, partial) -> partial`, starting from `identity`; the
    /// partials are combined by the configured kind. `par_for!`'s reductions use it.
    pub fn reduce_chunks<T, F, C>(
        &self,
        range: Range<usize>,
        schedule: Schedule,
        identity: T,
        fold: F,
        combine: C,
    ) -> T
    where
        T: Clone + Send + Sync,
        F: Fn(Range<usize>, T) -> T + Sync,
        C: Fn(T, T) -> T + Sync,
    {
        let n = self.num_threads();
        let slots: Vec<CachePadded<Mutex<Option<T>>>> =
            (0..n).map(|_| CachePadded::new(Mutex::new(None))).collect();
        let kind = self.config().reduction;
        let team = core::sync::atomic::AtomicUsize::new(n);
        self.parallel(|ctx| {
            let (tid, n) = (ctx.thread_num(), ctx.num_threads());
            let mut acc = Some(identity.clone());
            ctx.for_chunks(range.clone(), schedule, |r| {
                acc = acc.take().map(|a| fold(r, a));
            });
            *lock(&slots[tid]) = acc;
            if n == 1 {
                // A nested (serial) region: only slot 0 is used.
                team.store(1, core::sync::atomic::Ordering::Relaxed);
                return;
            }
            // The linear kind combines after the join (thread 0 is the caller); the tree kind
            // combines in the region.
            if kind == ReductionKind::Tree {
                ctx.barrier();
                combine_slots(&slots, kind, tid, n, || ctx.barrier(), &combine);
            }
        });
        let n = team.load(core::sync::atomic::Ordering::Relaxed);
        if kind == ReductionKind::Linear && n > 1 {
            combine_slots(&slots, kind, 0, n, || {}, &combine);
        }
        lock(&slots[0]).take().expect("the reduction's result")
    }
}

/// [`Runtime::reduce`] on the [`global`] runtime.
pub fn reduce<T, M, C>(range: Range<usize>, identity: T, map: M, combine: C) -> T
where
    T: Clone + Send + Sync,
    M: Fn(usize) -> T + Sync,
    C: Fn(T, T) -> T + Sync,
{
    global().reduce(range, identity, map, combine)
}
