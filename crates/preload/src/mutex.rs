//! `pthread_mutex_t` on our locks: where the lock lives and how each call is dispatched.
//!
//! glibc's `pthread_mutex_t` is 40 bytes (x86_64; 48 on aarch64) with the mutex kind as an `int`
//! at byte 16. Our lock body lives in bytes 0..16 (the default mutex takes 0..8), so the kind
//! field stays where glibc and debuggers read it, and a zeroed mutex (`PTHREAD_MUTEX_INITIALIZER`) is an unlocked one of
//! kind 0. A mutex is ours when its kind is `PTHREAD_MUTEX_NORMAL`/`DEFAULT` (0) or
//! `PTHREAD_MUTEX_ADAPTIVE_NP` (3) with no robust, process-shared or priority bits; every other
//! kind was initialised by glibc's own `pthread_mutex_init` and goes to glibc's functions.

use crate::config::{self, Mode};
use crate::real;
use core::ffi::c_int;
use core::sync::atomic::{AtomicI32, Ordering};
use libc::{clockid_t, pthread_mutex_t, timespec};
use lock_api::RawMutex;
use welltempered_lock::LockKind;

/// Byte offset of glibc's `__kind` in `pthread_mutex_t`.
pub(crate) const KIND_OFFSET: usize = 16;
/// The bytes our lock body may occupy, from offset 0.
pub(crate) const LOCK_BYTES: usize = KIND_OFFSET;

const KIND_ADAPTIVE: i32 = 3;
/// glibc's elision hints, which say nothing about the kind.
const ELISION_BITS: i32 = 256 | 512;

/// The kind glibc (or our `init`) wrote into the mutex.
///
/// # Safety
///
/// `m` points to a live, initialised `pthread_mutex_t`.
#[inline]
unsafe fn kind_of(m: *mut pthread_mutex_t) -> i32 {
    // SAFETY: the caller gives a live mutex; byte 16 holds an aligned `int` that is written only
    // by initialisation, which happens-before any use of the mutex.
    let kind = unsafe { AtomicI32::from_ptr(m.cast::<u8>().add(KIND_OFFSET).cast::<i32>()) };
    // Relaxed: the field is constant after initialisation.
    kind.load(Ordering::Relaxed)
}

/// Which implementation serves mutex `m`.
#[derive(Copy, Clone)]
pub(crate) enum Route {
    /// glibc's functions.
    Glibc,
    /// Our lock of this kind, living in bytes 0..16.
    Ours(LockKind),
}

/// # Safety
///
/// `m` points to a live, initialised `pthread_mutex_t`.
#[inline]
pub(crate) unsafe fn route(m: *mut pthread_mutex_t) -> Route {
    match config::mode() {
        Mode::Glibc => Route::Glibc,
        // SAFETY: forwarded from the caller.
        Mode::Ours(k) => match unsafe { kind_of(m) } & !ELISION_BITS {
            0 | KIND_ADAPTIVE => Route::Ours(k),
            _ => Route::Glibc,
        },
    }
}

/// Calls `$f::<Lock>(args)` with the raw lock type of `$kind`.
macro_rules! with_lock {
    ($kind:expr, $f:ident ( $($arg:expr),* )) => {{
        use welltempered_lock as wl;
        match $kind {
            LockKind::Hemlock => $f::<wl::Hemlock>($($arg),*),
            LockKind::HemlockPark => $f::<wl::HemlockPark>($($arg),*),
            LockKind::HemlockOverlap => $f::<wl::HemlockOverlap>($($arg),*),
            LockKind::HemlockOverlapPark => $f::<wl::HemlockOverlapPark>($($arg),*),
            LockKind::HemlockAh => $f::<wl::HemlockAh>($($arg),*),
            LockKind::HemlockAhPark => $f::<wl::HemlockAhPark>($($arg),*),
            LockKind::Mcs => $f::<wl::Mcs>($($arg),*),
            LockKind::McsPark => $f::<wl::McsPark>($($arg),*),
            LockKind::Clh => $f::<wl::Clh>($($arg),*),
            LockKind::ClhPark => $f::<wl::ClhPark>($($arg),*),
            LockKind::Ticket => $f::<wl::Ticket>($($arg),*),
            LockKind::TicketPark => $f::<wl::TicketPark>($($arg),*),
            LockKind::Tas => $f::<wl::Tas>($($arg),*),
            LockKind::Ttas => $f::<wl::Ttas>($($arg),*),
            LockKind::TtasYield => $f::<wl::TtasYield>($($arg),*),
            LockKind::Futex => $f::<wl::Futex>($($arg),*),
            LockKind::TwoPhase => $f::<wl::TwoPhase>($($arg),*),
            LockKind::Mutex => $f::<wl::RawMutex>($($arg),*),
        }
    }};
}

