//! An OpenMP-style team runtime (omp0 in Rust): parallel regions on a persistent team, worksharing
//! loops with static, dynamic and guided schedules, three barriers, linear and tree reductions,
//! critical sections over any lock of `welltempered-lock`, `single` and `master`, thread
//! pinning, and a wait policy that lets an idle team sleep.
//!
//! ```
//! use std::sync::atomic::{AtomicUsize, Ordering};
//! use welltempered_par::{BarrierKind, Config, Runtime, Schedule};
//!
//! let rt = Runtime::new(Config { threads: 4, barrier: BarrierKind::Tree, ..Config::default() });
//!
//! // A region: every team thread runs the closure, the caller being thread 0.
//! let hits = AtomicUsize::new(0);
//! let data = vec![1u64; 1000];
//! rt.parallel(|ctx| {
//!     hits.fetch_add(1, Ordering::Relaxed);
//!     ctx.barrier();
//!     if let Some(n) = ctx.single(|| hits.load(Ordering::Relaxed)) {
//!         assert_eq!(n, ctx.num_threads());
//!     }
//!     // A worksharing loop: the team divides the iterations (implicit barrier after).
//!     ctx.for_range(0..data.len(), |i| assert_eq!(data[i], 1));
//!     let total = ctx.reduce(ctx.thread_num() as u64, |a, b| a + b);
//!     assert_eq!(total, (0..ctx.num_threads() as u64).sum());
//! });
//!
//! // Loops and reductions at the top level.
//! let sum = rt.reduce(0..data.len(), 0u64, |i| data[i], |a, b| a + b);
//! assert_eq!(sum, 1000);
//! let seen: Vec<AtomicUsize> = (0..100).map(|_| AtomicUsize::new(0)).collect();
//! rt.parallel_for_schedule(0..100, Schedule::Dynamic { chunk: 4 }, |i| {
//!     seen[i].fetch_add(1, Ordering::Relaxed);
//! });
//! assert!(seen.iter().all(|c| c.load(Ordering::Relaxed) == 1));
//! ```
//!
//! The pieces, one file each:
//!
//! - `team.rs`: [`Runtime`] and [`Context`]: regions, the join, panics, nesting, `single`,
//!   `master`, `critical`, the worksharing loops; [`global`] and its free functions.
//! - `schedule.rs`: [`Schedule`], the static partitions and the [`ChunkDispenser`] ring.
//! - `barrier/`: [`BarrierKind`]: [`CentralBarrier`], [`TreeBarrier`],
//!   [`DisseminationBarrier`] (Mellor-Crummey & Scott 1991).
//! - `reduce.rs`: [`ReductionKind`], `Context::reduce`, `Runtime::reduce`.
//! - `wait.rs`: [`WaitPolicy`]: spin, sleep on a futex, or spin for a window then sleep
//!   ([`DEFAULT_SPIN_WINDOW`], and why).
//! - `pin.rs`: [`Pinning`] and [`ProcBind`] (OpenMP places), and the affinity reset of threads
//!   that must not be pinned.
//! - `env/`: [`Config`], the `WELLTEMPERED_*` variables and OpenMP's `OMP_*` ones (with
//!   libgomp's meaning), [`EnvError`]; `env/places.rs` resolves `OMP_PLACES` on the machine.
//! - `macros.rs`: [`par_for!`].
//!
//! Semantics (see `team.rs` for the details): the master is thread 0 and runs its share on the
//! calling thread; `parallel` returns or unwinds only after every worker is done with the
//! closure; a panic on any team thread is re-raised on the caller and the team stays usable (a
//! panic poisons the region's barriers so no thread waits forever for the one that panicked);
//! a region inside a region runs serially with a team of one; a second caller of `parallel` on
//! the same runtime waits its turn; worksharing constructs must be met by every team thread in
//! the same order, as in OpenMP.
//!
//! Under `--cfg loom` only the barriers and the chunk dispenser are built (the model-checked
//! algorithms); the runtime needs the operating system's threads and locks.

// Under loom only the model-checked algorithms are built; the team's helpers go unused.
#![cfg_attr(loom, allow(dead_code))]

#[cfg(not(loom))]
mod env;
#[cfg(not(loom))]
pub mod macros;
#[cfg(not(loom))]
mod pin;
#[cfg(not(loom))]
mod reduce;
#[cfg(not(loom))]
mod team;

pub mod barrier;
mod schedule;
pub(crate) mod sync;
mod wait;

pub use barrier::{BarrierKind, CentralBarrier, DisseminationBarrier, TreeBarrier};
pub use schedule::{ChunkDispenser, Schedule, static_block, static_chunks};
pub use wait::{DEFAULT_SPIN_WINDOW, WaitPolicy};

#[cfg(not(loom))]
pub use env::{Config, EnvError};
#[cfg(not(loom))]
pub use pin::{
    Pinning, ProcBind, current_affinity, online_cpus, reset_current_affinity, set_current_affinity,
};
#[cfg(not(loom))]
pub use reduce::{ReductionKind, reduce};
#[cfg(not(loom))]
pub use team::{Context, OVERSUBSCRIBED_LOCK_WINDOW, Runtime, global, parallel, parallel_for};
