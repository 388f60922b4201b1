//! Parallel regions (`GOMP_parallel`, OpenMP 5.2 §10.1) on the teams of `welltempered-par`, and
//! the per-thread state every other entry point reads.
//!
//! A region of `n` threads runs on a [`welltempered_par::Runtime`] of `n` threads, created on
//! first use and kept for the life of the process (one per team size a program asks for; most
//! ask for one). Every runtime is configured by the same [`Config`] (`OMP_*` and
//! `WELLTEMPERED_*` variables), so the barrier, the lock of `critical` and the wait policy are
//! ours to choose. A team also owns the ring of worksharing slots (`workshare.rs`).
//!
//! Each team thread, while it runs the region's function, has a [`ThreadState`] on its stack
//! and a thread-local pointer to it: its number, the team size, its nesting level, its copy of
//! the ICVs that can change per task (`nthreads-var`, `run-sched-var`), the construct count that
//! finds its worksharing slot, and the loop it is in. A thread outside every region (the initial
//! thread) gets a state of its own, a team of one at level 0, so that orphaned constructs work.
//!
//! Nesting: a region started inside a region runs with a team of one on the calling thread
//! (level + 1, active level unchanged), which is what libgomp does by default
//! (`max-active-levels-var` is 1 unless `OMP_MAX_ACTIVE_LEVELS` or `OMP_NESTED` say otherwise;
//! here it is 1 whatever they say: `omp_get_supported_active_levels()` is 1).

use crate::workshare::{DynamicLoop, LoopState, WsRing};
use core::cell::{Cell, UnsafeCell};
use core::ffi::c_void;
use crossbeam_utils::CachePadded;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use welltempered_lock::DynRawMutex;
use welltempered_par::{BarrierKind, Config, Context, Runtime, Schedule};

/// The runtime's settings, read once from the environment on first use.
pub(crate) struct Globals {
    /// The configuration every team is created with (its `threads` is the default team size).
    pub(crate) config: Config,
    /// `OMP_CANCELLATION`.
    pub(crate) cancellation: bool,
    /// `run-sched-var` at start: `OMP_SCHEDULE` or `WELLTEMPERED_SCHEDULE`, or libgomp's
    /// default `dynamic,1` when neither is set.
    pub(crate) sched: RunSched,
    /// Whether `WELLTEMPERED_BARRIER` chose the barrier (else [`default_barrier`] does).
    pub(crate) barrier_set: bool,
    /// `dyn-var` at start (`OMP_DYNAMIC`; our team size never shrinks: it is only reported).
    pub(crate) dynamic: bool,
}

/// The settings (malformed variables are reported once on stderr and keep their defaults, as
/// libgomp does).
pub(crate) fn globals() -> &'static Globals {
    static G: OnceLock<Globals> = OnceLock::new();
    G.get_or_init(|| {
        let bound = widen_libgomp_binding();
        let (config, errors) = Config::from_lookup_lenient(|name| std::env::var(name).ok());
        if let Some(mask) = bound {
            // Back on the first place, where libgomp put it and where it stays bound.
            let _ = welltempered_par::set_current_affinity(&mask);
        }
        for e in errors {
            eprintln!("welltempered-gomp: {e}; using the default");
        }
        let flag = |name: &str| {
            let v = std::env::var(name).unwrap_or_default();
            match v.trim().to_ascii_lowercase().as_str() {
                "" | "false" => false,
                "true" => true,
                _ => {
                    eprintln!("welltempered-gomp: {name}={v:?} is not true or false; using false");
                    false
                }
            }
        };
        let cancellation = flag("OMP_CANCELLATION");
        if cancellation {
            crate::refused::refuse("OMP_CANCELLATION=true (cancellation)");
        }
        let set = |name: &str| std::env::var(name).is_ok_and(|v| !v.trim().is_empty());
        let sched = if set("OMP_SCHEDULE") || set("WELLTEMPERED_SCHEDULE") {
            RunSched::from_schedule(config.schedule)
        } else {
            RunSched { kind: 2, chunk: 1 }
        };
        Globals {
            cancellation,
            sched,
            barrier_set: set("WELLTEMPERED_BARRIER"),
            dynamic: config.dynamic,
            config,
        }
    })
}

