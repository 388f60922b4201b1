//! FIFO admission of every FIFO lock, multi-waiting on one Hemlock Grant, try_lock behaviour.
//!
//! Waiters are started one at a time, each only after the previous one is observably enqueued
//! (the lock's `queue_probe` changed: the tail pointer or the next ticket moved), so their
//! arrival order is known; the lock's release must then admit them in exactly that order.
//! Nothing here depends on timing.
#![cfg(not(loom))]

use lock_api::{GuardNoSend, RawMutex};
use std::sync::Mutex as StdMutex;
use welltempered_lock::*;

/// What these tests need from a lock besides `RawMutex`.
trait Probe: RawMutex<Guard = GuardNoSend> + Sync {
    fn probe(&self) -> usize;
}

macro_rules! probe {
    ($($t:ty),*) => {$(
        impl Probe for $t {
            fn probe(&self) -> usize {
                self.queue_probe()
            }
        }
    )*};
}

probe!(
    Hemlock,
    HemlockPark,
    HemlockOverlap,
    HemlockOverlapPark,
    HemlockAh,
    HemlockAhPark,
    Mcs,
    McsPark,
    Clh,
    ClhPark,
    Ticket,
    TicketPark
);

const WAITERS: usize = if cfg!(miri) { 3 } else { 8 };

fn wait_for_change(l: &impl Probe, before: usize) {
    while l.probe() == before {
        std::thread::yield_now();
    }
}

fn fifo<L: Probe>() {
    let l = L::INIT;
    let order = StdMutex::new(Vec::new());
    let held = l.lock();
    std::thread::scope(|s| {
        for i in 0..WAITERS {
            let before = l.probe();
            let (l, order) = (&l, &order);
            s.spawn(move || {
                let g = l.lock();
                order.lock().unwrap().push(i);
                // SAFETY: acquired above on this thread.
                unsafe { l.unlock(g) };
            });
            wait_for_change(l, before);
        }
        assert!(l.is_locked());
        assert!(order.lock().unwrap().is_empty(), "nobody enters while held");
        // SAFETY: acquired above on this thread.
        unsafe { l.unlock(held) };
    });
    assert_eq!(
        *order.lock().unwrap(),
        (0..WAITERS).collect::<Vec<_>>(),
        "admitted out of arrival order"
    );
    assert!(!l.is_locked());
}

#[test]
fn fifo_hemlock() {
    fifo::<Hemlock>();
    fifo::<HemlockPark>();
}

#[test]
fn fifo_hemlock_overlap() {
    fifo::<HemlockOverlap>();
    fifo::<HemlockOverlapPark>();
}

#[test]
fn fifo_hemlock_ah() {
    fifo::<HemlockAh>();
    fifo::<HemlockAhPark>();
}

#[test]
fn fifo_mcs() {
    fifo::<Mcs>();
    fifo::<McsPark>();
}

#[test]
fn fifo_clh() {
    fifo::<Clh>();
    fifo::<ClhPark>();
}

#[test]
fn fifo_ticket() {
    fifo::<Ticket>();
    fifo::<TicketPark>();
}

/// try_lock: succeeds on a free lock, fails while held (on the holder's and on another
/// thread), fails while waiters are queued, succeeds again once everything drained.
fn try_lock_behaviour<L: Probe>() {
    let l = L::INIT;
    assert!(!l.is_locked());
    let g = l.try_lock().expect("free lock");
    assert!(l.is_locked());
    assert!(l.try_lock().is_none());
    std::thread::scope(|s| {
        s.spawn(|| assert!(l.try_lock().is_none()));
    });
    std::thread::scope(|s| {
        let before = l.probe();
        s.spawn(|| {
            let g = l.lock();
            // SAFETY: acquired above on this thread.
            unsafe { l.unlock(g) };
        });
        wait_for_change(&l, before);
        // SAFETY: acquired above on this thread.
        unsafe { l.unlock(g) };
    });
    let g = l.try_lock().expect("free again");
    // SAFETY: acquired above on this thread.
    unsafe { l.unlock(g) };
    assert!(!l.is_locked());
}

#[test]
fn try_lock_all() {
    try_lock_behaviour::<Hemlock>();
    try_lock_behaviour::<HemlockPark>();
    try_lock_behaviour::<HemlockOverlap>();
    try_lock_behaviour::<HemlockOverlapPark>();
    try_lock_behaviour::<HemlockAh>();
    try_lock_behaviour::<HemlockAhPark>();
    try_lock_behaviour::<Mcs>();
    try_lock_behaviour::<McsPark>();
    try_lock_behaviour::<Clh>();
    try_lock_behaviour::<ClhPark>();
    try_lock_behaviour::<Ticket>();
    try_lock_behaviour::<TicketPark>();
}

