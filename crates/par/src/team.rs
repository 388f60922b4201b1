//! The persistent team and its parallel regions (OpenMP 5.2 §10.1 `parallel`, §11 worksharing,
//! §15.1 `critical`, §11.1 `single`, §10.6 `masked`; omp0's `ThreadPool` and `Runtime`).
//!
//! A [`Runtime`] owns `threads - 1` worker threads; the thread that calls
//! [`Runtime::parallel`] is the master, team thread 0, and runs its share of the region itself.
//! A region is handed over through an epoch word: the master stores the closure's address, then
//! increments the epoch; idle workers wait on the epoch by the wait policy (spin for the window,
//! then sleep on the futex), run the closure, and count themselves done on a join word the
//! master waits on. The join counter is reset by the master only after every worker has counted
//! itself, and only then is the next epoch started, so a late increment can never land in the
//! next region's count (omp0's `active_` race on EPYC).
//!
//! Guarantees:
//! - Closures borrow from the caller's stack: `parallel` returns (or unwinds) only after every
//!   worker is done with the closure, panic or not.
//! - A panic on any team thread is caught, the first payload is re-raised on the caller by
//!   `resume_unwind` after the join, and the team stays usable. Payloads are user values whose
//!   `Drop` may itself panic: none is dropped before the join (that could unwind the master out
//!   of `parallel` while workers still borrow its stack, or kill a worker the join waits for).
//!   The others are dropped by the master after the join, each inside `catch_unwind`; a panic
//!   from such a drop is leaked rather than dropped again. The same holds for reduction values
//!   left behind by a panicking region. The panic *poisons* the
//!   region: every barrier and loop dispenser word is marked, so team threads that wait in a
//!   barrier (or for a loop slot) for the thread that panicked unwind instead of waiting
//!   forever, as do those that reach such a construct later in the region. Their unwinding is
//!   not reported; the first real panic is. After the join the master resets the barriers and
//!   dispensers, and the next region starts clean. A thread that never reaches a barrier
//!   (a long computation, a lock held elsewhere) is waited for as usual.
//! - A region started inside a region (on any runtime, from any team thread) runs serially on
//!   the calling thread with a team of one: `thread_num() == 0`, `num_threads() == 1`, the
//!   barriers do nothing, loops run whole, `critical` still takes that runtime's lock.
//! - Two threads calling `parallel` on one runtime at once: the second waits until the first
//!   region is over (a region lock), then runs its own on the same team.
//! - Worksharing constructs (`for_range*`, `single*`, `reduce`, and `barrier`) must be met by
//!   every team thread in the same order, as in OpenMP; a loop must be given the same range
//!   and schedule on every thread. Breaking this is not undefined behaviour (no `unsafe`
//!   depends on it) but can deadlock or divide the iterations wrongly.

use crate::barrier::TeamBarrier;
use crate::env::{Config, EnvError};
use crate::pin;
use crate::schedule::{self, DispenserRing, Schedule};
use crate::sync::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use crate::wait::{WaitWord, Waiter};
use core::cell::{Cell, UnsafeCell};
use core::marker::PhantomData;
use core::ops::Range;
use crossbeam_utils::CachePadded;
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use welltempered_lock::{DynMutex, DynRawMutex, LockKind, TwoPhase};

thread_local! {
    /// Whether this thread is running a region's closure (a team thread of any runtime).
    static IN_REGION: Cell<bool> = const { Cell::new(false) };
}

/// Sets [`IN_REGION`] for a scope and restores it after, on unwinding too.
struct InRegion(bool);

impl InRegion {
    fn enter() -> Self {
        InRegion(IN_REGION.replace(true))
    }
}

impl Drop for InRegion {
    fn drop(&mut self) {
        IN_REGION.set(self.0);
    }
}

/// A non-zero number that tells the calling thread from every other live thread (the address
/// of a thread-local).
fn thread_token() -> usize {
    thread_local! {
        static TOKEN: u8 = const { 0 };
    }
    TOKEN.with(|t| core::ptr::from_ref(t) as usize)
}

