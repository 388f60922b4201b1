//! `pthread_cond_t` of our own: tickets, a signal counter and futex waits.
//!
//! glibc's condition-variable waits release and retake the mutex through internal calls that
//! bypass interposed symbols, so a library that replaces the mutex must replace the condition
//! variable too, process-shared ones included: a process-shared condition variable may be used
//! with any mutex, ours among them. Our wait releases and retakes the mutex through
//! [`mutex::unlock`] and [`mutex::lock`], which send glibc's kinds (recursive, error-checking,
//! robust, process-shared, priority) to glibc's own functions, so any mutex works with any
//! condition variable.
//!
//! # Layout
//!
//! In the 48-byte `pthread_cond_t`, all-zero being `PTHREAD_COND_INITIALIZER`:
//!
//! - bytes 0..8, the *state*, one 64-bit word: the signal sequence `seq` in its low 32 bits (the
//!   futex word waiters sleep on), the number of waiting tickets not yet signalled (`uncovered`)
//!   in bits 32..62, and a `HOLE` flag in bit 63;
//! - bytes 36..40, glibc's `__wrefs`, encoded as glibc encodes it: bit 0 process-shared, bit 1
//!   `CLOCK_MONOTONIC`, bit 2 "wake `destroy` when the last waiter leaves", and in bits 3.. the
//!   number of threads inside a wait. A process-shared condition variable is thus recognisable
//!   by the same bit as glibc's, and its futex operations are the shared ones (no
//!   `FUTEX_PRIVATE_FLAG`); every other is private.
//!
//! # Waiting and signalling
//!
//! A wait, holding the mutex, counts itself in `__wrefs`, takes the ticket `seq + uncovered`
//! (incrementing `uncovered`), releases the mutex, and sleeps until `seq` has passed its ticket
//! (it is *covered*) or its deadline passes. `pthread_cond_signal` covers the oldest uncovered
//! ticket (`seq += 1`, `uncovered -= 1`) and wakes that ticket's sleeper; `broadcast` covers them
//! all. A sleeper waits with `FUTEX_WAIT_BITSET` on bit `ticket % 32`, and a signal wakes with
//! the bit of the ticket it covered, so the wake-up reaches the waiter it is meant for (and at
//! most the few others sharing its bit, which find themselves uncovered and sleep again); a
//! broadcast wakes every bit. Signal and broadcast make no system call when no ticket is
//! uncovered.
//!
//! A waiter that leaves uncovered (timeout, cancellation) gives its ticket back when it is the
//! newest (`uncovered -= 1`); otherwise it leaves a hole in the range of uncovered tickets and
//! sets `HOLE`, and the next signal covers every uncovered ticket (a broadcast: spurious
//! wake-ups, which POSIX allows) and clears it. A waiter whose ticket was covered as it timed out
//! returns 0 (it consumed the signal: its caller's predicate may hold). One whose ticket was
//! covered as it was cancelled passes the signal on (signals again): POSIX (`pthread_cond_wait`,
//! "Cancellation") forbids a cancelled waiter to consume a signal another waiter could take.
//!
//! ## Which thread a signal wakes
//!
//! POSIX: `pthread_cond_signal` "shall unblock at least one of the threads that are blocked on
//! the specified condition variable". The scheme this replaces advanced a sequence word and made
//! one `FUTEX_WAKE`; a thread that began waiting after the signal's increment but before its
//! system call could be the one the kernel woke, leaving a waiter that was blocked before the
//! signal asleep: the kernel promises no order among a futex's sleepers (futex(2): "No guarantee
//! is provided about which waiters are awoken"), and orders real-time waiters by priority. That is
//! glibc bug 13165 ("pthread_cond_wait() can consume a signal that was sent before it started
//! waiting", <https://sourceware.org/bugzilla/show_bug.cgi?id=13165>; see also Austin Group
//! defect 609 on which threads count as blocked), which glibc fixed in 2.25 with its
//! group-based condition variable. On Linux the old scheme mostly got away with it, because
//! the kernel's futex queue currently wakes sleepers of equal priority in arrival order, but
//! that is not promised, and a real-time waiter of higher priority is woken first. With tickets the
//! question does not arise: a signal covers the oldest uncovered ticket, which was taken before
//! the signal and (unless `HOLE` says otherwise, and then the signal covers them all) belongs to
//! a thread still waiting; only that ticket's holder returns for it, and a thread that starts
//! waiting later holds a later ticket. The test `signal_wakes_a_waiter_blocked_before_it` guards
//! the property, including after waiters left from the middle of the queue.
//!
//! ## Destroying
//!
//! `pthread_cond_destroy` sets the wake-request bit and sleeps until no thread is inside a wait:
//! POSIX's own example (`pthread_cond_destroy`, RATIONALE) broadcasts, unlocks, destroys and
//! frees at once, while the woken waiters are still on their way out. A waiter's last access to
//! the condition variable is therefore the decrement of its count in `__wrefs` (everything it
//! needs, such as timeout versus signal, is decided before); if that leaves no waiter and destroy
//! asked to be woken, it makes a `FUTEX_WAKE` on the word's address, which reads no memory there
//! (the same as glibc's condition variable). A destroy while threads are still *blocked* is
//! undefined (POSIX) and waits for them, as glibc's does.
//!
//! # Cancellation
//!
//! The three waits are cancellation points; the functions the program calls are C (see
//! `src/condwait.c`), which call this module's `__welltempered_preload_cond_*` helpers to begin,
//! poll and end a wait, and block in the futex themselves, so that glibc's cancellation (a forced
//! unwind) never crosses a Rust frame. The cleanup handler, [`__welltempered_preload_cond_cancelled`],
//! retakes the mutex before the caller's own cleanup handlers run.
//!
//! Limits: tickets and `seq` are 32-bit and compared with wrapping arithmetic, so fewer than 2^31
//! threads may wait on one condition variable; a sleeper that read `seq` and then slept through
//! exactly 2^32 signals before its system call would sleep on (the ABA of every 32-bit futex).
//! A process-shared condition variable must be used only by processes that all run this library
//! with a lock (not a mix of preloaded and plain processes, nor of a lock and the glibc
//! fallback), as it is a different object from glibc's.

