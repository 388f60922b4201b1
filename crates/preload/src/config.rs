//! Which lock runs the program's mutexes, decided once, and the exit-time statistics.
//!
//! `WELLTEMPERED_LOCK` names a [`LockKind`] ([`DEFAULT_KIND`] when unset or empty). A name that is
//! not a lock prints one message on stderr and every `pthread_mutex_*`/`pthread_cond_*` call goes
//! to glibc's own functions: the program runs unharmed. The decision is made by whichever call
//! comes first, constructor or not (other libraries' constructors may lock mutexes before ours
//! runs), reads the environment with `getenv` and allocates nothing, and never changes after.

use core::fmt::Write as _;
use core::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use welltempered_lock::LockKind;

/// What runs the mutexes of this process.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// glibc's own functions, for every mutex and condition variable.
    Glibc,
    /// Our lock of this kind for default and adaptive mutexes; glibc's for the other kinds.
    Ours(LockKind),
}

/// The lock used when `WELLTEMPERED_LOCK` is unset: the default mutex (barging over an MCS queue
/// with a bounded bypass). Under LevelDB's readrandom with 16 threads on 2 cores, a strictly
/// FIFO lock hands every release to a waiter that is asleep or descheduled, and `hemlock-park`
/// ran at 0.15x glibc's throughput with 13 context switches per read, where `mutex` ran at 1.1x
/// (`welltempered preload`); at 1 and 2 threads they are alike.
pub(crate) const DEFAULT_KIND: LockKind = LockKind::Mutex;

const KINDS: usize = LockKind::ALL.len();
const UNDECIDED: u8 = 0;
const GLIBC: u8 = 1;

/// `UNDECIDED`, `GLIBC`, or 2 + the index of the lock in `LockKind::ALL`.
static MODE: AtomicU8 = AtomicU8::new(UNDECIDED);

/// The mode, deciding it on first use.
#[inline]
pub(crate) fn mode() -> Mode {
    // Relaxed: the value is a pure function of the environment, the same in every thread, and
    // carries no other data with it.
    let v = MODE.load(Ordering::Relaxed);
    if v != UNDECIDED {
        return decode(v);
    }
    decide()
}

fn decode(v: u8) -> Mode {
    match v {
        GLIBC => Mode::Glibc,
        i => Mode::Ours(LockKind::ALL[usize::from(i - 2)]),
    }
}

#[cold]
fn decide() -> Mode {
    let v = match env_bytes(c"WELLTEMPERED_LOCK") {
        None | Some(b"") => encode(DEFAULT_KIND),
        Some(name) => match core::str::from_utf8(name)
            .ok()
            .and_then(|s| s.parse::<LockKind>().ok())
        {
            Some(kind) => encode(kind),
            None => GLIBC,
        },
    };
    // Whoever decides first prints the message; the others agree with it.
    let won = MODE
        .compare_exchange(UNDECIDED, v, Ordering::Relaxed, Ordering::Relaxed)
        .is_ok();
    if won && v == GLIBC {
        let mut out = StackBuf::new();
        let name = env_bytes(c"WELLTEMPERED_LOCK").unwrap_or_default();
        let _ = write!(
            out,
            "welltempered-preload: WELLTEMPERED_LOCK={}: not a lock; this program runs on glibc's own mutexes. Valid names:",
            core::str::from_utf8(name).unwrap_or("(not UTF-8)")
        );
        for k in LockKind::ALL {
            let _ = write!(out, " {k}");
        }
        let _ = out.write_str("\n");
        out.flush_to_stderr();
    }
    let mode = decode(MODE.load(Ordering::Relaxed));
    if won
        && matches!(
            mode,
            Mode::Ours(LockKind::HemlockAh | LockKind::HemlockAhPark)
        )
    {
        let mut out = StackBuf::new();
        let _ = out.write_str(
            "welltempered-preload: warning: Hemlock's Aggressive Hand-over releases a mutex before \
             its last access to it; a program that frees a mutex as soon as another thread unlocks \
             it may see that access land in freed memory\n",
        );
        out.flush_to_stderr();
    }
    mode
}

fn encode(kind: LockKind) -> u8 {
    let i = LockKind::ALL.iter().position(|k| *k == kind).unwrap_or(0);
    u8::try_from(i + 2).unwrap_or(GLIBC)
}

/// The value of an environment variable, without allocating.
fn env_bytes(name: &core::ffi::CStr) -> Option<&'static [u8]> {
    // SAFETY: `name` is NUL-terminated. getenv returns null or a pointer into the environment
    // block, which this library never modifies; a program that calls setenv concurrently with
    // its own first mutex call races with getenv in glibc too.
    let p = unsafe { libc::getenv(name.as_ptr()) };
    if p.is_null() {
        return None;
    }
    // SAFETY: getenv returned a NUL-terminated string that lives as long as the environment.
    Some(unsafe { core::ffi::CStr::from_ptr(p) }.to_bytes())
}

/// Prints `parts` on stderr and aborts: for states the library cannot continue from.
pub(crate) fn fatal(parts: &[&[u8]]) -> ! {
    let mut out = StackBuf::new();
    let _ = out.write_str("welltempered-preload: fatal: ");
    for p in parts {
        out.push(p);
    }
    out.push(b"\n");
    out.flush_to_stderr();
    std::process::abort()
}

