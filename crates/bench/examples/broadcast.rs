//! A condition-variable broadcast, measured for the requeue of `welltempered_lock::Condvar`:
//! `W` waiters wait for each new generation under one mutex; a notifier bumps the generation,
//! `notify_all`s, and waits (on a second condition variable) until every waiter has seen it.
//! The figure is broadcast rounds per second, with voluntary context switches per round.
//!
//! Variants: `wt` (the default `Mutex` with its `Condvar`, which requeues the waiters onto the
//! mutex), `wt-wake-all` (the same mutex with `CondvarFor<RawMutex>`, which wakes them all: the
//! A/B of the requeue), parking_lot's `Mutex` + `Condvar` (which requeues onto its own queue)
//! and std's. Repetitions are paired and interleaved (the order rotates), ratios are taken
//! within a repetition, and the report gives their medians with bootstrap 95% intervals.
//!
//! ```text
//! cargo run --release -p welltempered-bench --example broadcast -- [REPS] [MILLIS] [WAITERS...]
//! ```

use std::collections::BTreeMap;
use std::time::{Duration, Instant};
use welltempered_bench::counters::Rusage;
use welltempered_bench::stats::estimate;

/// The state under the mutex.
#[derive(Default)]
struct State {
    generation: u64,
    acked: usize,
    stop: bool,
}

/// One run's figures: rounds per second and voluntary context switches per round.
struct Figures {
    rounds_per_s: f64,
    vcsw_per_round: f64,
}

/// One variant's run: `waiters` waiters for `window`, with the mutex and condition variable
/// types and their calling conventions supplied by the macro arms below.
macro_rules! broadcast_run {
    ($name:ident, $mutex:ty, $cv:ty, $lock:expr, $wait_while:expr) => {
        fn $name(waiters: usize, window: Duration) -> Figures {
            let m = <$mutex>::new(State::default());
            let (cv, done) = (<$cv>::new(), <$cv>::new());
            let ru0 = Rusage::now();
            let started = Instant::now();
            let rounds = std::thread::scope(|s| {
                for _ in 0..waiters {
                    let (m, cv, done) = (&m, &cv, &done);
                    s.spawn(move || {
                        let mut g = $lock(m);
                        let mut seen = 0;
                        loop {
                            g = $wait_while(cv, g, |st: &mut State| {
                                st.generation == seen && !st.stop
                            });
                            if g.stop {
                                return;
                            }
                            seen = g.generation;
                            g.acked += 1;
                            if g.acked == waiters {
                                done.notify_one();
                            }
                        }
                    });
                }
                let mut rounds = 0u64;
                while started.elapsed() < window {
                    let mut g = $lock(&m);
                    g.generation += 1;
                    g.acked = 0;
                    cv.notify_all();
                    g = $wait_while(&done, g, |st: &mut State| st.acked < waiters);
                    drop(g);
                    rounds += 1;
                }
                $lock(&m).stop = true;
                cv.notify_all();
                rounds
            });
            let secs = started.elapsed().as_secs_f64();
            let ru = Rusage::now().since(&ru0);
            Figures {
                rounds_per_s: rounds as f64 / secs,
                vcsw_per_round: ru.vcsw as f64 / rounds.max(1) as f64,
            }
        }
    };
}

fn lock_std(m: &std::sync::Mutex<State>) -> std::sync::MutexGuard<'_, State> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

fn wait_std<'a>(
    cv: &std::sync::Condvar,
    g: std::sync::MutexGuard<'a, State>,
    f: impl FnMut(&mut State) -> bool,
) -> std::sync::MutexGuard<'a, State> {
    cv.wait_while(g, f).unwrap_or_else(|e| e.into_inner())
}

broadcast_run!(
    run_std,
    std::sync::Mutex<State>,
    std::sync::Condvar,
    lock_std,
    wait_std
);
fn lock_api_lock<R: lock_api::RawMutex>(
    m: &lock_api::Mutex<R, State>,
) -> lock_api::MutexGuard<'_, R, State> {
    m.lock()
}