/// Lets the initial thread use the CPUs libgomp bound it away from, while our configuration is
/// read; returns the binding to restore after (`None` when there was nothing to widen).
///
/// Under `LD_PRELOAD` the program still loads libgomp (its `DT_NEEDED`), whose constructor runs
/// before ours and, when `OMP_PROC_BIND` or `OMP_PLACES` asks for binding, binds the initial
/// thread to the first place. Our configuration cuts the places to the CPUs the calling thread
/// may use, so it would see that one place only. libgomp's places (asked of libgomp itself,
/// the next definition of `omp_get_place_proc_ids` after ours) cover exactly the CPUs it
/// started from: the thread may use those while the places are read, then goes back to the
/// first place, as libgomp leaves it.
fn widen_libgomp_binding() -> Option<Vec<usize>> {
    let set = |name: &str| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if !(set("OMP_PROC_BIND") || set("OMP_PLACES")) || set("WELLTEMPERED_PROC_BIND") {
        return None;
    }
    type Count = unsafe extern "C" fn() -> core::ffi::c_int;
    type Procs = unsafe extern "C" fn(core::ffi::c_int) -> core::ffi::c_int;
    type Ids = unsafe extern "C" fn(core::ffi::c_int, *mut core::ffi::c_int);
    let next = |name: &core::ffi::CStr| {
        // SAFETY: dlsym with RTLD_NEXT and a C string; the result is checked for null.
        unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) }
    };
    let (count, procs, ids) = (
        next(c"omp_get_num_places"),
        next(c"omp_get_place_num_procs"),
        next(c"omp_get_place_proc_ids"),
    );
    if count.is_null() || procs.is_null() || ids.is_null() {
        return None;
    }
    // SAFETY: libgomp's own definitions of these routines, with their C signatures.
    let (count, procs, ids): (Count, Procs, Ids) = unsafe {
        (
            core::mem::transmute::<*mut c_void, Count>(count),
            core::mem::transmute::<*mut c_void, Procs>(procs),
            core::mem::transmute::<*mut c_void, Ids>(ids),
        )
    };
    let mut cpus = Vec::new();
    // SAFETY: plain queries of libgomp's place list, set up by its constructor; `buf` has room
    // for the place's CPUs.
    unsafe {
        for place in 0..count() {
            let mut buf = vec![0 as core::ffi::c_int; usize::try_from(procs(place)).unwrap_or(0)];
            ids(place, buf.as_mut_ptr());
            cpus.extend(buf.iter().filter_map(|&c| usize::try_from(c).ok()));
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    let saved = welltempered_par::current_affinity().ok()?;
    if cpus.is_empty() || cpus == saved {
        return None;
    }
    welltempered_par::set_current_affinity(&cpus).ok()?;
    Some(saved)
}

/// A lock for `critical`, `atomic` and `omp_*_lock`, as `welltempered-par`'s `critical` takes
/// it ([`Config::critical_lock`]): of the kind `WELLTEMPERED_LOCK` names, by default a
/// two-phase lock whose waiters spin for the wait policy's window and then sleep, which is how
/// libgomp's waiters wait for its locks too (its spin count is set by `OMP_WAIT_POLICY` as
/// well): `active` spins without end, `passive` sleeps at once, and when `OMP_NUM_THREADS`
/// exceeds the CPUs the window is throttled to `OVERSUBSCRIBED_LOCK_WINDOW`, as libgomp
/// throttles its spin count.
pub(crate) fn new_lock() -> DynRawMutex {
    globals().config.critical_lock()
}

/// The barrier of a team of `n` when `WELLTEMPERED_BARRIER` does not choose: dissemination
/// while the team fits the CPUs (one round of flag writes at 2 threads, the fastest of the three
/// there: 0.20-0.27 µs against 0.26-0.38 for the central barrier and 0.30-0.43 for libgomp's on
/// a 2-CPU VM), the central barrier once threads outnumber them (where it is the fastest of the
/// three: a single counter to wait on while most threads are descheduled).
fn default_barrier(n: usize) -> BarrierKind {
    let cpus = std::thread::available_parallelism().map_or(1, |c| c.get());
    if n <= cpus {
        BarrierKind::Dissemination
    } else {
        BarrierKind::Central
    }
}

/// A team: a runtime of `n` threads, its worksharing ring, and the record of its region.
pub(crate) struct Team {
    rt: Runtime,
    pub(crate) ring: WsRing,
    /// Held for a whole region: the record is written and the ring reset only between regions.
    region: Mutex<()>,
    /// What the members of the current region read, written by the master before the region
    /// starts, and only where it differs from the last region's: a program that runs the same
    /// region again and again (the common case) leaves the line shared in every worker's cache,
    /// so starting a region costs the workers no fetch beyond the epoch's line.
    record: CachePadded<RecordCell>,
}

/// The region record of a team: its [`Region`] and the combined construct's loop, if any.
struct RecordCell(UnsafeCell<(Region, Option<LoopState>)>);

// SAFETY: written only by the master holding the team's region lock, before it starts a region
// (the epoch increment publishes it) or while no region runs; read by the members only inside
// the region.
unsafe impl Sync for RecordCell {}

/// Teams by size (below [`BY_SIZE_LEN`]), for the members to find their team's record without
/// reading anything the master wrote for this region.
static BY_SIZE: [AtomicPtr<Team>; BY_SIZE_LEN] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; BY_SIZE_LEN];
const BY_SIZE_LEN: usize = 256;