/// The payload a team thread unwinds with when its region was poisoned by another's panic.
struct PoisonUnwind;

/// Unwinds out of a poisoned region (without running the panic hook: nothing to report).
fn poison_unwind() -> ! {
    resume_unwind(Box::new(PoisonUnwind))
}

/// A region's closure, type-erased: its address and the monomorphised function calling it.
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    call: unsafe fn(*const (), &Context<'_>),
}

/// Calls the closure of type `F` at `data`.
///
/// # Safety
///
/// `data` must point to a live `F` for the duration of the call.
unsafe fn call_job<F: Fn(&Context<'_>) + Sync>(data: *const (), ctx: &Context<'_>) {
    // SAFETY: the caller's contract: `data` is a live `F`; `F: Sync` allows the shared borrow
    // from this thread.
    let f = unsafe { &*data.cast::<F>() };
    f(ctx)
}

/// The slot holding the current region's job.
struct JobCell(UnsafeCell<Option<Job>>);

// SAFETY: the cell is written only by the master, and only while no worker reads it (before
// the epoch increment that starts a region, and after the join that ends it); workers read it
// after acquiring that epoch. The job's closure is `Sync` (a bound of `parallel`), so calling it
// from the workers through the shared address is sound.
unsafe impl Sync for JobCell {}
// SAFETY: as above: the raw pointer is only a shared borrow of a `Sync` closure.
unsafe impl Send for JobCell {}

/// What starts a region: the epoch word workers wait on, and the job it publishes.
struct Start {
    epoch: WaitWord,
    job: JobCell,
}

/// Per team thread state, touched only by its own thread (and reset by the master while the
/// team is idle).
#[derive(Debug, Default)]
struct ThreadSlot {
    /// Dynamic/guided loops met so far (the ring index).
    loops: AtomicU32,
    /// `single` constructs met so far.
    singles: AtomicUsize,
}

/// One thread's exchange slot of `Context::reduce`.
pub(crate) type AnySlot = CachePadded<Mutex<Option<Box<dyn Any + Send>>>>;

/// What the runtime and its workers share.
pub(crate) struct Shared {
    pub(crate) config: Config,
    pub(crate) n: usize,
    /// The epoch word and the job it publishes, on one cache line: a worker woken by the epoch
    /// finds the job in the line it just fetched.
    start: CachePadded<Start>,
    done: CachePadded<WaitWord>,
    shutdown: AtomicBool,
    poisoned: CachePadded<AtomicBool>,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
    /// The payloads of the region's other panics, dropped by the master after the join.
    other_panics: Mutex<Vec<Box<dyn Any + Send>>>,
    barrier: TeamBarrier,
    critical: DynMutex<()>,
    /// The thread holding `critical` ([`thread_token`]), 0 when free: re-entry is reported.
    critical_owner: AtomicUsize,
    ring: DispenserRing,
    singles: CachePadded<AtomicUsize>,
    slots: Box<[CachePadded<ThreadSlot>]>,
    /// The master's CPUs when it is to be pinned (computed once: counting the online CPUs reads
    /// sysfs).
    master_cpus: Option<Vec<usize>>,
    /// The exchange slots of `Context::reduce`, one per team thread.
    pub(crate) reduce_slots: Box<[AnySlot]>,
}