/// A lock body that sits in bytes 0..16 of a `pthread_mutex_t` (checked by [`Fits`]).
pub(crate) trait Embed: RawMutex {}

macro_rules! embed_within_16_bytes {
    ($($t:ty),*) => { $(impl Embed for $t {})* };
}
embed_within_16_bytes!(
    welltempered_lock::Tas,
    welltempered_lock::Ttas,
    welltempered_lock::TtasYield,
    welltempered_lock::Futex,
    welltempered_lock::TwoPhase,
    welltempered_lock::RawMutex
);
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::Hemlock<W> {}
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::HemlockOverlap<W> {}
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::HemlockAh<W> {}
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::Mcs<W> {}
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::Clh<W> {}
impl<W: welltempered_lock::Wait> Embed for welltempered_lock::Ticket<W> {}

/// Proves, at compile time, that `L` fits in a `pthread_mutex_t` without touching glibc's kind
/// field (within bytes 0..16) and that its guard carries no
/// state (so unlocking needs nothing but the mutex, as the C API has it).
struct Fits<L>(L);
impl<L: Embed> Fits<L> {
    const OK: () = {
        let size = core::mem::size_of::<L>();
        assert!(size <= LOCK_BYTES, "lock body overlaps glibc's kind field");
        assert!(
            core::mem::align_of::<L>() <= 8,
            "lock body needs more than 8-byte alignment"
        );
        assert!(
            core::mem::size_of::<L::Guard>() == 0,
            "lock guard carries state"
        );
    };
}

/// The lock inside `m`.
///
/// # Safety
///
/// `m` points to a live mutex routed to us; the returned reference must not outlive it.
#[inline]
unsafe fn body<'a, L: Embed>(m: *mut pthread_mutex_t) -> &'a L {
    let () = Fits::<L>::OK;
    // SAFETY: a mutex routed to us holds an `L` from byte 0 (zeroed by init or the static
    // initialiser: every lock's unlocked state); size, alignment and the kind word are checked
    // above; all access to the lock's words goes through `L`'s atomics.
    unsafe { &*m.cast::<L>() }
}

/// Takes the lock in `m`, counting it when statistics are on.
///
/// # Safety
///
/// `m` points to a live mutex routed to us.
#[inline]
unsafe fn lock_as<L: Embed>(m: *mut pthread_mutex_t, kind: LockKind) -> c_int
where
    L::Guard: Default,
{
    // SAFETY: forwarded from the caller.
    let l = unsafe { body::<L>(m) };
    if config::stats_on() {
        let contended = match l.try_lock() {
            Some(g) => {
                core::mem::forget(g);
                false
            }
            None => {
                core::mem::forget(l.lock());
                true
            }
        };
        config::count(kind, contended);
    } else {
        // The guard is a zero-sized marker (checked in `body`); the C caller holds the lock
        // until it calls unlock, which conjures an equal marker.
        core::mem::forget(l.lock());
    }
    0
}