use crate::config::{self, Mode};
use crate::{mutex, real};
use core::ffi::{c_int, c_void};
use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use libc::{clockid_t, pthread_cond_t, pthread_condattr_t, pthread_mutex_t, timespec};

/// Byte offset of the state word.
const STATE: usize = 0;
/// Byte offset, within the object, of the 32-bit futex word: the low half of the state.
const FUTEX: usize = STATE + if cfg!(target_endian = "little") { 0 } else { 4 };
/// Byte offset of glibc's `__wrefs`.
const REFS: usize = 36;

const UNCOVERED_ONE: u64 = 1 << 32;
const UNCOVERED_MASK: u64 = 0x7fff_ffff << 32;
const HOLE: u64 = 1 << 63;

const FLAG_PSHARED: u32 = 1;
const FLAG_MONOTONIC: u32 = 2;
const FLAG_WAKE_REQUEST: u32 = 4;
const REF_ONE: u32 = 8;

// futex(2) operations not named by the libc crate on every target.
const FUTEX_WAIT_BITSET: c_int = 9;
const FUTEX_WAKE_BITSET: c_int = 10;
const FUTEX_CLOCK_REALTIME: c_int = 256;
const BITSET_ALL: u32 = u32::MAX;

/// Which wait the C side is serving (its `WT_*` constants; 0 is the untimed wait).
const TIMEDWAIT: c_int = 1;
const CLOCKWAIT: c_int = 2;

/// # Safety
///
/// `c` points to a live condition variable.
#[inline]
unsafe fn state<'a>(c: *mut pthread_cond_t) -> &'a AtomicU64 {
    // SAFETY: bytes 0..8 of the 8-byte-aligned object, accessed by this library only through
    // this 64-bit atomic (the kernel reads its low half as the futex word, outside Rust's
    // memory model).
    unsafe { AtomicU64::from_ptr(c.cast::<u8>().add(STATE).cast::<u64>()) }
}

/// # Safety
///
/// `c` points to a live condition variable.
#[inline]
unsafe fn refs<'a>(c: *mut pthread_cond_t) -> &'a AtomicU32 {
    // SAFETY: bytes 36..40, a 4-byte-aligned word of the object, accessed only atomically.
    unsafe { AtomicU32::from_ptr(refs_ptr(c)) }
}