/// The timed form polls `try_lock`: it gives up on a held lock and succeeds on a free one.
fn timed<L: Probe + lock_api::RawMutexTimed<Duration = std::time::Duration>>() {
    let ms = std::time::Duration::from_millis(1);
    let l = L::INIT;
    let g = l.lock();
    std::thread::scope(|s| {
        s.spawn(|| assert!(l.try_lock_for(ms).is_none()));
    });
    // SAFETY: acquired above on this thread.
    unsafe { l.unlock(g) };
    let g = l.try_lock_for(ms).expect("free lock");
    // SAFETY: acquired above on this thread.
    unsafe { l.unlock(g) };
}

#[test]
fn timed_lock_gives_up_and_succeeds() {
    timed::<HemlockPark>();
    timed::<McsPark>();
    timed::<Clh>();
    timed::<TicketPark>();
}

/// One thread holds three Hemlocks; one waiter per lock queues behind it, so three threads wait
/// on the holder's single Grant at once. Each must be admitted by the release of its own lock
/// only: releasing lock k admits exactly waiter k.
fn multi_waiting<L: Probe>() {
    let locks = [L::INIT, L::INIT, L::INIT];
    let entered = StdMutex::new(Vec::new());
    let guards: Vec<_> = locks.iter().map(|l| l.lock()).collect();
    std::thread::scope(|s| {
        for (k, l) in locks.iter().enumerate() {
            let before = l.probe();
            let entered = &entered;
            s.spawn(move || {
                let g = l.lock();
                entered.lock().unwrap().push(k);
                // SAFETY: acquired above on this thread.
                unsafe { l.unlock(g) };
            });
            wait_for_change(l, before);
        }
        if STATS_ENABLED {
            while queue_stats().max_grant_waiters < 3 {
                std::thread::yield_now();
            }
        }
        // Release in the order 1, 2, 0; each release admits its own waiter, whose entry we
        // observe before the next release.
        let mut guards: Vec<Option<GuardNoSend>> = guards.into_iter().map(Some).collect();
        for (n, k) in [1usize, 2, 0].into_iter().enumerate() {
            // SAFETY: acquired above on this thread.
            unsafe { locks[k].unlock(guards[k].take().unwrap()) };
            while entered.lock().unwrap().len() < n + 1 {
                std::thread::yield_now();
            }
            assert_eq!(entered.lock().unwrap()[n], k);
        }
    });
    assert!(locks.iter().all(|l| !l.is_locked()));
}

#[test]
fn multi_waiting_on_one_grant() {
    multi_waiting::<Hemlock>();
    multi_waiting::<HemlockPark>();
    multi_waiting::<HemlockAh>();
    multi_waiting::<HemlockAhPark>();
    multi_waiting::<HemlockOverlap>();
    multi_waiting::<HemlockOverlapPark>();
}

#[test]
fn lock_bodies_are_small_and_zero_when_unlocked() {
    fn bytes_of<L>(l: &L) -> Vec<u8> {
        // SAFETY: viewing an initialised lock's bytes; these lock types contain only atomics
        // (no padding, no uninitialised bytes), and no other thread uses `l` meanwhile.
        unsafe {
            core::slice::from_raw_parts(l as *const L as *const u8, core::mem::size_of::<L>())
        }
        .to_vec()
    }
    /// The all-zero value is `INIT`; a queue lock is all-zero again once released.
    fn zero<L: RawMutex>(max: usize, zero_after_use: bool) {
        let l = L::INIT;
        let size = core::mem::size_of::<L>();
        assert!(size <= max && size <= 40, "{size} bytes");
        assert!(bytes_of(&l).iter().all(|&b| b == 0));
        let g = l.lock();
        assert!(bytes_of(&l).iter().any(|&b| b != 0), "held is not zero");
        // SAFETY: acquired above on this thread.
        unsafe { l.unlock(g) };
        assert!(!l.is_locked());
        if zero_after_use {
            assert!(
                bytes_of(&l).iter().all(|&b| b == 0),
                "released means all-zero"
            );
        }
    }
    zero::<Hemlock>(8, true);
    zero::<HemlockPark>(8, true);
    zero::<HemlockOverlap>(8, true);
    zero::<HemlockAh>(8, true);
    zero::<Mcs>(16, true);
    zero::<McsPark>(16, true);
    zero::<Clh>(16, true);
    zero::<ClhPark>(16, true);
    // Ticket counters move on (next == serving, not zero, after use).
    zero::<Ticket>(8, false);
    zero::<TicketPark>(8, false);
}