/// Tries the lock in `m` once: 0 or `EBUSY`.
///
/// # Safety
///
/// `m` points to a live mutex routed to us.
#[inline]
unsafe fn trylock_as<L: Embed>(m: *mut pthread_mutex_t, kind: LockKind) -> c_int
where
    L::Guard: Default,
{
    // SAFETY: forwarded from the caller.
    let l = unsafe { body::<L>(m) };
    match l.try_lock() {
        Some(g) => {
            core::mem::forget(g);
            if config::stats_on() {
                config::count(kind, false);
            }
            0
        }
        None => libc::EBUSY,
    }
}

/// Releases the lock in `m`.
///
/// # Safety
///
/// `m` points to a live mutex routed to us that this thread holds.
#[inline]
unsafe fn unlock_as<L: Embed>(m: *mut pthread_mutex_t, _kind: LockKind) -> c_int
where
    L::Guard: Default,
{
    // SAFETY: forwarded from the caller.
    let l = unsafe { body::<L>(m) };
    // SAFETY: POSIX makes unlocking a mutex the caller does not hold undefined for normal
    // mutexes; given that it holds it, a default guard is the state `lock` returned (a
    // zero-sized marker, checked in `body`).
    unsafe { l.unlock(L::Guard::default()) };
    0
}

/// Whether the lock in `m` is held (a snapshot).
///
/// # Safety
///
/// `m` points to a live mutex routed to us.
#[inline]
unsafe fn is_locked_as<L: Embed>(m: *mut pthread_mutex_t, _kind: LockKind) -> bool
where
    L::Guard: Default,
{
    // SAFETY: forwarded from the caller.
    unsafe { body::<L>(m) }.is_locked()
}

