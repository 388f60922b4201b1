//! Helpers shared by the integration tests.
#![allow(dead_code)]

use welltempered_par::{BarrierKind, Config, ReductionKind, Runtime, Schedule, WaitPolicy};

/// Scales an iteration count down under Miri.
pub fn scaled(n: usize) -> usize {
    if cfg!(miri) { (n / 100).max(2) } else { n }
}

/// A runtime of `threads` threads with the given barrier, everything else default.
pub fn runtime(threads: usize, barrier: BarrierKind) -> Runtime {
    Runtime::new(Config {
        threads,
        barrier,
        ..Config::default()
    })
}

/// A configuration of `threads` threads.
pub fn config(threads: usize) -> Config {
    Config {
        threads,
        ..Config::default()
    }
}

/// Every schedule worth testing.
pub const SCHEDULES: [Schedule; 9] = [
    Schedule::Static,
    Schedule::StaticChunked { chunk: 1 },
    Schedule::StaticChunked { chunk: 7 },
    Schedule::StaticChunked { chunk: usize::MAX },
    Schedule::Dynamic { chunk: 1 },
    Schedule::Dynamic { chunk: 5 },
    Schedule::Dynamic { chunk: usize::MAX },
    Schedule::Guided { min_chunk: 1 },
    Schedule::Guided {
        min_chunk: usize::MAX,
    },
];

/// Every wait policy worth testing.
pub fn policies() -> [WaitPolicy; 3] {
    [
        WaitPolicy::Active,
        WaitPolicy::Passive,
        WaitPolicy::default(),
    ]
}

/// Every reduction kind.
pub const REDUCTIONS: [ReductionKind; 2] = ReductionKind::ALL;