fn wait_parking_lot<'a>(
    cv: &parking_lot::Condvar,
    mut g: parking_lot::MutexGuard<'a, State>,
    f: impl FnMut(&mut State) -> bool,
) -> parking_lot::MutexGuard<'a, State> {
    cv.wait_while(&mut g, f);
    g
}

fn wait_lock_api<'a, C: lock_api::RawCondvar>(
    cv: &lock_api::Condvar<C>,
    mut g: lock_api::MutexGuard<'a, C::RawMutex, State>,
    f: impl FnMut(&mut State) -> bool,
) -> lock_api::MutexGuard<'a, C::RawMutex, State> {
    cv.wait_while(&mut g, f);
    g
}

broadcast_run!(
    run_parking_lot,
    parking_lot::Mutex<State>,
    parking_lot::Condvar,
    lock_api_lock,
    wait_parking_lot
);
broadcast_run!(
    run_wt,
    welltempered_lock::Mutex<State>,
    welltempered_lock::Condvar,
    lock_api_lock,
    wait_lock_api
);
broadcast_run!(
    run_wt_wake_all,
    welltempered_lock::Mutex<State>,
    welltempered_lock::CondvarFor<welltempered_lock::RawMutex>,
    lock_api_lock,
    wait_lock_api
);

type Run = fn(usize, Duration) -> Figures;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| -> u64 {
        args.get(i).map_or(d, |a| {
            a.parse().unwrap_or_else(|e| {
                eprintln!("broadcast: argument {a:?}: {e}");
                std::process::exit(2)
            })
        })
    };
    let reps = num(0, 7) as usize;
    let window = Duration::from_millis(num(1, 200));
    let mut waiters: Vec<usize> = args.iter().skip(2).filter_map(|a| a.parse().ok()).collect();
    if waiters.is_empty() {
        waiters = vec![2, 4, 16];
    }
    let variants: [(&str, Run); 4] = [
        ("wt", run_wt),
        ("wt-wake-all", run_wt_wake_all),
        ("parking_lot", run_parking_lot),
        ("std", run_std),
    ];
    let host = welltempered_bench::host::Host::collect();
    println!("# condition-variable broadcast: {}", host.label());
    println!(
        "# {reps} paired repetitions of {} ms per variant, order rotating; ratios of wt's \
         rounds/s to each, medians [bootstrap 95%]",
        window.as_millis()
    );
    println!(
        "| waiters | wt rounds/s | vs wt-wake-all | vs parking_lot | vs std | vcsw/round wt | wake-all | parking_lot | std |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for &w in &waiters {
        let mut by: BTreeMap<&str, Vec<Figures>> = BTreeMap::new();
        for r in 0..reps {
            for k in 0..variants.len() {
                let (name, run) = variants[(r + k) % variants.len()];
                by.entry(name).or_default().push(run(w, window));
            }
        }
        let ratio = |other: &str| {
            let xs: Vec<f64> = by["wt"]
                .iter()
                .zip(&by[other])
                .map(|(a, b)| a.rounds_per_s / b.rounds_per_s)
                .collect();
            let e = estimate(&xs).expect("ratios");
            format!("{:.2} [{:.2}, {:.2}]", e.median, e.lo, e.hi)
        };
        let med = |name: &str, f: fn(&Figures) -> f64| {
            let xs: Vec<f64> = by[name].iter().map(f).collect();
            welltempered_bench::stats::median(&xs).unwrap_or(f64::NAN)
        };
        println!(
            "| {w} | {:.0} | {} | {} | {} | {:.1} | {:.1} | {:.1} | {:.1} |",
            med("wt", |f| f.rounds_per_s),
            ratio("wt-wake-all"),
            ratio("parking_lot"),
            ratio("std"),
            med("wt", |f| f.vcsw_per_round),
            med("wt-wake-all", |f| f.vcsw_per_round),
            med("parking_lot", |f| f.vcsw_per_round),
            med("std", |f| f.vcsw_per_round),
        );
    }
}