fn now(clock: clockid_t) -> timespec {
    let mut t = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid out-pointer; the clock was validated by the caller. (clock_gettime
    // is not a cancellation point.)
    unsafe { libc::clock_gettime(clock, &mut t) };
    t
}

fn before(a: &timespec, b: &timespec) -> bool {
    (a.tv_sec, a.tv_nsec) < (b.tv_sec, b.tv_nsec)
}

/// `t` plus `ns` nanoseconds (`t` normalised, `ns` below one second), saturating at the largest
/// `time_t` rather than overflowing: a deadline may be `LONG_MAX` seconds.
fn plus_ns(t: &timespec, ns: i64) -> timespec {
    // time_t and c_long are both i64 on the 64-bit Linux targets this library supports; both
    // summands are below 1e9, so the sum cannot overflow.
    let nsec = t.tv_nsec + ns;
    if nsec >= 1_000_000_000 {
        timespec {
            tv_sec: t.tv_sec.saturating_add(1),
            tv_nsec: nsec - 1_000_000_000,
        }
    } else {
        timespec {
            tv_sec: t.tv_sec,
            tv_nsec: nsec,
        }
    }
}

/// Sleeps until `until` on `clock` (or a signal): `clock_nanosleep` with `TIMER_ABSTIME` as a
/// raw system call. The libc function is a cancellation point and a timed lock is not one
/// (POSIX, XSH 2.9.5.2 "Cancellation Points"; pthreads(7)): through libc, a pending
/// cancellation would be acted on inside `pthread_mutex_timedlock` and unwind through this
/// library's Rust frames.
fn sleep_until(clock: clockid_t, until: &timespec) {
    // SAFETY: `until` is a valid timespec for the duration of the call; no remainder is wanted
    // (null) with an absolute time.
    unsafe {
        libc::syscall(
            libc::SYS_clock_nanosleep,
            clock,
            libc::TIMER_ABSTIME,
            until as *const timespec,
            core::ptr::null_mut::<timespec>(),
        )
    };
}

/// Timed acquisition: our queue locks cannot leave their queue, so a timed acquisition does not
/// join it. It polls `try_lock`, first spinning briefly, then sleeping with a backoff that
/// doubles from 1 µs to at most 1 ms (and never past the deadline). It is not FIFO with respect
/// to queued waiters; it never returns `ETIMEDOUT` before the deadline has passed on `clock`.
///
/// Its answers follow glibc's (2.36) for a normal mutex: a free mutex is taken whatever the
/// deadline; otherwise a negative `tv_sec` is `ETIMEDOUT` and a `tv_nsec` outside 0..1e9 is
/// `EINVAL`. Deadlines are compared, never subtracted, and advanced with saturation, so any
/// `tv_sec` (`LONG_MAX` included) is safe.
///
/// # Safety
///
/// `m` points to a live mutex routed to us; `abs` is null or points to a timespec.
unsafe fn timedlock_as<L: Embed>(
    m: *mut pthread_mutex_t,
    kind: LockKind,
    clock: clockid_t,
    abs: *const timespec,
) -> c_int
where
    L::Guard: Default,
{
    // SAFETY: forwarded from the caller.
    if unsafe { trylock_as::<L>(m, kind) } == 0 {
        return 0;
    }
    if abs.is_null() {
        return libc::EINVAL;
    }
    // SAFETY: non-null pointers given to the timed functions point to a timespec (POSIX).
    let deadline = unsafe { *abs };
    if deadline.tv_sec < 0 {
        return libc::ETIMEDOUT;
    }
    if !(0..1_000_000_000).contains(&deadline.tv_nsec) {
        return libc::EINVAL;
    }
    for _ in 0..64 {
        core::hint::spin_loop();
        // SAFETY: forwarded from the caller.
        if unsafe { trylock_as::<L>(m, kind) } == 0 {
            return 0;
        }
    }
    let mut backoff_ns: i64 = 1_000;
    loop {
        let t = now(clock);
        if !before(&t, &deadline) {
            return libc::ETIMEDOUT;
        }
        let nap_end = plus_ns(&t, backoff_ns);
        sleep_until(
            clock,
            if before(&nap_end, &deadline) {
                &nap_end
            } else {
                &deadline
            },
        );
        backoff_ns = (backoff_ns * 2).min(1_000_000);
        // SAFETY: forwarded from the caller.
        if unsafe { trylock_as::<L>(m, kind) } == 0 {
            return 0;
        }
    }
}

// ---- the operations, routed ----

/// `pthread_mutex_lock`.
///
/// # Safety
///
/// `m` is a live, initialised mutex.
pub(crate) unsafe fn lock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: the caller passes a live mutex (C's contract).
    match unsafe { route(m) } {
        Route::Ours(k) => {
            // SAFETY: routed to us.
            unsafe { with_lock!(k, lock_as(m, k)) }
        }
        Route::Glibc => {
            if config::stats_on() {
                config::count_glibc();
            }
            // SAFETY: glibc's function under C's contract.
            unsafe { real::pthread_mutex_lock(m) }
        }
    }
}

/// `pthread_mutex_trylock`.
///
/// # Safety
///
/// `m` is a live, initialised mutex.
pub(crate) unsafe fn trylock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: the caller passes a live mutex.
    match unsafe { route(m) } {
        // SAFETY: routed to us.
        Route::Ours(k) => unsafe { with_lock!(k, trylock_as(m, k)) },
        // SAFETY: glibc's function under C's contract.
        Route::Glibc => unsafe { real::pthread_mutex_trylock(m) },
    }
}

/// `pthread_mutex_unlock`.
///
/// # Safety
///
/// `m` is a live mutex the caller holds.
pub(crate) unsafe fn unlock(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: the caller passes a live mutex.
    match unsafe { route(m) } {
        // SAFETY: routed to us, held by the caller.
        Route::Ours(k) => unsafe { with_lock!(k, unlock_as(m, k)) },
        // SAFETY: glibc's function under C's contract.
        Route::Glibc => unsafe { real::pthread_mutex_unlock(m) },
    }
}