impl Shared {
    /// A wait inside a region: gives up when the region is poisoned.
    pub(crate) fn waiter(&self) -> Waiter<'_> {
        Waiter {
            policy: self.config.wait,
            poison: Some(&self.poisoned),
        }
    }

    /// Records a caught panic (the first real one is kept for the caller, the others for the
    /// master to drop after the join) and poisons the region. Drops no user payload.
    fn record_panic(&self, payload: Box<dyn Any + Send>) {
        if payload.is::<PoisonUnwind>() {
            // Our own marker: its drop runs no user code.
            drop(payload);
        } else {
            let mut slot = self.panic.lock().unwrap_or_else(PoisonError::into_inner);
            if slot.is_none() {
                *slot = Some(payload);
            } else {
                drop(slot);
                self.other_panics
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(payload);
            }
        }
        if !self.poisoned.swap(true, Ordering::SeqCst) {
            self.barrier.poison();
            self.ring.poison();
        }
    }

    /// After the join of a poisoned region: every construct back to its initial state. The
    /// values left in reduction slots and the extra panic payloads are dropped last, once the
    /// team is usable again, each by [`drop_quietly`].
    fn recover(&self) {
        self.barrier.reset();
        self.ring.reset();
        self.singles.store(0, Ordering::SeqCst);
        for s in self.slots.iter() {
            s.loops.store(0, Ordering::SeqCst);
            s.singles.store(0, Ordering::SeqCst);
        }
        let left: Vec<_> = self
            .reduce_slots
            .iter()
            .filter_map(|r| r.lock().unwrap_or_else(PoisonError::into_inner).take())
            .collect();
        self.poisoned.store(false, Ordering::SeqCst);
        left.into_iter().for_each(drop_quietly);
        let others = std::mem::take(
            &mut *self
                .other_panics
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        others.into_iter().for_each(drop_quietly);
    }
}

/// Drops a user value on the master after the join, where an unwind would lose the panic being
/// re-raised: a panic of its `Drop` is caught and its payload dropped the same way, up to a
/// depth of 8 payloads of payloads, beyond which the last one is leaked.
fn drop_quietly(value: Box<dyn Any + Send>) {
    let mut value = value;
    for _ in 0..8 {
        match catch_unwind(AssertUnwindSafe(move || drop(value))) {
            Ok(()) => return,
            Err(payload) => value = payload,
        }
    }
    std::mem::forget(value);
}

impl Shared {}

/// A team of threads running parallel regions (OpenMP's runtime, with every primitive chosen by
/// its [`Config`]).
///
/// The team is created by [`Runtime::new`] and lives until the runtime is dropped, which joins
/// the workers. See the [module documentation](crate) for an example.
pub struct Runtime {
    shared: Arc<Shared>,
    /// Held for the whole of a region: concurrent callers take turns.
    region: Mutex<()>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("config", &self.shared.config)
            .finish_non_exhaustive()
    }
}

/// The longest a waiter for the default `critical` lock spins when the team has more threads
/// than there are CPUs: a waiter that spins then mostly keeps the lock's holder, or the thread
/// about to take it, from running. libgomp throttles its spinning the same way (its
/// `GOMP_SPINCOUNT` drops from 300,000 to 1,000 when threads outnumber CPUs). Measured on a
/// 2-CPU VM, 4 threads, 10 µs critical sections: 0.74x libgomp's `critical` with the wait
/// policy's 150 µs, 0.90x with 20 µs; shorter sections do not notice.
pub const OVERSUBSCRIBED_LOCK_WINDOW: std::time::Duration = std::time::Duration::from_micros(20);