/// The team of `n` threads (`n >= 2`), created on first use.
fn team(n: usize) -> &'static Team {
    /// The team of the last region: most programs ask for one size only.
    static LAST: AtomicPtr<Team> = AtomicPtr::new(core::ptr::null_mut());
    static TEAMS: Mutex<Vec<&'static Team>> = Mutex::new(Vec::new());
    // Acquire: pairs with the Release below, which published a fully built team.
    let last = LAST.load(Ordering::Acquire);
    // SAFETY: LAST is null or a leaked team, never freed.
    if let Some(t) = unsafe { last.as_ref() }
        && t.rt.num_threads() == n
    {
        return t;
    }
    let mut teams = TEAMS.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(t) = teams.iter().find(|t| t.rt.num_threads() == n) {
        LAST.store(core::ptr::from_ref(*t).cast_mut(), Ordering::Release);
        return t;
    }
    let mut config = Config {
        threads: n,
        ..globals().config.clone()
    };
    if !globals().barrier_set {
        config.barrier = default_barrier(n);
    }
    // Teams live as long as the process: their threads are parked between regions, and C
    // programs have no point at which a runtime could be dropped.
    let t: &'static Team = Box::leak(Box::new(Team {
        rt: Runtime::new(config),
        ring: WsRing::new(n),
        region: Mutex::new(()),
        record: CachePadded::new(RecordCell(UnsafeCell::new((Region::EMPTY, None)))),
    }));
    teams.push(t);
    if let Some(slot) = BY_SIZE.get(n) {
        // Release: publishes the built team to members that load it (Acquire).
        slot.store(core::ptr::from_ref(t).cast_mut(), Ordering::Release);
    }
    LAST.store(core::ptr::from_ref(t).cast_mut(), Ordering::Release);
    t
}

/// The run-time schedule (`run-sched-var`) as the `omp_sched_t` kind and chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RunSched {
    /// `omp_sched_static` (1), `dynamic` (2), `guided` (3) or `auto` (4), possibly with the
    /// `omp_sched_monotonic` bit.
    pub(crate) kind: i32,
    /// The chunk size (0: unspecified).
    pub(crate) chunk: i32,
}

impl RunSched {
    pub(crate) fn from_schedule(s: Schedule) -> RunSched {
        let clamp = |c: usize| i32::try_from(c).unwrap_or(i32::MAX);
        match s {
            Schedule::StaticChunked { chunk } => RunSched {
                kind: 1,
                chunk: clamp(chunk),
            },
            Schedule::Dynamic { chunk } => RunSched {
                kind: 2,
                chunk: clamp(chunk),
            },
            Schedule::Guided { min_chunk } => RunSched {
                kind: 3,
                chunk: clamp(min_chunk),
            },
            _ => RunSched { kind: 1, chunk: 0 },
        }
    }

    /// The schedule a `schedule(runtime)` loop runs.
    pub(crate) fn schedule(self) -> Schedule {
        let chunk = usize::try_from(self.chunk.max(0)).unwrap_or(0);
        match self.kind & 0x7fff_ffff {
            2 => Schedule::Dynamic {
                chunk: chunk.max(1),
            },
            3 => Schedule::Guided {
                min_chunk: chunk.max(1),
            },
            _ if chunk > 0 => Schedule::StaticChunked { chunk },
            _ => Schedule::Static,
        }
    }
}