/// The address of `__wrefs` (computing it reads nothing).
#[inline]
fn refs_ptr(c: *mut pthread_cond_t) -> *mut u32 {
    c.cast::<u8>().wrapping_add(REFS).cast::<u32>()
}

/// The address of the futex word (computing it reads nothing).
#[inline]
fn futex_ptr(c: *mut pthread_cond_t) -> *mut u32 {
    c.cast::<u8>().wrapping_add(FUTEX).cast::<u32>()
}

/// Whether `c` is process-shared.
///
/// # Safety
///
/// `c` points to a live condition variable.
#[inline]
unsafe fn is_shared(c: *mut pthread_cond_t) -> bool {
    // Relaxed: the bit is fixed at initialisation, which happens-before any use.
    // SAFETY: forwarded from the caller.
    unsafe { refs(c) }.load(Ordering::Relaxed) & FLAG_PSHARED != 0
}

fn private_flag(shared: bool) -> c_int {
    if shared { 0 } else { libc::FUTEX_PRIVATE_FLAG }
}

/// Whether `seq` has passed `ticket`, with wrapping arithmetic.
#[inline]
fn covered(seq: u32, ticket: u32) -> bool {
    (seq.wrapping_sub(ticket) as i32) > 0
}

/// The futex bit a ticket's sleeper waits on.
#[inline]
fn ticket_bit(ticket: u32) -> u32 {
    1 << (ticket % 32)
}

fn uncovered(state: u64) -> u32 {
    ((state & UNCOVERED_MASK) >> 32) as u32
}

/// `FUTEX_WAKE_BITSET` of every sleeper on `addr` whose bits meet `bits`: a raw system call
/// (not a cancellation point). The kernel does not read memory at `addr` for a private futex;
/// for a shared one it resolves the page, and a stale address yields `EFAULT` or a spurious
/// wake-up of another futex user, which every futex user tolerates.
fn futex_wake_bitset(addr: *mut u32, bits: u32, shared: bool) {
    // SAFETY: FUTEX_WAKE_BITSET takes the address as a key only; the other arguments are plain
    // values (the timeout and second-address slots are unused by this operation).
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            addr,
            FUTEX_WAKE_BITSET | private_flag(shared),
            i32::MAX,
            core::ptr::null::<timespec>(),
            core::ptr::null::<u32>(),
            bits,
        )
    };
}

/// Sleeps on `addr` while it holds `expected`: a raw system call (not a cancellation point).
/// Returns on a wake-up, a signal, or at once if the word differs.
///
/// # Safety
///
/// `addr` points to a live, aligned 32-bit word.
unsafe fn futex_wait(addr: *mut u32, expected: u32, shared: bool) {
    // SAFETY: the caller gives a live aligned word, which the kernel only reads; no timeout.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            addr,
            libc::FUTEX_WAIT | private_flag(shared),
            expected,
            core::ptr::null::<timespec>(),
        )
    };
}

unsafe extern "C" {
    fn pthread_condattr_getclock(a: *const pthread_condattr_t, c: *mut clockid_t) -> c_int;
    fn pthread_condattr_getpshared(a: *const pthread_condattr_t, p: *mut c_int) -> c_int;
}

/// `pthread_cond_init`.
///
/// # Safety
///
/// `c` points to writable storage for a condition variable; `attr` is null or initialised.
pub(crate) unsafe fn init(c: *mut pthread_cond_t, attr: *const pthread_condattr_t) -> c_int {
    if config::mode() == Mode::Glibc {
        // SAFETY: glibc's function under C's contract.
        return unsafe { real::pthread_cond_init(c, attr) };
    }
    let (mut clock, mut pshared) = (libc::CLOCK_REALTIME, libc::PTHREAD_PROCESS_PRIVATE);
    if !attr.is_null() {
        // SAFETY: `attr` is an initialised attribute; the out-pointers are valid.
        unsafe {
            pthread_condattr_getclock(attr, &mut clock);
            pthread_condattr_getpshared(attr, &mut pshared);
        }
    }
    let mut flags = 0;
    if pshared != libc::PTHREAD_PROCESS_PRIVATE {
        flags |= FLAG_PSHARED;
    }
    if clock == libc::CLOCK_MONOTONIC {
        flags |= FLAG_MONOTONIC;
    }
    // SAFETY: `c` is writable storage for one condition variable; all-zero is the initial state.
    unsafe { core::ptr::write_bytes(c, 0, 1) };
    // Relaxed: publication of the initialised object to other threads is the program's job.
    // SAFETY: `c` was just initialised.
    unsafe { refs(c) }.store(flags, Ordering::Relaxed);
    0
}

