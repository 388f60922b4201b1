//! Per-thread lock state goes back when a thread exits: a program that keeps creating threads
//! holds Hemlock Grants and queue nodes for its live threads, not for every thread it ever ran.
//! (Its own test binary: the counters are process-wide.)

#![cfg(not(loom))]

use lock_api::Mutex;
use std::sync::Arc;
use welltempered_lock::{
    Clh, Hemlock, HemlockAh, HemlockOverlapPark, McsPark, grants_allocated, queue_nodes_allocated,
};

#[test]
fn thread_after_thread_reuses_grants_and_nodes() {
    let threads = if cfg!(miri) { 20 } else { 500 };
    let locks = Arc::new((
        Mutex::<Hemlock, u64>::new(0),
        Mutex::<HemlockOverlapPark, u64>::new(0),
        Mutex::<McsPark, u64>::new(0),
        Mutex::<Clh, u64>::new(0),
        Mutex::<HemlockAh, u64>::new(0),
    ));
    for _ in 0..threads {
        // Two threads at a time, so that the locks are contended now and then. Joined with
        // `JoinHandle::join` (pthread_join), which returns after the thread's key destructors
        // ran: `thread::scope` only waits for the closures.
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let l = Arc::clone(&locks);
                std::thread::spawn(move || {
                    let (a, b, c, d, e) = &*l;
                    for _ in 0..10 {
                        // Several locks held at once: several queue nodes per thread.
                        let mut ga = a.lock();
                        let mut gb = b.lock();
                        let mut gc = c.lock();
                        let mut gd = d.lock();
                        *ga += 1;
                        *gb += 1;
                        *gc += 1;
                        *gd += 1;
                        drop((gd, gc, gb, ga));
                        *e.lock() += 1;
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
    assert_eq!(*locks.0.lock(), threads * 20);
    assert_eq!(*locks.4.lock(), threads * 20);
    // At most two threads (plus this one, for the final checks) ever used the locks at once:
    // a Grant of each kind and a few queue nodes per live thread; never one per thread run.
    let grants = grants_allocated();
    let nodes = queue_nodes_allocated();
    assert!(
        grants <= 3 * 2,
        "{grants} Grants for {} threads",
        2 * threads
    );
    assert!(
        nodes <= 3 * 16,
        "{nodes} queue nodes for {} threads",
        2 * threads
    );
}