impl Config {
    /// A lock of the configured kind, as `critical` takes it: a [`LockKind::TwoPhase`] lock
    /// (the default) spins for the wait policy's window before it sleeps, as every other waiter
    /// of the team does ([`crate::WaitPolicy::spin_window`]), but at most
    /// [`OVERSUBSCRIBED_LOCK_WINDOW`] when `threads` exceeds the CPUs; the other kinds wait
    /// their own way.
    ///
    /// Why the two-phase lock by default rather than the default mutex of `welltempered-lock`:
    /// that mutex's newcomers spin a few hints, yield, then queue and park, bounding how often a
    /// queued thread is overtaken. A critical section promises no fairness, and its usual shape
    /// (a loop around a short section; EPCC's `CRITICAL` and `LOCK/UNLOCK`) runs fastest when the
    /// releasing thread takes the lock again while the waiter backs off. EPCC's overhead per
    /// section through `welltempered-gomp`, 2 threads on a 2-CPU VM: 0.016-0.037 µs with the
    /// two-phase lock, 0.10-0.14 with the default mutex (whose waiter parks and is woken),
    /// 0.028-0.068 for libgomp's own; at 4 and 8 threads 0.019-0.024 against libgomp's 0.05-0.08.
    pub fn critical_lock(&self) -> DynRawMutex {
        match self.lock {
            LockKind::TwoPhase => {
                // Read once: `available_parallelism` reads the cgroup's quota files, and
                // welltempered-gomp makes a lock per OpenMP lock it allocates.
                static CPUS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
                let cpus = *CPUS
                    .get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
                let mut window = self.wait.spin_window();
                if self.threads > cpus {
                    window = window.min(OVERSUBSCRIBED_LOCK_WINDOW);
                }
                DynRawMutex::TwoPhase(TwoPhase::with_window(window))
            }
            kind => DynRawMutex::new(kind),
        }
    }
}

impl Runtime {
    /// Starts a team of `config.threads` threads (the caller counts as one; `threads == 0` is
    /// taken as 1, a team with no workers). The workers get a stack of `config.stack_size`
    /// bytes when it is set (`OMP_STACKSIZE`; the standard library's default otherwise); the
    /// master runs on the caller's stack.
    ///
    /// # Panics
    ///
    /// If the operating system refuses to create a worker thread.
    pub fn new(mut config: Config) -> Runtime {
        config.threads = config.threads.max(1);
        let n = config.threads;
        let shared = Arc::new(Shared {
            n,
            start: CachePadded::new(Start {
                epoch: WaitWord::new(0),
                job: JobCell(UnsafeCell::new(None)),
            }),
            done: CachePadded::new(WaitWord::new(0)),
            shutdown: AtomicBool::new(false),
            poisoned: CachePadded::new(AtomicBool::new(false)),
            panic: Mutex::new(None),
            other_panics: Mutex::new(Vec::new()),
            barrier: TeamBarrier::new(config.barrier, n),
            critical: DynMutex::from_raw(config.critical_lock(), ()),
            critical_owner: AtomicUsize::new(0),
            ring: DispenserRing::new(n),
            singles: CachePadded::new(AtomicUsize::new(0)),
            slots: (0..n).map(|_| CachePadded::default()).collect(),
            master_cpus: config.pinning.cpus_of(0, n),
            reduce_slots: (0..n).map(|_| CachePadded::new(Mutex::new(None))).collect(),
            config,
        });
        let workers = (1..n)
            .map(|tid| {
                let shared = Arc::clone(&shared);
                let builder = std::thread::Builder::new().name(format!("welltempered-par-{tid}"));
                let builder = match shared.config.stack_size {
                    Some(bytes) => builder.stack_size(bytes),
                    None => builder,
                };
                builder
                    .spawn(move || worker(&shared, tid))
                    .expect("spawning a team thread")
            })
            .collect();
        Runtime {
            shared,
            region: Mutex::new(()),
            workers,
        }
    }

    /// A runtime configured by the `WELLTEMPERED_*` and `OMP_*` variables ([`Config::from_env`]).
    pub fn from_env() -> Result<Runtime, EnvError> {
        Config::from_env().map(Runtime::new)
    }

    /// The configuration (with `threads` at least 1).
    pub fn config(&self) -> &Config {
        &self.shared.config
    }

    /// The team size, master included.
    pub fn num_threads(&self) -> usize {
        self.shared.n
    }