/// `pthread_cond_destroy`: waits until every thread woken from a wait has left it.
///
/// # Safety
///
/// `c` points to a live condition variable.
pub(crate) unsafe fn destroy(c: *mut pthread_cond_t) -> c_int {
    if config::mode() == Mode::Glibc {
        // SAFETY: glibc's function under C's contract.
        return unsafe { real::pthread_cond_destroy(c) };
    }
    // SAFETY: forwarded from the caller.
    let (refs, shared) = unsafe { (refs(c), is_shared(c)) };
    let mut v = refs.fetch_or(FLAG_WAKE_REQUEST, Ordering::SeqCst) | FLAG_WAKE_REQUEST;
    while v / REF_ONE != 0 {
        // SAFETY: the object is live until this function returns.
        unsafe { futex_wait(refs_ptr(c), v, shared) };
        v = refs.load(Ordering::SeqCst);
    }
    0
}

/// `pthread_cond_signal` (`all == false`) and `pthread_cond_broadcast`.
///
/// # Safety
///
/// `c` points to a live condition variable.
pub(crate) unsafe fn wake(c: *mut pthread_cond_t, all: bool) -> c_int {
    if config::mode() == Mode::Glibc {
        // SAFETY: glibc's functions under C's contract.
        return unsafe {
            if all {
                real::pthread_cond_broadcast(c)
            } else {
                real::pthread_cond_signal(c)
            }
        };
    }
    // SAFETY: forwarded from the caller.
    let (state, shared) = unsafe { (state(c), is_shared(c)) };
    // SeqCst: a waiter takes its ticket (SeqCst, under the mutex) before it reads `seq` to
    // sleep; a signaller that changed the predicate under the mutex then sees the ticket.
    let mut st = state.load(Ordering::SeqCst);
    loop {
        let n = uncovered(st);
        if n == 0 {
            return 0;
        }
        let seq = st as u32;
        let (new, bits) = if all || st & HOLE != 0 {
            (u64::from(seq.wrapping_add(n)), BITSET_ALL)
        } else {
            (
                u64::from(seq.wrapping_add(1)) | (u64::from(n - 1) << 32),
                ticket_bit(seq),
            )
        };
        match state.compare_exchange_weak(st, new, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => {
                futex_wake_bitset(futex_ptr(c), bits, shared);
                return 0;
            }
            Err(now) => st = now,
        }
    }
}

/// One wait in progress, shared with `src/condwait.c` (`struct wt_waiter`, field for field).
#[repr(C)]
pub struct Waiter {
    cond: *mut pthread_cond_t,
    mutex: *mut pthread_mutex_t,
    /// The deadline handed to the futex wait, or null.
    abs: *const timespec,
    /// The word to sleep on.
    futex: *mut u32,
    /// The futex operation to sleep with.
    op: c_int,
    /// Sleep while the futex word holds this.
    expected: u32,
    /// The ticket's wake-up bit.
    bitset: u32,
    ticket: u32,
    /// What the wait returns when the mutex is retaken without error.
    result: c_int,
    /// Whether the deadline had passed (a negative `tv_sec`) before the wait began.
    expired: c_int,
    /// The C side's saved cancellation type; not touched here.
    oldtype: c_int,
}

const _: () = assert!(core::mem::size_of::<Waiter>() == 64);
const _: () = assert!(core::mem::offset_of!(Waiter, oldtype) == 56);

/// glibc's `pthread_cond_wait`, `timedwait` or `clockwait` (`which`: 0, 1, 2) when glibc serves
/// this process's condition variables, else null: the C wrappers then call it themselves.
#[unsafe(no_mangle)]
pub extern "C" fn __welltempered_preload_glibc_cond_wait(which: c_int) -> *mut c_void {
    if config::mode() != Mode::Glibc {
        return core::ptr::null_mut();
    }
    real::cond_wait_address(which)
}