/// A fixed buffer for messages: formatting without allocating.
pub(crate) struct StackBuf {
    buf: [u8; 2048],
    len: usize,
}

impl StackBuf {
    pub(crate) const fn new() -> Self {
        StackBuf {
            buf: [0; 2048],
            len: 0,
        }
    }

    fn push(&mut self, bytes: &[u8]) {
        let n = bytes.len().min(self.buf.len() - self.len);
        self.buf[self.len..self.len + n].copy_from_slice(&bytes[..n]);
        self.len += n;
    }

    /// Writes the buffer to fd 2 with the raw system call: libc's `write` is a cancellation
    /// point, and the first message may be printed from inside a mutex call, which is not one.
    pub(crate) fn flush_to_stderr(&mut self) {
        let mut off = 0;
        while off < self.len {
            // SAFETY: the range lies inside `buf`; fd 2 may be closed, and then write fails.
            let r = unsafe {
                libc::syscall(libc::SYS_write, 2, self.buf[off..].as_ptr(), self.len - off)
            };
            if r <= 0 {
                break;
            }
            off += r as usize;
        }
        self.len = 0;
    }
}

impl core::fmt::Write for StackBuf {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        self.push(s.as_bytes());
        Ok(())
    }
}

// ---- statistics (WELLTEMPERED_PRELOAD_STATS=1) ----

static STATS_ON: AtomicBool = AtomicBool::new(false);
static ACQUIRED: [AtomicU64; KINDS] = [const { AtomicU64::new(0) }; KINDS];
static CONTENDED: [AtomicU64; KINDS] = [const { AtomicU64::new(0) }; KINDS];
static GLIBC_KIND_LOCKS: AtomicU64 = AtomicU64::new(0);

/// Whether acquisitions are being counted.
#[inline]
pub(crate) fn stats_on() -> bool {
    // Relaxed: set once by the constructor before `main`; a lock taken earlier is not counted.
    STATS_ON.load(Ordering::Relaxed)
}

/// Counts one acquisition of our lock `kind`, `contended` when it could not be taken at once.
#[inline]
pub(crate) fn count(kind: LockKind, contended: bool) {
    let i = usize::from(encode(kind) - 2);
    // Relaxed: the counters are only read at exit, after every thread's last count.
    ACQUIRED[i].fetch_add(1, Ordering::Relaxed);
    if contended {
        CONTENDED[i].fetch_add(1, Ordering::Relaxed);
    }
}

/// Counts one lock of a mutex routed to glibc (recursive, error-checking, ...).
#[inline]
pub(crate) fn count_glibc() {
    // Relaxed: read only at exit.
    GLIBC_KIND_LOCKS.fetch_add(1, Ordering::Relaxed);
}

extern "C" fn print_stats() {
    let mut out = StackBuf::new();
    let mut any = false;
    for (i, k) in LockKind::ALL.iter().enumerate() {
        // Relaxed: exit handlers run after the program's threads have done their counting, or
        // the figure is a snapshot, which is all it claims to be.
        let acq = ACQUIRED[i].load(Ordering::Relaxed);
        if acq == 0 {
            continue;
        }
        any = true;
        let con = CONTENDED[i].load(Ordering::Relaxed);
        let _ = write!(
            out,
            "welltempered-preload: {k}: acquisitions {acq}, contended {con} ({:.1}%), most threads waiting on one Grant: ",
            con as f64 * 100.0 / acq as f64
        );
        max_grant_waiters(&mut out);
        let _ = out.write_str("\n");
    }
    if !any {
        let _ = writeln!(
            out,
            "welltempered-preload: no acquisitions of our locks (mode: {:?})",
            mode()
        );
    }
    let _ = writeln!(
        out,
        "welltempered-preload: mutexes of kinds routed to glibc: {} acquisitions",
        GLIBC_KIND_LOCKS.load(Ordering::Relaxed)
    );
    // Exited threads give their per-thread state back for reuse: these grow with the threads
    // alive at once, not with the threads ever created.
    let _ = writeln!(
        out,
        "welltempered-preload: per-thread state allocated: {} Hemlock Grants, {} queue nodes",
        welltempered_lock::grants_allocated(),
        welltempered_lock::queue_nodes_allocated()
    );
    out.flush_to_stderr();
}

#[cfg(feature = "stats")]
fn max_grant_waiters(out: &mut StackBuf) {
    let _ = write!(
        out,
        "{}",
        welltempered_lock::queue_stats().max_grant_waiters
    );
}

#[cfg(not(feature = "stats"))]
fn max_grant_waiters(out: &mut StackBuf) {
    let _ = out.write_str("n/a (build with --features stats)");
}

/// Runs when the library is loaded: decides the mode and arms the exit-time statistics.
extern "C" fn constructor() {
    let _ = mode();
    if env_bytes(c"WELLTEMPERED_PRELOAD_STATS").is_some_and(|v| v == b"1") {
        STATS_ON.store(true, Ordering::Relaxed);
        // SAFETY: print_stats is an `extern "C" fn()` that lives as long as the process (the
        // library is never unloaded: it is preloaded).
        unsafe { libc::atexit(print_stats) };
    }
}

#[used]
#[unsafe(link_section = ".init_array")]
static CONSTRUCTOR: extern "C" fn() = constructor;
