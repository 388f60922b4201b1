//! Loom models of the phase-fair [`RawRwLock`].
//!
//! `RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS=2 cargo test -p welltempered-lock --release --test loom_rwlock`
//!
//! Readers read and writers increment a `loom::cell::UnsafeCell`: loom reports a write not
//! ordered with a read or another write by the lock as a data race, and the final value checks
//! that no increment was lost. Under loom, `futex::wait` is a yield and a legal spurious
//! return, so the sleep paths are explored as loops. Models of three threads run with one
//! preemption.

#![cfg(loom)]

use loom::cell::UnsafeCell;
use loom::sync::Arc;
use loom::thread;
use welltempered_lock::RawRwLock;

struct Shared {
    lock: RawRwLock,
    value: UnsafeCell<u32>,
}

fn shared() -> Arc<Shared> {
    Arc::new(Shared {
        lock: RawRwLock::new(),
        value: UnsafeCell::new(0),
    })
}

fn builder(threads: usize) -> loom::model::Builder {
    let mut b = loom::model::Builder::new();
    let bound = b.preemption_bound.unwrap_or(2);
    b.preemption_bound = Some(if threads >= 3 { bound.min(1) } else { bound });
    b
}

fn write(s: &Shared) {
    s.lock.lock_exclusive();
    // SAFETY: held exclusively (loom checks it).
    s.value.with_mut(|v| unsafe { *v += 1 });
    // SAFETY: locked just above by this thread.
    unsafe { s.lock.unlock_exclusive() };
}

fn read(s: &Shared) -> u32 {
    s.lock.lock_shared();
    // SAFETY: held shared: no writer (loom checks it).
    let v = s.value.with(|v| unsafe { *v });
    // SAFETY: locked just above by this thread.
    unsafe { s.lock.unlock_shared() };
    v
}

/// The value at the end, with the lock found unheld.
fn final_value(s: &Shared) -> u32 {
    assert!(!s.lock.is_locked(), "left locked");
    assert!(s.lock.try_lock_exclusive());
    // SAFETY: held, every other thread has finished.
    let v = s.value.with(|v| unsafe { *v });
    // SAFETY: held.
    unsafe { s.lock.unlock_exclusive() };
    v
}

#[test]
fn a_writer_and_a_reader() {
    builder(2).check(|| {
        let s = shared();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || write(&s2));
        let v = read(&s);
        assert!(v <= 1);
        t.join().unwrap();
        assert_eq!(final_value(&s), 1);
    });
}

#[test]
fn two_writers() {
    builder(2).check(|| {
        let s = shared();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || write(&s2));
        write(&s);
        t.join().unwrap();
        assert_eq!(final_value(&s), 2);
    });
}

/// A reader that may wait across two writer phases: the phase bit must not let it miss the
/// first writer's exit and wait for the second writer, which waits for it.
#[test]
fn two_writers_and_a_reader() {
    builder(3).check(|| {
        let s = shared();
        let (s2, s3) = (Arc::clone(&s), Arc::clone(&s));
        let a = thread::spawn(move || write(&s2));
        let b = thread::spawn(move || write(&s3));
        assert!(read(&s) <= 2);
        a.join().unwrap();
        b.join().unwrap();
        assert_eq!(final_value(&s), 2);
    });
}

/// The try forms against a writer: whatever they see is ordered with its write.
#[test]
fn try_forms_against_a_writer() {
    builder(2).check(|| {
        let s = shared();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || write(&s2));
        if s.lock.try_lock_shared() {
            // SAFETY: held shared.
            let v = s.value.with(|v| unsafe { *v });
            assert!(v <= 1);
            // SAFETY: held shared.
            unsafe { s.lock.unlock_shared() };
        }
        if s.lock.try_lock_exclusive() {
            // SAFETY: held exclusively.
            s.value.with_mut(|v| unsafe { *v += 10 });
            // SAFETY: held exclusively.
            unsafe { s.lock.unlock_exclusive() };
        }
        t.join().unwrap();
        let v = final_value(&s);
        assert!(v == 1 || v == 11);
    });
}

/// An upgradable read that upgrades while a reader comes and goes and a writer queues.
#[test]
fn upgrade_with_a_reader_and_a_writer() {
    builder(3).check(|| {
        let s = shared();
        let (s2, s3) = (Arc::clone(&s), Arc::clone(&s));
        let up = thread::spawn(move || {
            s2.lock.lock_upgradable();
            // SAFETY: an upgradable read excludes writers.
            let before = s2.value.with(|v| unsafe { *v });
            // SAFETY: the upgradable read is held.
            unsafe { s2.lock.upgrade() };
            // SAFETY: held exclusively; no writer ran since the upgradable read began.
            s2.value.with_mut(|v| unsafe {
                assert_eq!(*v, before);
                *v += 1;
            });
            // SAFETY: held exclusively.
            unsafe { s2.lock.unlock_exclusive() };
        });
        let r = thread::spawn(move || assert!(read(&s3) <= 2));
        write(&s);
        up.join().unwrap();
        r.join().unwrap();
        assert_eq!(final_value(&s), 2);
    });
}

/// A writer that downgrades to a read while another reader and a writer contend.
#[test]
fn downgrade_with_a_reader() {
    builder(2).check(|| {
        let s = shared();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || assert!(read(&s2) <= 1));
        s.lock.lock_exclusive();
        // SAFETY: held exclusively.
        s.value.with_mut(|v| unsafe { *v += 1 });
        // SAFETY: held exclusively, then shared.
        unsafe {
            s.lock.downgrade();
            assert_eq!(s.value.with(|v| *v), 1);
            s.lock.unlock_shared();
        }
        t.join().unwrap();
        assert_eq!(final_value(&s), 1);
    });
}

/// An upgradable read, downgraded to a plain read, lets a queued writer announce itself.
#[test]
fn upgradable_downgrade_with_a_writer() {
    builder(2).check(|| {
        let s = shared();
        let s2 = Arc::clone(&s);
        let t = thread::spawn(move || write(&s2));
        s.lock.lock_upgradable();
        // SAFETY: an upgradable read is held, then a plain read.
        unsafe {
            let v = s.value.with(|v| *v);
            s.lock.downgrade_upgradable();
            assert_eq!(s.value.with(|v| *v), v, "no writer inside a read");
            s.lock.unlock_shared();
        }
        t.join().unwrap();
        assert_eq!(final_value(&s), 1);
    });
}