    /// Runs `f` on every team thread (`#pragma omp parallel`), the caller being thread 0, and
    /// returns when all are done. A region inside a region runs serially with a team of one;
    /// a concurrent caller waits for the region in progress. A panic of any team thread is
    /// re-raised here, after every thread has left `f`.
    pub fn parallel<F: Fn(&Context<'_>) + Sync>(&self, f: F) {
        let s = &*self.shared;
        if s.n == 1 || IN_REGION.get() {
            let _in = InRegion::enter();
            f(&Context::serial(s));
            return;
        }
        let _region = self.region.lock().unwrap_or_else(PoisonError::into_inner);
        let job = Job {
            data: (&raw const f).cast(),
            call: call_job::<F>,
        };
        // SAFETY: no worker reads the cell now: the last region's join is over (every worker
        // counted itself done after its last read) and the next epoch is not started yet.
        unsafe { *s.start.job.0.get() = Some(job) };
        // Starts the region; SeqCst (a release) publishes the job.
        s.start.epoch.fetch_add_wake(1);

        let saved = s
            .master_cpus
            .as_deref()
            .and_then(|cpus| pin::pin_saving(cpus).ok());
        let result = {
            let _in = InRegion::enter();
            catch_unwind(AssertUnwindSafe(|| f(&Context::team(s, 0))))
        };
        if let Err(p) = result {
            s.record_panic(p);
        }
        // The join: every worker is done with `f` once the counter reaches n - 1.
        let workers = (s.n - 1) as u32;
        let _ = s
            .done
            .wait_until(Waiter::new(s.config.wait), |v| v == workers);
        s.done.reset(0);
        // The job cell keeps the finished region's job (a dangling closure address) until the
        // next region overwrites it: no worker reads it before the next epoch, and clearing it
        // here would take the line from the spinning workers once more per region.
        if let Some(saved) = saved {
            saved.restore();
        }
        // Every recorded panic poisons the region: an unpoisoned region has no payload to take
        // (which spares the payload's lock on the common path).
        let poisoned = s.poisoned.load(Ordering::SeqCst);
        if poisoned {
            s.recover();
        }
        let payload = if poisoned {
            s.panic
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take()
        } else {
            None
        };
        drop(_region);
        if let Some(p) = payload {
            resume_unwind(p);
        }
    }

    /// Runs `f(i)` for every `i` in `range`, divided by the configured schedule
    /// (`#pragma omp parallel for`).
    pub fn parallel_for<F: Fn(usize) + Sync>(&self, range: Range<usize>, f: F) {
        self.parallel_for_schedule(range, self.shared.config.schedule, f);
    }

    /// Runs `f(i)` for every `i` in `range`, divided by `schedule`.
    pub fn parallel_for_schedule<F: Fn(usize) + Sync>(
        &self,
        range: Range<usize>,
        schedule: Schedule,
        f: F,
    ) {
        // The region's join is the loop's implicit barrier.
        self.parallel(|ctx| ctx.for_range_schedule_nowait(range.clone(), schedule, &f));
    }
}

impl Drop for Runtime {
    /// Stops and joins the workers.
    fn drop(&mut self) {
        let _region = self.region.lock().unwrap_or_else(PoisonError::into_inner);
        self.shared.shutdown.store(true, Ordering::SeqCst);
        self.shared.start.epoch.fetch_add_wake(1);
        for w in self.workers.drain(..) {
            // Workers catch every panic of a region; a failed join has nothing to report.
            let _ = w.join();
        }
    }
}

/// A worker's life: pin (or reset the affinity), then wait for regions until shutdown.
fn worker(s: &Shared, tid: usize) {
    pin::apply_worker(&s.config.pinning, tid, s.n);
    // A worker only ever runs region closures: any region it starts runs serially.
    IN_REGION.set(true);
    let idle = Waiter::new(s.config.wait);
    let workers = (s.n - 1) as u32;
    let mut seen = 0;
    loop {
        let Ok(e) = s.start.epoch.wait_until(idle, |v| v != seen) else {
            unreachable!("an idle wait is never poisoned")
        };
        seen = e;
        if s.shutdown.load(Ordering::SeqCst) {
            return;
        }
        // SAFETY: the master wrote the job before the epoch increment acquired above and does
        // not touch it again before this worker counts itself done.
        let job = unsafe { *s.start.job.0.get() }.expect("a region's job");
        let ctx = Context::team(s, tid);
        // SAFETY: the closure lives on the master's stack until the join, which waits for this
        // worker's increment below, made after the call has returned or unwound.
        let r = catch_unwind(AssertUnwindSafe(|| unsafe { (job.call)(job.data, &ctx) }));
        if let Err(p) = r {
            s.record_panic(p);
        }
        s.done.fetch_add_wake_if(1, |v| v == workers);
    }
}