/// A thread's view of the region it runs (or of the implicit serial region outside any).
pub(crate) struct ThreadState {
    /// The `welltempered-par` context of this thread in its team (null in a team of one).
    ctx: *const c_void,
    /// This thread's number and the team's size.
    pub(crate) tid: usize,
    pub(crate) n: usize,
    /// Enclosing regions, this one included (0 outside every region), and the active ones.
    pub(crate) level: usize,
    pub(crate) active_level: usize,
    /// The state of the thread that started this region (its encountering task), null at level
    /// 1 or outside every region.
    pub(crate) parent: *const ThreadState,
    /// `nthreads-var`, `run-sched-var` and `dyn-var` of this thread's implicit task.
    pub(crate) nthreads_var: Cell<usize>,
    pub(crate) sched_var: Cell<RunSched>,
    pub(crate) dyn_var: Cell<bool>,
    /// The worksharing slots of this team (for a team of one, the state's own).
    pub(crate) ring: *const WsRing,
    /// Worksharing constructs met so far (the ring index of the next).
    pub(crate) seq: Cell<u64>,
    /// The loop or `sections` this thread is in.
    pub(crate) lp: Cell<LoopState>,
    /// The same loop when it is dynamic and not ordered (the fast path of `next`).
    pub(crate) dynamic: Cell<DynamicLoop>,
    /// Inside a task created with `final(true)` (see `tasks.rs`).
    pub(crate) in_final: Cell<bool>,
}

#[cfg(not(miri))]
unsafe extern "C" {
    /// The state of the region this thread runs now (null outside every region), kept in
    /// initial-exec thread-local storage by `src/current.c`.
    safe fn wt_gomp_current() -> *const c_void;
    /// Sets it.
    safe fn wt_gomp_set_current(state: *const c_void);
}

/// The state of the region this thread runs now (null outside every region).
#[cfg(not(miri))]
#[inline(always)]
fn current() -> *const ThreadState {
    wt_gomp_current().cast()
}

/// Makes `state` this thread's current state; returns the previous one.
#[cfg(not(miri))]
fn replace_current(state: *const ThreadState) -> *const ThreadState {
    let old = current();
    wt_gomp_set_current(state.cast());
    old
}

#[cfg(miri)]
thread_local! {
    /// Under Miri (which runs no C), the current state is a Rust thread-local.
    static CURRENT: Cell<*const ThreadState> = const { Cell::new(core::ptr::null()) };
}

#[cfg(miri)]
fn current() -> *const ThreadState {
    CURRENT.get()
}

#[cfg(miri)]
fn replace_current(state: *const ThreadState) -> *const ThreadState {
    CURRENT.replace(state)
}

thread_local! {
    /// The ring of the initial thread's implicit team of one.
    static IMPLICIT_RING: WsRing = WsRing::new(1);
    /// The initial thread's state (level 0), created on first use.
    static IMPLICIT: ThreadState = {
        let g = globals();
        ThreadState {
            ctx: core::ptr::null(),
            tid: 0,
            n: 1,
            level: 0,
            active_level: 0,
            parent: core::ptr::null(),
            nthreads_var: Cell::new(g.config.threads.max(1)),
            sched_var: Cell::new(g.sched),
            dyn_var: Cell::new(g.dynamic),
            ring: IMPLICIT_RING.with(core::ptr::from_ref),
            seq: Cell::new(0),
            lp: Cell::new(LoopState::default()),
            dynamic: Cell::new(DynamicLoop::NONE),
            in_final: Cell::new(false),
        }
    };
}

/// Runs `f` with this thread's state.
#[inline(always)]
pub(crate) fn with_current<R>(f: impl FnOnce(&ThreadState) -> R) -> R {
    let mut p = current();
    if p.is_null() {
        p = implicit();
    }
    // SAFETY: the current state is set only by `run_member` to a state on its stack for the duration of
    // the region's function on this thread, and restored before that state is dropped; the
    // implicit state lives as long as this thread, and `f` runs on it now.
    f(unsafe { &*p })
}

/// The initial thread's state (outside every region), created on first use.
#[cold]
#[inline(never)]
fn implicit() -> *const ThreadState {
    IMPLICIT.with(core::ptr::from_ref)
}

impl ThreadState {
    /// This thread's `welltempered-par` context, if its team has more than one thread.
    #[inline]
    pub(crate) fn ctx(&self) -> Option<&Context<'_>> {
        // SAFETY: `ctx` is null or the context `run_member` received for this region, which
        // outlives this state (the state lives inside the call that received it).
        unsafe { self.ctx.cast::<Context<'_>>().as_ref() }
    }

    /// The worksharing ring of this team.
    #[inline]
    pub(crate) fn ring(&self) -> &WsRing {
        // SAFETY: `ring` points to a team's ring (teams are never freed), to the initial
        // thread's thread-local ring (used only on that thread, which outlives its state), or
        // to a ring on the stack of the `parallel` call that owns this state.
        unsafe { &*self.ring }
    }

