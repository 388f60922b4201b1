//! Loom models of the barriers and the chunk dispenser:
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 CARGO_TARGET_DIR=target/loom cargo test --release -p welltempered-par --test loom`.
#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use welltempered_par::{
    CentralBarrier, ChunkDispenser, DisseminationBarrier, TreeBarrier, WaitPolicy,
};

/// A barrier as the models use it.
trait Barrier: Send + Sync + 'static {
    fn wait(&self, tid: usize, policy: WaitPolicy);
}
impl Barrier for CentralBarrier {
    fn wait(&self, tid: usize, policy: WaitPolicy) {
        CentralBarrier::wait(self, tid, policy)
    }
}
impl Barrier for TreeBarrier {
    fn wait(&self, tid: usize, policy: WaitPolicy) {
        TreeBarrier::wait(self, tid, policy)
    }
}
impl Barrier for DisseminationBarrier {
    fn wait(&self, tid: usize, policy: WaitPolicy) {
        DisseminationBarrier::wait(self, tid, policy)
    }
}

/// `n` threads, two phases: in phase one each writes its own cell (non-atomically), after
/// the barrier each reads every cell; in phase two each writes again after a second barrier.
/// Loom reports a data race if a barrier lets a thread through early, and a deadlock if one
/// never opens.
fn model<B: Barrier>(n: usize, make: fn(usize) -> B, policy: WaitPolicy) {
    loom::model(move || {
        let b = Arc::new(make(n));
        let cells: Arc<Vec<UnsafeCell<usize>>> =
            Arc::new((0..n).map(|_| UnsafeCell::new(0)).collect());
        let body = move |tid: usize, b: Arc<B>, cells: Arc<Vec<UnsafeCell<usize>>>| {
            cells[tid].with_mut(|p| unsafe { *p = tid + 1 });
            b.wait(tid, policy);
            for (k, c) in cells.iter().enumerate() {
                assert_eq!(c.with(|p| unsafe { *p }), k + 1);
            }
            b.wait(tid, policy);
            cells[tid].with_mut(|p| unsafe { *p = 0 });
        };
        let hs: Vec<_> = (1..n)
            .map(|tid| {
                let (b, cells) = (Arc::clone(&b), Arc::clone(&cells));
                loom::thread::spawn(move || body(tid, b, cells))
            })
            .collect();
        body(0, b, cells);
        for h in hs {
            h.join().unwrap();
        }
    });
}

// Two threads, two phases, both ways of waiting. Three-thread models exceed what loom
// explores in minutes (every waiter's re-read after a yield is a branch); the three-thread
// and larger teams are covered by the stress tests of `barrier/mod.rs` and `tests/team.rs`.

#[test]
fn central_spinning() {
    model(2, CentralBarrier::new, WaitPolicy::Active);
}

#[test]
fn central_sleeping() {
    model(2, CentralBarrier::new, WaitPolicy::Passive);
}

#[test]
fn tree_spinning() {
    model(2, TreeBarrier::new, WaitPolicy::Active);
}

#[test]
fn tree_sleeping() {
    model(2, TreeBarrier::new, WaitPolicy::Passive);
}

#[test]
fn dissemination_spinning() {
    model(2, DisseminationBarrier::new, WaitPolicy::Active);
}

#[test]
fn dissemination_sleeping() {
    model(2, DisseminationBarrier::new, WaitPolicy::Passive);
}

/// Two threads claim from one dispenser; the claims are disjoint and cover the range.
fn dispenser(claim: fn(&ChunkDispenser) -> Option<std::ops::Range<usize>>, len: usize) {
    loom::model(move || {
        let d = Arc::new(ChunkDispenser::new());
        let d2 = Arc::clone(&d);
        let h = loom::thread::spawn(move || {
            let mut mine = Vec::new();
            while let Some(r) = claim(&d2) {
                mine.push(r);
            }
            mine
        });
        let mut all = Vec::new();
        while let Some(r) = claim(&d) {
            all.push(r);
        }
        all.extend(h.join().unwrap());
        let mut seen = vec![0u8; len];
        for r in all {
            assert!(!r.is_empty());
            for i in r {
                seen[i] += 1;
            }
        }
        assert!(seen.iter().all(|&c| c == 1), "{seen:?}");
    });
}

#[test]
fn dynamic_claims_are_disjoint_and_cover() {
    dispenser(|d| d.claim_dynamic(5, 2, 2), 5);
}

#[test]
fn guided_claims_are_disjoint_and_cover() {
    dispenser(|d| d.claim_guided(7, 1, 2), 7);
}