/// `pthread_mutex_clocklock` (and `timedlock` with `CLOCK_REALTIME`).
///
/// # Safety
///
/// `m` is a live, initialised mutex; `abs` is null or points to a timespec.
pub(crate) unsafe fn clocklock(
    m: *mut pthread_mutex_t,
    clock: clockid_t,
    abs: *const timespec,
    glibc_timed: bool,
) -> c_int {
    // SAFETY: the caller passes a live mutex.
    match unsafe { route(m) } {
        Route::Ours(k) => {
            if clock != libc::CLOCK_REALTIME && clock != libc::CLOCK_MONOTONIC {
                return libc::EINVAL;
            }
            // SAFETY: routed to us.
            unsafe { with_lock!(k, timedlock_as(m, k, clock, abs)) }
        }
        // SAFETY: glibc's functions under C's contract.
        Route::Glibc if glibc_timed => unsafe { real::pthread_mutex_timedlock(m, abs) },
        // SAFETY: as above.
        Route::Glibc => unsafe { real::pthread_mutex_clocklock(m, clock, abs) },
    }
}

/// `pthread_mutex_destroy`.
///
/// # Safety
///
/// `m` is a live, initialised mutex.
pub(crate) unsafe fn destroy(m: *mut pthread_mutex_t) -> c_int {
    // SAFETY: the caller passes a live mutex.
    match unsafe { route(m) } {
        Route::Ours(k) => {
            // SAFETY: routed to us.
            if unsafe { with_lock!(k, is_locked_as(m, k)) } {
                libc::EBUSY
            } else {
                0
            }
        }
        // SAFETY: glibc's function under C's contract.
        Route::Glibc => unsafe { real::pthread_mutex_destroy(m) },
    }
}

unsafe extern "C" {
    fn pthread_mutexattr_gettype(a: *const libc::pthread_mutexattr_t, t: *mut c_int) -> c_int;
    fn pthread_mutexattr_getpshared(a: *const libc::pthread_mutexattr_t, p: *mut c_int) -> c_int;
    fn pthread_mutexattr_getrobust(a: *const libc::pthread_mutexattr_t, r: *mut c_int) -> c_int;
    fn pthread_mutexattr_getprotocol(a: *const libc::pthread_mutexattr_t, p: *mut c_int) -> c_int;
}

/// `pthread_mutex_init`.
///
/// # Safety
///
/// `m` points to writable storage for a mutex; `attr` is null or an initialised attribute.
pub(crate) unsafe fn init(
    m: *mut pthread_mutex_t,
    attr: *const libc::pthread_mutexattr_t,
) -> c_int {
    if config::mode() == Mode::Glibc {
        // SAFETY: glibc's function under C's contract.
        return unsafe { real::pthread_mutex_init(m, attr) };
    }
    let mut kind = 0;
    if !attr.is_null() {
        let (mut ty, mut pshared, mut robust, mut proto) = (0, 0, 0, 0);
        // SAFETY: `attr` is an initialised attribute; the out-pointers are valid.
        let plain = unsafe {
            pthread_mutexattr_gettype(attr, &mut ty) == 0
                && pthread_mutexattr_getpshared(attr, &mut pshared) == 0
                && pthread_mutexattr_getrobust(attr, &mut robust) == 0
                && pthread_mutexattr_getprotocol(attr, &mut proto) == 0
        };
        let ours = plain
            && (ty == libc::PTHREAD_MUTEX_NORMAL || ty == KIND_ADAPTIVE)
            && pshared == libc::PTHREAD_PROCESS_PRIVATE
            && robust == 0 // PTHREAD_MUTEX_STALLED
            && proto == 0; // PTHREAD_PRIO_NONE
        if !ours {
            // SAFETY: glibc's function under C's contract.
            return unsafe { real::pthread_mutex_init(m, attr) };
        }
        kind = ty;
    }
    // SAFETY: `m` is writable storage of `size_of::<pthread_mutex_t>()` bytes; all-zero is our
    // unlocked state; the kind goes where glibc keeps it.
    unsafe {
        core::ptr::write_bytes(m, 0, 1);
        m.cast::<u8>().add(KIND_OFFSET).cast::<i32>().write(kind);
    }
    0
}

const _: () = assert!(core::mem::size_of::<pthread_mutex_t>() >= KIND_OFFSET + 4);