    /// Waits for the whole team (`#pragma omp barrier`).
    #[inline]
    pub(crate) fn barrier(&self) {
        if let Some(ctx) = self.ctx() {
            ctx.barrier();
        }
    }

    /// The state `levels` regions out from this one (0: this one).
    pub(crate) fn ancestor(&self, levels: usize) -> Option<&ThreadState> {
        let mut s = self;
        for _ in 0..levels {
            // SAFETY: a parent state belongs to a thread blocked in the `parallel` call that
            // started this region, which outlives the region.
            s = unsafe { s.parent.as_ref() }?;
        }
        Some(s)
    }
}

/// A region's function and its argument, shared by the team.
#[derive(Clone, Copy)]
pub(crate) struct Job {
    pub(crate) f: unsafe extern "C" fn(*mut c_void),
    pub(crate) data: *mut c_void,
}

// SAFETY: OpenMP's contract: the region's function is called by every team thread with the same
// argument, which the compiler built to be shared (its fields are pointers to shared variables
// or copies of firstprivate values, read only).
unsafe impl Sync for Job {}

/// The team size of a region asking for `requested` threads (0: `nthreads-var`) from a thread
/// whose state is `parent`: one when the parent is already inside as many active regions as
/// `max-active-levels-var` allows (1 at most here: a team of one does not count as active, so a
/// region inside one gets its threads, as in libgomp).
fn team_size(parent: &ThreadState, requested: u32) -> usize {
    if parent.active_level >= crate::api::max_active_levels() {
        1
    } else if requested == 0 {
        parent.nthreads_var.get().max(1)
    } else {
        requested as usize
    }
}

/// What every member of a region needs to build its state (one cache line).
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Region {
    job: Job,
    parent: *const ThreadState,
    ring: *const WsRing,
    n: u32,
    level: u16,
    active_level: u16,
    nthreads_var: u32,
    sched_var: RunSched,
    dyn_var: bool,
}

impl PartialEq for Region {
    fn eq(&self, o: &Self) -> bool {
        // Function addresses compared as addresses: equal ones are the same function here.
        self.job.f as usize == o.job.f as usize
            && self.job.data == o.job.data
            && self.parent == o.parent
            && self.ring == o.ring
            && (self.n, self.level, self.active_level, self.nthreads_var)
                == (o.n, o.level, o.active_level, o.nthreads_var)
            && self.sched_var == o.sched_var
            && self.dyn_var == o.dyn_var
    }
}

// SAFETY: `parent` and `ring` point to data that outlives the region (the parent's state on the
// stack of the thread waiting in `parallel`, the ring in a team or on that stack), read only by
// the team threads; the rest is plain data and a `Sync` job.
unsafe impl Sync for Region {}
// SAFETY: as above: the pointers are only read, and only while the region runs.
unsafe impl Send for Region {}

impl Region {
    /// A record no region has.
    const EMPTY: Region = Region {
        job: Job {
            f: never_called,
            data: core::ptr::null_mut(),
        },
        parent: core::ptr::null(),
        ring: core::ptr::null(),
        n: 0,
        level: 0,
        active_level: 0,
        nthreads_var: 0,
        sched_var: RunSched { kind: 0, chunk: 0 },
        dyn_var: false,
    };

    /// Runs thread `tid`'s part of the region, `prelude` being its first construct.
    fn member(&self, ctx: Option<&Context<'_>>, tid: usize, prelude: Option<&LoopState>) {
        let state = ThreadState {
            ctx: ctx.map_or(core::ptr::null(), |c| core::ptr::from_ref(c).cast()),
            tid,
            n: self.n as usize,
            level: usize::from(self.level),
            active_level: usize::from(self.active_level),
            parent: self.parent,
            nthreads_var: Cell::new(self.nthreads_var as usize),
            sched_var: Cell::new(self.sched_var),
            dyn_var: Cell::new(self.dyn_var),
            ring: self.ring,
            seq: Cell::new(0),
            lp: Cell::new(LoopState::default()),
            dynamic: Cell::new(DynamicLoop::NONE),
            in_final: Cell::new(false),
        };
        if let Some(lp) = prelude {
            // The combined construct's loop is the region's construct 0, claimed by the caller
            // before the region started.
            state.seq.set(1);
            crate::workshare::install(&state, *lp);
        }
        run_member(&state, self.job);
    }
}

