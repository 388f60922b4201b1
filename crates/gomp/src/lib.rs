//! libgomp's ABI on the welltempered team runtime: unmodified OpenMP programs compiled by GCC
//! (`gcc -fopenmp`, which calls `GOMP_parallel`, `GOMP_loop_*`, `GOMP_barrier`, `omp_*`, ...)
//! run on `welltempered-par`'s teams with
//!
//! ```sh
//! LD_PRELOAD=target/release/libwelltempered_gomp.so ./program
//! ```
//!
//! The same binary runs on libgomp without the variable, which makes the comparison exact: one
//! compilation, two runtimes. LLVM's libomp runs GCC's binaries the same way, by implementing
//! the `GOMP_*` entry points ("LLVM OpenMP runtime: GNU compatibility layer",
//! <https://openmp.llvm.org/>); the ABI is documented by libgomp's own sources
//! (`libgomp/libgomp_g.h` in GCC, <https://gcc.gnu.org/git/?p=gcc.git;a=tree;f=libgomp>).
//!
//! Every primitive is ours to choose through the configuration of `welltempered-par`
//! (`WELLTEMPERED_BARRIER`, `WELLTEMPERED_LOCK` for `critical`, `atomic` and the `omp_*_lock`
//! API, `WELLTEMPERED_WAIT_POLICY`), and the `OMP_*` variables mean what they mean to libgomp
//! (`WELLTEMPERED_*` win when both are set).
//!
//! | construct | entry points | here |
//! |---|---|---|
//! | `parallel` (`num_threads`, `if`) | `GOMP_parallel` | a team of `welltempered-par`; nested regions run with a team of one |
//! | `for` (static, dynamic, guided, runtime, `nonmonotonic`, `ordered`, `nowait`; `long` and `unsigned long long`) | `GOMP_loop_*`, `GOMP_loop_ull_*`, `GOMP_loop_start`, `GOMP_parallel_loop_*` | implemented |
//! | `sections`, `parallel sections` | `GOMP_sections*`, `GOMP_parallel_sections` | implemented |
//! | `single`, `single copyprivate` | `GOMP_single_start`, `GOMP_single_copy_*` | implemented |
//! | `master`, `masked` | (inline) | implemented |
//! | `critical`, named `critical` | `GOMP_critical_*` | a lock of the configured kind; without `WELLTEMPERED_LOCK`, a two-phase lock (`TwoPhase`: test-and-set with backoff for the wait policy's window, then sleep), as libgomp's lock waits |
//! | `atomic` (lock fallback) | `GOMP_atomic_*` | a lock as for `critical` |
//! | `barrier` | `GOMP_barrier` | the configured barrier; without `WELLTEMPERED_BARRIER`, dissemination while the team fits the CPUs, central beyond |
//! | `ordered` | `GOMP_ordered_*` | implemented |
//! | `task`, `taskwait`, `taskgroup`, `taskyield` | `GOMP_task*` | serial: each task runs when created |
//! | `cancel`, `cancellation point` | `GOMP_cancel*` | cancellation off (as libgomp by default); `OMP_CANCELLATION=true` refused |
//! | locks | `omp_*_lock`, `omp_*_nest_lock` | the configured kind |
//! | `threadprivate` | (TLS) | nothing to do |
//! | runtime routines | `omp_*` | see `api.rs` |
//! | `taskloop`, `target`, `teams`, `doacross`, task reductions, allocators, OpenACC, Fortran entries, `GOMP_parallel_start` (GCC before 4.9) | | refused: a message and `abort()` |
//!
//! The parts, one file each: `team.rs` (regions and per-thread state), `workshare.rs` (the
//! worksharing ring, loops, `ordered`, `copyprivate`), `loops.rs` (their entry points),
//! `sync.rs` (barrier, critical, atomic, single), `locks.rs`, `api.rs`, `tasks.rs`,
//! `refused.rs`, and `current.c` (the calling thread's state in initial-exec thread-local
//! storage, as libgomp keeps its own: the library is meant to be loaded at program start, by
//! `LD_PRELOAD` or by linking, not opened late with `dlopen`).
//!
//! The wait policy is `welltempered-par`'s: spin for 150 µs, then sleep. libgomp spins 300,000
//! times first, which suits loops whose threads often wait longer than that at a barrier (EPCC's
//! schedbench); `WELLTEMPERED_WAIT_POLICY=active` or `spin-then-sleep,2000` gives that
//! behaviour, at the cost of the CPU an idle team burns.
//!
//! The library's Rust items exist for its own tests; the product is the C ABI of the cdylib.

// The exported names are libgomp's.
#![allow(non_snake_case)]

mod api;
mod locks;
mod loops;
mod refused;
mod sync;
mod tasks;
mod team;
mod workshare;
