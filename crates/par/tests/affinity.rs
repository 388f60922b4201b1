//! Pinning, and the affinity reset of threads that must not be pinned (omp0's sticky bug).
#![cfg(not(miri))] // sched_setaffinity is not emulated.

use std::sync::Mutex;
use welltempered_par::{Config, Pinning, Runtime, current_affinity, set_current_affinity};

#[test]
fn unpinned_workers_get_the_full_mask_even_from_a_pinned_caller() {
    std::thread::spawn(|| {
        let full = current_affinity().unwrap();
        set_current_affinity(&full[..1]).unwrap();
        let rt = Runtime::new(Config {
            threads: 3,
            pinning: Pinning::Off,
            ..Config::default()
        });
        let masks = Mutex::new(Vec::new());
        rt.parallel(|ctx| {
            masks
                .lock()
                .unwrap()
                .push((ctx.thread_num(), current_affinity().unwrap()));
        });
        for (tid, m) in masks.into_inner().unwrap() {
            if tid == 0 {
                // The master is the caller: its own mask is left alone.
                assert_eq!(m, &full[..1]);
            } else {
                assert_eq!(m, full, "worker {tid}");
            }
        }
    })
    .join()
    .unwrap();
}

#[test]
fn pinned_threads_run_on_their_cores_and_the_master_is_restored() {
    std::thread::spawn(|| {
        let full = current_affinity().unwrap();
        let cores: Vec<usize> = full.iter().copied().rev().collect();
        let rt = Runtime::new(Config {
            threads: 3,
            pinning: Pinning::Cores(cores.clone()),
            ..Config::default()
        });
        let masks = Mutex::new(Vec::new());
        rt.parallel(|ctx| {
            masks
                .lock()
                .unwrap()
                .push((ctx.thread_num(), current_affinity().unwrap()));
        });
        for (tid, m) in masks.into_inner().unwrap() {
            assert_eq!(m, [cores[tid % cores.len()]], "thread {tid}");
        }
        assert_eq!(
            current_affinity().unwrap(),
            full,
            "the master's mask is restored"
        );

        let on = Runtime::new(Config {
            threads: 2,
            pinning: Pinning::On,
            ..Config::default()
        });
        on.parallel(|ctx| {
            assert_eq!(
                current_affinity().unwrap().len(),
                1,
                "thread {}",
                ctx.thread_num()
            );
        });
        assert_eq!(current_affinity().unwrap(), full);
    })
    .join()
    .unwrap();
}