/// Begins a wait (`which`: 0 untimed, 1 timed on the condition variable's clock, 2 on `clock`):
/// validates it as glibc does, counts the waiter, takes its ticket, fills `*w` and releases `m`.
/// Returns 0 when the wait is under way, or the error to return (`EINVAL`; the unlock's error,
/// such as `EPERM` from an error-checking mutex the caller does not hold), with nothing
/// registered and the mutex as the caller left it.
///
/// # Safety
///
/// `w` points to writable storage for a [`Waiter`]; `c` and `m` are live and initialised, and
/// the caller holds `m`; `abs` is null or points to a timespec.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __welltempered_preload_cond_begin(
    w: *mut Waiter,
    c: *mut pthread_cond_t,
    m: *mut pthread_mutex_t,
    which: c_int,
    clock: clockid_t,
    abs: *const timespec,
) -> c_int {
    // SAFETY: the caller gives a live condition variable.
    let flags = unsafe { refs(c) }.load(Ordering::Relaxed); // Relaxed: constant bits only.
    let shared = flags & FLAG_PSHARED != 0;
    let clock = match which {
        CLOCKWAIT => clock,
        _ if flags & FLAG_MONOTONIC != 0 => libc::CLOCK_MONOTONIC,
        _ => libc::CLOCK_REALTIME,
    };
    let timed = which == TIMEDWAIT || which == CLOCKWAIT;
    let mut expired = false;
    if timed {
        if abs.is_null() {
            return libc::EINVAL;
        }
        // SAFETY: non-null, and the caller's timespec (C's contract).
        let t = unsafe { *abs };
        // glibc's order: the nanoseconds, then the clock; a negative second count is a deadline
        // long past (ETIMEDOUT after the wait's release and retake of the mutex, as glibc).
        if !(0..1_000_000_000).contains(&t.tv_nsec) {
            return libc::EINVAL;
        }
        if clock != libc::CLOCK_REALTIME && clock != libc::CLOCK_MONOTONIC {
            return libc::EINVAL;
        }
        expired = t.tv_sec < 0;
    }
    // SAFETY: forwarded from the caller.
    unsafe { refs(c) }.fetch_add(REF_ONE, Ordering::SeqCst);
    // SAFETY: forwarded from the caller.
    let old = unsafe { state(c) }.fetch_add(UNCOVERED_ONE, Ordering::SeqCst);
    let ticket = (old as u32).wrapping_add(uncovered(old));
    let op = FUTEX_WAIT_BITSET
        | private_flag(shared)
        | if timed && clock == libc::CLOCK_REALTIME {
            FUTEX_CLOCK_REALTIME
        } else {
            0
        };
    // SAFETY: the caller gives writable storage for a Waiter.
    unsafe {
        w.write(Waiter {
            cond: c,
            mutex: m,
            abs: if timed { abs } else { core::ptr::null() },
            futex: futex_ptr(c),
            op,
            expected: 0,
            bitset: ticket_bit(ticket),
            ticket,
            result: 0,
            expired: c_int::from(expired),
            oldtype: 0,
        })
    };
    // SAFETY: the caller holds `m`.
    let r = unsafe { mutex::unlock(m) };
    if r != 0 {
        // SAFETY: `w` was just filled; `c` is live.
        unsafe {
            depart(&*w, true);
            leave(c);
        }
        return r;
    }
    0
}

/// Whether the wait `w` is over: its ticket was covered (result 0), or it timed out
/// (`timed_out != 0`: the futex wait said so; or the deadline had passed before it began), in
/// which case it leaves the queue (result `ETIMEDOUT`, or 0 if a signal covered it meanwhile).
/// Returns 1 when over; else 0, with `w.expected` set to the value to sleep on.
///
/// # Safety
///
/// `w` was filled by a successful [`__welltempered_preload_cond_begin`] and its wait has not
/// ended.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __welltempered_preload_cond_poll(
    w: *mut Waiter,
    timed_out: c_int,
) -> c_int {
    // SAFETY: the caller's Waiter, used by this thread only.
    let w = unsafe { &mut *w };
    // SAFETY: the waiter is counted in `__wrefs`, so the condition variable is live.
    let seq = unsafe { state(w.cond) }.load(Ordering::SeqCst) as u32;
    if covered(seq, w.ticket) {
        w.result = 0;
        return 1;
    }
    if timed_out != 0 || w.expired != 0 {
        // SAFETY: as above.
        w.result = if unsafe { depart(w, false) } {
            0
        } else {
            libc::ETIMEDOUT
        };
        return 1;
    }
    w.expected = seq;
    0
}