/// The function of [`Region::EMPTY`], which no team runs.
unsafe extern "C" fn never_called(_: *mut c_void) {
    crate::refused::fatal("a region without a function was started");
}

/// A member of a team of up to [`BY_SIZE_LEN`] threads: finds its team by size, then runs the
/// region its record describes. Captures nothing, so that the team's job points at no data of
/// the master's.
fn team_member(ctx: &Context<'_>) {
    let n = ctx.num_threads();
    // Acquire: pairs with the Release that published the team.
    let t = BY_SIZE[n].load(Ordering::Acquire);
    // SAFETY: the master found this team in BY_SIZE before starting the region on it, and teams
    // are never freed.
    let team: &Team = unsafe { &*t };
    // SAFETY: the record was written before the region started (the epoch increment published
    // it) and is not written again until the region is over.
    let (region, prelude) = unsafe { &*team.record.0.get() };
    region.member(Some(ctx), ctx.thread_num(), prelude.as_ref());
}

/// Runs `job` as a parallel region of `requested` threads (0: `nthreads-var`), the calling
/// thread being thread 0, with `prelude` (a combined construct's loop or sections) as its first
/// construct; returns when every team thread has returned from it.
pub(crate) fn parallel(job: Job, requested: u32, prelude: Option<LoopState>) {
    with_current(|parent| {
        let n = team_size(parent, requested);
        let small = |v: usize| u16::try_from(v).unwrap_or(u16::MAX);
        let mut region = Region {
            job,
            parent: if parent.level == 0 {
                core::ptr::null()
            } else {
                core::ptr::from_ref(parent)
            },
            ring: core::ptr::null(),
            n: u32::try_from(n).unwrap_or(u32::MAX),
            level: small(parent.level + 1),
            active_level: small(parent.active_level + usize::from(n > 1)),
            // The next item of `OMP_NUM_THREADS=4,2`, or the parent's.
            nthreads_var: u32::try_from(
                globals()
                    .config
                    .nested_threads
                    .get(parent.level)
                    .copied()
                    .unwrap_or(parent.nthreads_var.get()),
            )
            .unwrap_or(u32::MAX),
            sched_var: parent.sched_var.get(),
            dyn_var: parent.dyn_var.get(),
        };
        if n == 1 {
            let ring = WsRing::new(1);
            if prelude.is_some() {
                ring.enter(0);
            }
            region.ring = &ring;
            region.member(None, 0, prelude.as_ref());
            return;
        }
        let t = team(n);
        let _region = t.region.lock().unwrap_or_else(PoisonError::into_inner);
        if prelude.is_some() {
            t.ring.enter(0);
        }
        region.ring = &t.ring;
        if n < BY_SIZE_LEN {
            // SAFETY: no region runs on this team (its region lock is held and the last one's
            // join is over), so no member reads the record.
            let record = unsafe { &mut *t.record.0.get() };
            if record.0 != region {
                record.0 = region;
            }
            if record.1 != prelude {
                record.1 = prelude;
            }
            t.rt.parallel(team_member);
        } else {
            t.rt.parallel(move |ctx| region.member(Some(ctx), ctx.thread_num(), prelude.as_ref()));
        }
        // Every thread has left every construct of the region: back to construct 0.
        t.ring.reset();
    });
}

/// Calls the region's function with `state` as this thread's current state.
fn run_member(state: &ThreadState, job: Job) {
    /// Restores the previous state, on every path out.
    struct Restore(*const ThreadState);
    impl Drop for Restore {
        fn drop(&mut self) {
            replace_current(self.0);
        }
    }
    let _restore = Restore(replace_current(core::ptr::from_ref(state)));
    // SAFETY: the compiler-generated region function takes exactly this argument (OpenMP's
    // outlined-function contract).
    unsafe { (job.f)(job.data) };
}

/// `#pragma omp parallel`: runs `f(data)` on a team of `num_threads` threads (0: the
/// `nthreads-var` ICV, from `OMP_NUM_THREADS` or `omp_set_num_threads`; `if(false)` arrives as
/// 1), the caller being thread 0, and returns when all are done. `flags` carries `proc_bind`,
/// which the configured pinning decides instead.
///
/// # Safety
///
/// `f` is the compiler's outlined region function for `data`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn GOMP_parallel(
    f: unsafe extern "C" fn(*mut c_void),
    data: *mut c_void,
    num_threads: core::ffi::c_uint,
    _flags: core::ffi::c_uint,
) {
    parallel(Job { f, data }, num_threads, None);
}
