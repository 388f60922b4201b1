//! The C programs in `tests/c/`, compiled here and run with and without the preload library,
//! under every lock of `LockKind`: each must succeed and print exactly what it prints on glibc's
//! own locks.
//!
//! Conformance: the Open POSIX Test Suite is not usable here (Debian's `posixtestsuite` package,
//! 1.5.2 in bookworm, ships only the log of a run, not the tests), so the cases it would cover
//! for `pthread_mutex_*` and `pthread_cond_*` are C programs of their own (`conddestroy`,
//! `condcancel`, `timedcancel`, `condrobust`, `condpshared`, `deadlines`, `condkinds`,
//! `condsignal`), which print their results so that every answer is compared with glibc's.
//! Programs that could hang on a regression (a lost wake-up, a waiter that never leaves) arm
//! `alarm()` and fail instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use welltempered_lock::LockKind;

/// `libwelltempered_preload.so`, which cargo builds beside this test (both in `deps/`) because
/// the test depends on the package's library.
fn library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    // target/<profile>/deps/preload-HASH -> target/<profile>/deps/libwelltempered_preload.so
    let lib = exe.parent().unwrap().join("libwelltempered_preload.so");
    assert!(lib.exists(), "{} was not built", lib.display());
    lib
}

/// Compiles `tests/c/NAME.c` once per test run and returns the executable.
fn program(name: &str) -> PathBuf {
    static BUILT: OnceLock<std::sync::Mutex<Vec<String>>> = OnceLock::new();
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("preload-c");
    let exe = out_dir.join(name);
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap();
    if !built.iter().any(|b| b == name) {
        std::fs::create_dir_all(&out_dir).unwrap();
        let src = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/c")
            .join(format!("{name}.c"));
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&cc)
            .args(["-O2", "-pthread", "-Wall", "-Wextra", "-Werror", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler `{cc}`: {e}"));
        assert!(
            out.status.success(),
            "compiling {}:\n{}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        built.push(name.to_string());
    }
    exe
}

fn run(exe: &Path, args: &[&str], env: &[(&str, &str)], preload: bool) -> Output {
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env_remove("WELLTEMPERED_LOCK")
        .env_remove("WELLTEMPERED_PRELOAD_STATS");
    if preload {
        cmd.env("LD_PRELOAD", library());
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn describe(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Runs `name args` on glibc, then under every lock kind, and compares.
fn every_kind(name: &str, args: &[&str]) {
    every_kind_scaled(name, args, args);
}

/// As [`every_kind`], with `spin_args` for the FIFO locks that only spin: once threads outnumber
/// cores they hand the lock to descheduled waiters (the collapse the park forms exist to avoid),
/// so the same work takes them orders of magnitude longer.
fn every_kind_scaled(name: &str, args: &[&str], spin_args: &[&str]) {
    let exe = program(name);
    let base = run(&exe, args, &[], false);
    assert!(
        base.status.success(),
        "{name} {args:?} fails on glibc itself: {}",
        describe(&base)
    );
    let spin_base = run(&exe, spin_args, &[], false);
    assert!(
        spin_base.status.success(),
        "{name} {spin_args:?} fails on glibc itself: {}",
        describe(&spin_base)
    );
    for kind in LockKind::ALL {
        let k = kind.to_string();
        let (args, base) = if kind.is_fifo() && !kind.parks() {
            (spin_args, &spin_base)
        } else {
            (args, &base)
        };
        let o = run(
            &exe,
            args,
            &[
                ("WELLTEMPERED_LOCK", &k),
                ("WELLTEMPERED_PRELOAD_STATS", "1"),
            ],
            true,
        );
        assert!(
            o.status.success(),
            "{name} {args:?} under {k}: {}",
            describe(&o)
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&base.stdout),
            "{name} {args:?} under {k} printed something else than on glibc"
        );
        // The statistics prove the program really ran on our lock.
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.lines()
                .any(|l| l.starts_with(&format!("welltempered-preload: {k}: acquisitions "))),
            "{name} under {k}: no acquisitions of our lock were counted:\n{err}"
        );
    }
}

#[test]
fn counter_2_threads() {
    every_kind("counter", &["2", "20000"]);
}

#[test]
fn counter_4_threads() {
    every_kind_scaled("counter", &["4", "5000"], &["4", "300"]);
}

#[test]
fn counter_16_threads() {
    every_kind_scaled("counter", &["16", "1000"], &["16", "30"]);
}

#[test]
fn counter_64_threads_oversubscribed() {
    every_kind_scaled("counter", &["64", "100"], &["64", "10"]);
}

#[test]
fn trylock_timedlock_error_codes() {
    every_kind("timed", &[]);
}

#[test]
fn bounded_buffer_on_condition_variables() {
    every_kind_scaled("buffer", &["2", "2", "5000"], &["2", "2", "500"]);
    every_kind_scaled("buffer", &["1", "3", "5000"], &["1", "3", "500"]);
}

#[test]
fn broadcast_barrier() {
    every_kind_scaled("barrier", &["4", "200"], &["4", "20"]);
}

#[test]
fn recursive_and_errorcheck_mutexes_go_to_glibc() {
    every_kind("kinds", &[]);
}

#[test]
fn mutexes_in_heap_objects_freed_after_unlock() {
    every_kind_scaled("heapfree", &["4", "5000"], &["4", "300"]);
}

#[test]
fn timed_condition_waits_on_their_clock() {
    every_kind("condclock", &[]);
}

#[test]
fn threads_and_mutexes_before_main() {
    every_kind("prector", &[]);
}

#[test]
fn a_malloc_that_locks_mutexes_does_not_recurse() {
    every_kind("mallocmutex", &[]);
}

/// The POSIX `pthread_cond_destroy` example: broadcast, unlock, destroy and free while the woken
/// waiters are still leaving; a waiter's late write into the freed (and reused) memory shows.
#[test]
fn destroy_while_woken_waiters_leave() {
    every_kind_scaled("conddestroy", &["3", "150"], &["3", "30"]);
}

/// Process-shared condition variables: with one of our mutexes in one process, and with a
/// process-shared mutex in shared memory across `fork`.
#[test]
fn process_shared_condition_variables() {
    every_kind_scaled("condpshared", &["500"], &["50"]);
}

/// A robust mutex's owner dies while another thread waits on a condition variable with it: the
/// wait returns `EOWNERDEAD` (and `ENOTRECOVERABLE` once the mutex is unrecoverable).
#[test]
fn robust_owner_death_inside_a_condition_wait() {
    every_kind("condrobust", &[]);
}

/// Condition waits are cancellation points; the mutex is held when the cleanup handlers run; a
/// cancelled waiter does not swallow a signal; waiters cancelled at arbitrary moments leave the
/// condition variable and the mutex in order.
#[test]
fn condition_waits_are_cancellation_points() {
    every_kind_scaled("condcancel", &["200"], &["20"]);
}

/// Timed mutex acquisitions are not cancellation points, even while they sleep.
#[test]
fn timed_locks_are_not_cancellation_points() {
    every_kind("timedcancel", &[]);
}

/// Far-future (`LONG_MAX`), past, negative and invalid deadlines of every timed call on both
/// clocks give glibc's answers; `ETIMEDOUT` never comes early.
#[test]
fn far_future_past_and_invalid_deadlines() {
    every_kind("deadlines", &[]);
}

/// A signal sent outside the mutex unblocks a thread that was waiting before it, not one that
/// started waiting after it; a stress mix of signals, broadcasts and timed-out waiters loses no
/// wake-up.
#[test]
fn signal_wakes_a_waiter_blocked_before_it() {
    every_kind_scaled("condsignal", &["8", "5000"], &["8", "300"]);
}

/// Condition waits with every kind of mutex (the library's and glibc's), on private and
/// process-shared condition variables.
#[test]
fn condition_waits_with_every_mutex_kind() {
    every_kind("condkinds", &[]);
}

#[test]
fn unknown_lock_name_falls_back_to_glibc_with_one_message() {
    let exe = program("buffer");
    let base = run(&exe, &["2", "2", "2000"], &[], false);
    let o = run(
        &exe,
        &["2", "2", "2000"],
        &[("WELLTEMPERED_LOCK", "no-such-lock")],
        true,
    );
    assert!(o.status.success(), "{}", describe(&o));
    assert_eq!(o.stdout, base.stdout);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(
        err.matches("WELLTEMPERED_LOCK=no-such-lock: not a lock")
            .count(),
        1,
        "{err}"
    );
    assert!(
        err.contains("hemlock-park"),
        "the message lists the valid names: {err}"
    );
}

/// With an unknown lock name, glibc serves every call, the condition waits included: they are
/// exported by the library's C wrappers, which then call glibc's own functions (so glibc's
/// cancellation unwinds through C frames only), and each program prints what it prints on glibc.
#[test]
fn glibc_fallback_serves_waits_cancellation_and_shared_objects() {
    for (name, args) in [
        ("condcancel", &[][..]),
        ("condpshared", &["200"][..]),
        ("condrobust", &[][..]),
        ("deadlines", &[][..]),
        ("conddestroy", &["3", "300"][..]),
    ] {
        let exe = program(name);
        let base = run(&exe, args, &[], false);
        assert!(
            base.status.success(),
            "{name} on glibc: {}",
            describe(&base)
        );
        let o = run(&exe, args, &[("WELLTEMPERED_LOCK", "no-such-lock")], true);
        assert!(
            o.status.success(),
            "{name} on the fallback: {}",
            describe(&o)
        );
        assert_eq!(
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&base.stdout),
            "{name} on the fallback printed something else than on glibc"
        );
    }
}

#[test]
fn default_lock_is_the_default_mutex() {
    let exe = program("counter");
    let o = run(
        &exe,
        &["2", "1000"],
        &[("WELLTEMPERED_PRELOAD_STATS", "1")],
        true,
    );
    assert!(o.status.success(), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("welltempered-preload: mutex: acquisitions "),
        "{err}"
    );
}

#[test]
fn glibc_kinds_are_counted_separately() {
    let exe = program("kinds");
    let o = run(&exe, &[], &[("WELLTEMPERED_PRELOAD_STATS", "1")], true);
    assert!(o.status.success(), "{}", describe(&o));
    let err = String::from_utf8_lossy(&o.stderr);
    let line = err
        .lines()
        .find(|l| l.contains("routed to glibc"))
        .unwrap_or_else(|| panic!("{err}"));
    let n: u64 = line
        .rsplit(": ")
        .next()
        .unwrap()
        .trim_end_matches(" acquisitions")
        .parse()
        .unwrap();
    assert!(
        n >= 8,
        "the recursive and error-checking locks went to glibc: {line}"
    );
}

/// A program that keeps creating threads allocates per-thread lock state (Hemlock Grants, queue
/// nodes) for the threads alive at once, not for every thread it ever ran: exited threads give
/// theirs back (a POSIX key destructor, which runs in C threads too).
#[test]
fn exited_threads_give_their_lock_state_back() {
    let exe = program("threadchurn");
    let rounds = "400";
    let want = run(&exe, &[rounds], &[], false);
    assert!(want.status.success(), "{}", describe(&want));
    for kind in [
        "hemlock-park",
        "hemlock-overlap-park",
        "hemlock-ah-park",
        "mcs-park",
        "clh-park",
        "mutex",
    ] {
        let o = run(
            &exe,
            &[rounds],
            &[
                ("WELLTEMPERED_LOCK", kind),
                ("WELLTEMPERED_PRELOAD_STATS", "1"),
            ],
            true,
        );
        assert!(o.status.success(), "{kind}: {}", describe(&o));
        assert_eq!(o.stdout, want.stdout, "{kind}");
        let err = String::from_utf8_lossy(&o.stderr);
        let line = err
            .lines()
            .find(|l| l.contains("per-thread state allocated"))
            .unwrap_or_else(|| panic!("{kind}: {err}"));
        let numbers: Vec<usize> = line
            .split(|c: char| !c.is_ascii_digit())
            .filter(|w| !w.is_empty())
            .map(|w| w.parse().unwrap())
            .collect();
        let (grants, nodes) = (numbers[0], numbers[1]);
        // 800 threads ran, at most three at a time (the two workers and the main thread).
        assert!(grants <= 6, "{kind}: {grants} Grants for 800 threads");
        assert!(nodes <= 48, "{kind}: {nodes} queue nodes for 800 threads");
    }
}