/// Ends the wait `w` after [`__welltempered_preload_cond_poll`] said it is over: leaves the
/// condition variable (its last access to it) and retakes the mutex. Returns the relock's error
/// if any (`EOWNERDEAD`: held, the caller must make it consistent; `ENOTRECOVERABLE`: not held),
/// else the wait's result.
///
/// # Safety
///
/// As for [`__welltempered_preload_cond_poll`], which returned 1.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __welltempered_preload_cond_end(w: *mut Waiter) -> c_int {
    // SAFETY: the caller's Waiter.
    let (c, m, result) = unsafe { ((*w).cond, (*w).mutex, (*w).result) };
    // SAFETY: the waiter is still counted, so `c` is live until this call.
    unsafe { leave(c) };
    // SAFETY: `m` is live (the caller's mutex) and this thread released it in `begin`.
    let r = unsafe { mutex::lock(m) };
    if r != 0 { r } else { result }
}

/// The cleanup handler of a wait cancelled while it slept: leaves the queue, passing on a signal
/// its ticket may have consumed, leaves the condition variable, and retakes the mutex, so that
/// the caller's cleanup handlers run with it held (POSIX). A relock error cannot be reported.
///
/// # Safety
///
/// `w` was filled by a successful [`__welltempered_preload_cond_begin`] and its wait has not
/// ended.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn __welltempered_preload_cond_cancelled(w: *mut Waiter) {
    // SAFETY: the caller's Waiter; the waiter is still counted, so its condition variable is
    // live until `leave`; `m` is the caller's mutex, released in `begin`.
    unsafe {
        let (c, m) = ((*w).cond, (*w).mutex);
        depart(&*w, true);
        leave(c);
        mutex::lock(m);
    }
}

/// Takes `w`'s ticket out of the queue. Returns whether it had been covered: then, with
/// `pass_on`, the signal is sent again for the next waiter (the caller did not wait for it).
///
/// # Safety
///
/// `w` is a waiter of a live condition variable that has not departed yet.
unsafe fn depart(w: &Waiter, pass_on: bool) -> bool {
    // SAFETY: forwarded from the caller.
    let state = unsafe { state(w.cond) };
    let mut st = state.load(Ordering::SeqCst);
    loop {
        let seq = st as u32;
        if covered(seq, w.ticket) {
            if pass_on {
                // SAFETY: forwarded from the caller.
                unsafe { wake(w.cond, false) };
            }
            return true;
        }
        // The uncovered tickets are seq .. seq + n, and ours is one of them.
        let n = uncovered(st);
        debug_assert!(n > 0, "an uncovered ticket with no uncovered count");
        let new = if w.ticket == seq.wrapping_add(n.wrapping_sub(1)) {
            st - UNCOVERED_ONE
        } else {
            st | HOLE
        };
        match state.compare_exchange_weak(st, new, Ordering::SeqCst, Ordering::SeqCst) {
            Ok(_) => return false,
            Err(now) => st = now,
        }
    }
}

/// Uncounts a waiter: its last access to `c`, which `pthread_cond_destroy` may free as soon as
/// the count it waits for is zero. A destroy waiting for this waiter is woken through the word's
/// address alone.
///
/// # Safety
///
/// `c` is a live condition variable in which the caller is counted.
unsafe fn leave(c: *mut pthread_cond_t) {
    // SAFETY: forwarded from the caller; read before the decrement, after which `c` may be gone.
    let shared = unsafe { is_shared(c) };
    let addr = refs_ptr(c);
    // SAFETY: forwarded from the caller; the reference is used for this one atomic operation
    // and not after it (as `Arc`'s drop uses its count).
    let old = unsafe { refs(c) }.fetch_sub(REF_ONE, Ordering::SeqCst);
    if old / REF_ONE == 1 && old & FLAG_WAKE_REQUEST != 0 {
        // FUTEX_WAKE names the address only; see `futex_wake_bitset`.
        futex_wake_bitset(addr, BITSET_ALL, shared);
    }
}
