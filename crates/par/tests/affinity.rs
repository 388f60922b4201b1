//! Pinning, and the affinity reset of threads that must not be pinned (omp0's sticky bug).
#![cfg(not(miri))] // sched_setaffinity is not emulated.

use std::sync::Mutex;
use welltempered_par::{
    Config, Pinning, ProcBind, Runtime, current_affinity, set_current_affinity,
};

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

#[test]
fn threads_are_bound_to_their_places_and_the_master_is_restored() {
    std::thread::spawn(|| {
        let full = current_affinity().unwrap();
        let last = *full.last().unwrap();
        // Two places: every CPU, and the last one alone. With close binding and 3 threads over
        // 2 places, thread 2 goes back to the first place (libgomp's order).
        let places = vec![full.clone(), vec![last]];
        let rt = Runtime::new(Config {
            threads: 3,
            pinning: Pinning::Places {
                places: places.clone(),
                bind: ProcBind::Close,
            },
            ..Config::default()
        });
        // The master is confined to its place for the region: start it elsewhere.
        set_current_affinity(&[last]).unwrap();
        let masks = Mutex::new(Vec::new());
        rt.parallel(|ctx| {
            masks
                .lock()
                .unwrap()
                .push((ctx.thread_num(), current_affinity().unwrap()));
        });
        let mut masks = masks.into_inner().unwrap();
        masks.sort();
        assert_eq!(
            masks,
            [(0, full.clone()), (1, vec![last]), (2, full.clone())]
        );
        assert_eq!(
            current_affinity().unwrap(),
            [last],
            "the master's mask is restored"
        );

        // Primary: every thread on the master's place.
        let primary = Runtime::new(Config {
            threads: 2,
            pinning: Pinning::Places {
                places: vec![vec![last], full.clone()],
                bind: ProcBind::Primary,
            },
            ..Config::default()
        });
        set_current_affinity(&full).unwrap();
        primary.parallel(|ctx| {
            assert_eq!(
                current_affinity().unwrap(),
                [last],
                "thread {}",
                ctx.thread_num()
            );
        });
        assert_eq!(current_affinity().unwrap(), full);
    })
    .join()
    .unwrap();
}
