//! An idle team sleeps: after its spin window every worker waits in the kernel (state `S` in
//! `/proc`), so it burns no CPU between regions. Alone in its own test binary, so that the
//! only `welltempered-par-*` threads are this test's.
#![cfg(not(miri))] // reads /proc

use welltempered_par::{Config, Runtime, WaitPolicy};

/// The states of this process's team threads.
fn worker_states() -> Vec<char> {
    let mut states = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").unwrap() {
        let dir = task.unwrap().path();
        let comm = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
        if !comm.starts_with("welltempered-pa") {
            continue;
        }
        let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
        // The state follows the parenthesised command name.
        if let Some(s) = stat
            .rsplit(')')
            .next()
            .and_then(|r| r.trim_start().chars().next())
        {
            states.push(s);
        }
    }
    states
}

#[test]
fn idle_workers_end_up_asleep() {
    for wait in [WaitPolicy::default(), WaitPolicy::Passive] {
        let rt = Runtime::new(Config {
            threads: 3,
            wait,
            ..Config::default()
        });
        rt.parallel(|ctx| ctx.barrier());
        // Polled without a deadline: the test fails by hanging (the harness's timeout) if a
        // worker kept spinning; how long it takes is not what is tested.
        loop {
            let s = worker_states();
            assert_eq!(s.len(), 2);
            if s.iter().all(|&c| c == 'S') {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        // And the sleeping team still runs regions.
        let n = std::sync::atomic::AtomicUsize::new(0);
        rt.parallel(|_| {
            n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        });
        assert_eq!(n.into_inner(), 3);
    }
}