/// A team thread's view of the region it runs: its number, the team's size, and the
/// constructs (barrier, worksharing loops, `single`, `master`, `critical`, reductions).
///
/// A context belongs to one thread for one region.
pub struct Context<'a> {
    pub(crate) shared: &'a Shared,
    tid: usize,
    n: usize,
    /// Not `Sync`: a context is its thread's.
    _thread: PhantomData<Cell<()>>,
}

impl<'a> Context<'a> {
    fn team(shared: &'a Shared, tid: usize) -> Self {
        Context {
            shared,
            tid,
            n: shared.n,
            _thread: PhantomData,
        }
    }

    fn serial(shared: &'a Shared) -> Self {
        Context {
            shared,
            tid: 0,
            n: 1,
            _thread: PhantomData,
        }
    }
}

impl Context<'_> {
    /// This thread's number in the team (the master is 0).
    pub fn thread_num(&self) -> usize {
        self.tid
    }

    /// The team size.
    pub fn num_threads(&self) -> usize {
        self.n
    }

    /// Waits until every team thread has reached this barrier (`#pragma omp barrier`).
    pub fn barrier(&self) {
        if self.n > 1
            && self
                .shared
                .barrier
                .wait_in(self.tid, self.shared.waiter())
                .is_err()
        {
            poison_unwind();
        }
    }

    /// Runs `f` holding the runtime's lock (of the configured [`welltempered_lock::LockKind`];
    /// `#pragma omp critical`). One lock for the whole runtime; not reentrant.
    ///
    /// # Panics
    ///
    /// If `f` calls `critical` of the same runtime again (on this thread, which already holds
    /// the lock): a panic with a message rather than a deadlock. The panic poisons the region
    /// like any other and is re-raised by `parallel`.
    pub fn critical<R>(&self, f: impl FnOnce() -> R) -> R {
        let s = self.shared;
        let me = thread_token();
        // Relaxed: only this thread ever stores `me`, so reading it back needs no ordering.
        if s.critical_owner.load(Ordering::Relaxed) == me {
            panic!("Context::critical is not reentrant: this thread already holds the lock");
        }
        let _g = s.critical.lock();
        /// Clears the owner before the lock guard (declared earlier, dropped later) unlocks.
        struct Owner<'a>(&'a AtomicUsize);
        impl Drop for Owner<'_> {
            fn drop(&mut self) {
                self.0.store(0, Ordering::Relaxed);
            }
        }
        // Relaxed: read only by this thread (above) while it holds the lock; the lock orders it
        // for the next holder.
        s.critical_owner.store(me, Ordering::Relaxed);
        let _owner = Owner(&s.critical_owner);
        f()
    }

    /// The first thread to arrive runs `f` and gets `Some`; the others `None`; all then wait
    /// at a barrier (`#pragma omp single`).
    pub fn single<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        let r = self.single_nowait(f);
        self.barrier();
        r
    }

    /// As [`Context::single`] without the barrier (`single nowait`).
    pub fn single_nowait<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        if self.n == 1 {
            return Some(f());
        }
        let slot = &self.shared.slots[self.tid];
        // Relaxed: only this thread touches its slot.
        let k = slot.singles.load(Ordering::Relaxed);
        slot.singles.store(k.wrapping_add(1), Ordering::Relaxed);
        // When a thread meets single number `k`, `k` singles have been claimed or more: the
        // counter equals `k` exactly when this one is unclaimed. Relaxed: the claim only needs
        // atomicity.
        self.shared
            .singles
            .compare_exchange(k, k.wrapping_add(1), Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
            .then(f)
    }

    /// Thread 0 runs `f` and gets `Some`; the others `None`; no barrier (`#pragma omp master`).
    pub fn master<R>(&self, f: impl FnOnce() -> R) -> Option<R> {
        (self.tid == 0).then(f)
    }

    /// Runs `f(i)` for this thread's share of `range` by the configured schedule, then waits at
    /// a barrier (`#pragma omp for`).
    pub fn for_range(&self, range: Range<usize>, f: impl Fn(usize)) {
        self.for_range_schedule(range, self.shared.config.schedule, f);
    }

    /// As [`Context::for_range`] without the barrier (`for nowait`).
    pub fn for_range_nowait(&self, range: Range<usize>, f: impl Fn(usize)) {
        self.for_range_schedule_nowait(range, self.shared.config.schedule, f);
    }

    /// As [`Context::for_range`] with the given schedule.
    pub fn for_range_schedule(&self, range: Range<usize>, schedule: Schedule, f: impl Fn(usize)) {
        self.for_range_schedule_nowait(range, schedule, f);
        self.barrier();
    }

    /// As [`Context::for_range_schedule`] without the barrier.
    pub fn for_range_schedule_nowait(
        &self,
        range: Range<usize>,
        schedule: Schedule,
        f: impl Fn(usize),
    ) {
        self.for_chunks(range, schedule, |r| r.for_each(&f));
    }

    /// Runs `f` on each of this thread's chunks of `range` under `schedule`, in the order
    /// claimed; no barrier. The building block of the loops (and of `par_for!`).
    pub fn for_chunks(
        &self,
        range: Range<usize>,
        schedule: Schedule,
        mut f: impl FnMut(Range<usize>),
    ) {
        let base = range.start;
        let len = range.end.saturating_sub(base);
        let shift = |r: Range<usize>| base + r.start..base + r.end;
        if self.n == 1 {
            if len > 0 {
                f(range);
            }
            return;
        }
        match schedule {
            Schedule::Static => {
                let r = schedule::static_block(len, self.n, self.tid);
                if !r.is_empty() {
                    f(shift(r));
                }
            }
            Schedule::StaticChunked { chunk } => {
                schedule::static_chunks(len, chunk, self.n, self.tid, |r| f(shift(r)));
            }
            Schedule::Dynamic { .. } | Schedule::Guided { .. } => {
                let slot = &self.shared.slots[self.tid];
                // Relaxed: only this thread touches its slot.
                let k = slot.loops.load(Ordering::Relaxed);
                slot.loops.store(k.wrapping_add(1), Ordering::Relaxed);
                let Ok(ring) = self.shared.ring.enter(k, self.shared.waiter()) else {
                    poison_unwind()
                };
                while let Some(r) = ring.dispenser.claim(len, schedule, self.n) {
                    f(shift(r));
                }
                self.shared.ring.leave(ring, k);
            }
        }
    }
}

/// The team of [`global`]: created on first use from the environment.
static GLOBAL: std::sync::OnceLock<Runtime> = std::sync::OnceLock::new();

/// The process-wide runtime, created on first use by [`Config::from_env`]. A malformed
/// variable is reported once on stderr and keeps its default (the others apply).
pub fn global() -> &'static Runtime {
    GLOBAL.get_or_init(|| {
        let (config, errors) = Config::from_lookup_lenient(|name| std::env::var(name).ok());
        for e in errors {
            eprintln!("welltempered-par: {e}; using the default");
        }
        Runtime::new(config)
    })
}

/// [`Runtime::parallel`] on the [`global`] runtime.
pub fn parallel<F: Fn(&Context<'_>) + Sync>(f: F) {
    global().parallel(f);
}

/// [`Runtime::parallel_for`] on the [`global`] runtime.
pub fn parallel_for<F: Fn(usize) + Sync>(range: Range<usize>, f: F) {
    global().parallel_for(range, f);
}
