//! The team's barriers: a sense-reversing central counter, a static tree and a dissemination
//! barrier (Mellor-Crummey & Scott, "Algorithms for Scalable Synchronization on Shared-Memory
//! Multiprocessors", ACM TOCS 9(1), 1991, §3), each waiting by the team's
//! [`WaitPolicy`](crate::WaitPolicy).
//!
//! Every barrier keeps its per-thread state (sense, parity) inside itself, indexed by the
//! thread's number in the team, never in a thread-local: omp0's sense barrier kept
//! `thread_local int local_sense_`, which a second runtime on the same thread inherited in the
//! wrong phase, and the protocol desynchronised. Each barrier here can be reused for any number
//! of phases, and many barriers can be used by the same threads.
//!
//! The barriers are public so that they can be used (and model-checked) on their own: thread
//! `tid` of `n` calls `wait(tid, policy)`; each `tid` in `0..n` must be used by exactly one
//! thread at a time.

mod central;
mod dissemination;
mod tree;

pub use central::CentralBarrier;
pub use dissemination::DisseminationBarrier;
pub use tree::TreeBarrier;

use crate::wait::{Poisoned, Waiter};

/// Which barrier a team uses (`WELLTEMPERED_BARRIER`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BarrierKind {
    /// A shared counter and a sense flag that the last arrival reverses ([`CentralBarrier`]).
    #[default]
    Central,
    /// A static binary tree: arrivals combine up the tree, the release goes down it
    /// ([`TreeBarrier`]).
    Tree,
    /// The dissemination barrier: `ceil(log2 n)` rounds of pairwise signals
    /// ([`DisseminationBarrier`]).
    Dissemination,
}

impl BarrierKind {
    /// Every kind.
    pub const ALL: [BarrierKind; 3] = [
        BarrierKind::Central,
        BarrierKind::Tree,
        BarrierKind::Dissemination,
    ];

    /// The kind's name, as `WELLTEMPERED_BARRIER` spells it.
    pub const fn name(self) -> &'static str {
        match self {
            BarrierKind::Central => "central",
            BarrierKind::Tree => "tree",
            BarrierKind::Dissemination => "dissemination",
        }
    }
}

/// A barrier of one of the kinds, for a team of fixed size.
// One per team, made once: its size does not matter, and the central barrier's words stay
// inline (one indirection less on the hot path).
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub(crate) enum TeamBarrier {
    Central(CentralBarrier),
    Tree(TreeBarrier),
    Dissemination(DisseminationBarrier),
}

impl TeamBarrier {
    pub(crate) fn new(kind: BarrierKind, n: usize) -> Self {
        match kind {
            BarrierKind::Central => TeamBarrier::Central(CentralBarrier::new(n)),
            BarrierKind::Tree => TeamBarrier::Tree(TreeBarrier::new(n)),
            BarrierKind::Dissemination => TeamBarrier::Dissemination(DisseminationBarrier::new(n)),
        }
    }

    #[inline]
    pub(crate) fn wait_in(&self, tid: usize, w: Waiter<'_>) -> Result<(), Poisoned> {
        match self {
            TeamBarrier::Central(b) => b.wait_in(tid, w),
            TeamBarrier::Tree(b) => b.wait_in(tid, w),
            TeamBarrier::Dissemination(b) => b.wait_in(tid, w),
        }
    }

    /// Poisons every word a thread may wait on.
    pub(crate) fn poison(&self) {
        match self {
            TeamBarrier::Central(b) => b.poison(),
            TeamBarrier::Tree(b) => b.poison(),
            TeamBarrier::Dissemination(b) => b.poison(),
        }
    }

    /// Back to the initial state. Only while no thread uses the barrier.
    pub(crate) fn reset(&self) {
        match self {
            TeamBarrier::Central(b) => b.reset(),
            TeamBarrier::Tree(b) => b.reset(),
            TeamBarrier::Dissemination(b) => b.reset(),
        }
    }
}

/// Used by each barrier's public `wait`: the wait that is never poisoned.
fn unpoisoned(r: Result<(), Poisoned>) {
    // Only the team poisons its barriers (through `TeamBarrier::poison`).
    r.expect("a barrier used on its own is never poisoned");
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use crate::sync::{AtomicUsize, Ordering};
    use crate::wait::WaitPolicy;
    use std::time::Duration;

    /// `n` threads pass `phases` phases; in each, every thread adds one to the phase's counter
    /// before the barrier and checks after it that all `n` did.
    pub(crate) fn phases(kind: BarrierKind, n: usize, phases: usize, policy: WaitPolicy) {
        let b = TeamBarrier::new(kind, n);
        let counts: Vec<AtomicUsize> = (0..phases).map(|_| AtomicUsize::new(0)).collect();
        std::thread::scope(|s| {
            for tid in 0..n {
                let (b, counts) = (&b, &counts);
                s.spawn(move || {
                    for c in counts {
                        c.fetch_add(1, Ordering::Relaxed);
                        b.wait_in(tid, Waiter::new(policy)).unwrap();
                        assert_eq!(c.load(Ordering::Relaxed), n);
                    }
                });
            }
        });
    }

    const PHASES: usize = if cfg!(miri) { 20 } else { 2000 };

    #[test]
    fn every_kind_every_size() {
        for kind in BarrierKind::ALL {
            for n in [1, 2, 3, 4, 5, 7, 8] {
                let n = if cfg!(miri) { n.min(3) } else { n };
                phases(kind, n, PHASES, WaitPolicy::Active);
            }
        }
    }

    #[test]
    fn sleeping_policies() {
        for kind in BarrierKind::ALL {
            phases(kind, 3, PHASES / 4, WaitPolicy::Passive);
            phases(
                kind,
                3,
                PHASES / 4,
                WaitPolicy::SpinThenSleep {
                    window: Duration::from_micros(5),
                },
            );
        }
    }

    #[test]
    fn poison_releases_waiters() {
        for kind in BarrierKind::ALL {
            let b = TeamBarrier::new(kind, 3);
            let flag = crate::sync::AtomicBool::new(false);
            std::thread::scope(|s| {
                let hs: Vec<_> = (0..2)
                    .map(|tid| {
                        let (b, flag) = (&b, &flag);
                        s.spawn(move || {
                            let w = Waiter {
                                policy: WaitPolicy::Passive,
                                poison: Some(flag),
                            };
                            b.wait_in(tid, w)
                        })
                    })
                    .collect();
                // Thread 2 never arrives.
                flag.store(true, Ordering::SeqCst);
                b.poison();
                for h in hs {
                    assert_eq!(h.join().unwrap(), Err(Poisoned));
                }
            });
            b.reset();
            phases_on(&b, 3, 10);
        }
    }

    fn phases_on(b: &TeamBarrier, n: usize, phases: usize) {
        std::thread::scope(|s| {
            for tid in 0..n {
                s.spawn(move || {
                    for _ in 0..phases {
                        b.wait_in(tid, Waiter::new(WaitPolicy::Active)).unwrap();
                    }
                });
            }
        });
    }
}
