//! Async channels under tokio: our `send_async`/`recv_async` against flume's, kanal's and
//! tokio's own `mpsc`, on a current-thread and a two-worker multi-thread runtime.
//!
//! - `ping-pong`: two tasks, a bounded(1) channel each way; the figure is round trips per
//!   second.
//! - `fan-in`: four producer tasks send `N / 4` numbers each into one bounded(64) channel, one
//!   consumer task receives them all (checking the sum); the figure is messages per second.
//!
//! Each run moves a fixed number of messages (the first argument, default 200 000) inside one
//! `block_on`, timed from its start to its end (the runtime is built before, outside the
//! timing). Repetitions are paired and interleaved (the order of the variants rotates), ratios
//! are taken within a repetition, and the report gives their medians with bootstrap 95%
//! intervals.
//!
//! ```text
//! cargo run --release -p welltempered-bench --example async_channels -- [MESSAGES] [REPS]
//! ```

use std::collections::BTreeMap;
use std::time::Instant;
use welltempered_bench::stats::{estimate, median};

/// The runtimes, by name.
fn runtime(name: &str) -> tokio::runtime::Runtime {
    match name {
        "current-thread" => tokio::runtime::Builder::new_current_thread().build(),
        _ => tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build(),
    }
    .expect("a tokio runtime")
}

/// One variant's two workloads, written once per channel crate by the macro below: each
/// returns operations per second.
macro_rules! variant {
    ($ping:ident, $fan:ident, |$cap:ident| $make:expr,
     send($tx:ident, $v:ident) => $send:expr, recv($rx:ident) => $recv:expr) => {
        fn $ping(rt: &tokio::runtime::Runtime, n: u64) -> f64 {
            rt.block_on(async {
                let start = Instant::now();
                let ($tx, $rx) = {
                    let $cap = 1;
                    $make
                };
                #[allow(unused_mut)]
                let (mut ping_tx, mut ping_rx) = ($tx, $rx);
                let ($tx, $rx) = {
                    let $cap = 1;
                    $make
                };
                #[allow(unused_mut)]
                let (mut pong_tx, mut pong_rx) = ($tx, $rx);
                let echo = tokio::spawn(async move {
                    for _ in 0..n {
                        let $rx = &mut ping_rx;
                        let $v: u64 = $recv;
                        let $tx = &mut pong_tx;
                        $send;
                    }
                });
                for i in 0..n {
                    {
                        let $tx = &mut ping_tx;
                        let $v = i;
                        $send;
                    }
                    let $rx = &mut pong_rx;
                    let back: u64 = $recv;
                    assert_eq!(back, i);
                }
                echo.await.expect("the echo task");
                n as f64 / start.elapsed().as_secs_f64()
            })
        }

        fn $fan(rt: &tokio::runtime::Runtime, n: u64) -> f64 {
            rt.block_on(async {
                let start = Instant::now();
                let ($tx, $rx) = {
                    let $cap = 64;
                    $make
                };
                #[allow(unused_mut)]
                let (tx, mut rx) = ($tx, $rx);
                let per = n / 4;
                let producers: Vec<_> = (0..4)
                    .map(|p| {
                        #[allow(unused_mut)]
                        let mut tx = tx.clone();
                        tokio::spawn(async move {
                            for i in 0..per {
                                let $tx = &mut tx;
                                let $v = p * per + i;
                                $send;
                            }
                        })
                    })
                    .collect();
                drop(tx);
                let mut sum = 0u64;
                for _ in 0..per * 4 {
                    let $rx = &mut rx;
                    let v: u64 = $recv;
                    sum += v;
                }
                for p in producers {
                    p.await.expect("a producer task");
                }
                let m = per * 4;
                assert_eq!(sum, m * (m - 1) / 2, "every message once");
                m as f64 / start.elapsed().as_secs_f64()
            })
        }
    };
}

variant!(ours_ping, ours_fan, |cap| welltempered_channel::bounded::<u64>(cap),
    send(tx, v) => tx.send_async(v).await.expect("send"),
    recv(rx) => rx.recv_async().await.expect("recv"));
variant!(flume_ping, flume_fan, |cap| flume::bounded::<u64>(cap),
    send(tx, v) => tx.send_async(v).await.expect("send"),
    recv(rx) => rx.recv_async().await.expect("recv"));
variant!(kanal_ping, kanal_fan, |cap| kanal::bounded_async::<u64>(cap),
    send(tx, v) => tx.send(v).await.expect("send"),
    recv(rx) => rx.recv().await.expect("recv"));
variant!(tokio_ping, tokio_fan, |cap| tokio::sync::mpsc::channel::<u64>(cap),
    send(tx, v) => tx.send(v).await.expect("send"),
    recv(rx) => rx.recv().await.expect("recv"));

type Run = fn(&tokio::runtime::Runtime, u64) -> f64;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: u64| -> u64 {
        args.get(i).map_or(d, |a| {
            a.parse().unwrap_or_else(|e| {
                eprintln!("async_channels: argument {a:?}: {e}");
                std::process::exit(2)
            })
        })
    };
    let n = num(0, 200_000).max(4);
    let reps = num(1, 7) as usize;
    let workloads: [(&str, [(&str, Run); 4]); 2] = [
        (
            "ping-pong",
            [
                ("ours", ours_ping),
                ("flume", flume_ping),
                ("kanal", kanal_ping),
                ("tokio", tokio_ping),
            ],
        ),
        (
            "fan-in",
            [
                ("ours", ours_fan),
                ("flume", flume_fan),
                ("kanal", kanal_fan),
                ("tokio", tokio_fan),
            ],
        ),
    ];
    let host = welltempered_bench::host::Host::collect();
    println!("# async channels under tokio: {}", host.label());
    println!(
        "# {n} messages per run, {reps} paired repetitions, order rotating; ratios of ours to \
         each, medians [bootstrap 95%]"
    );
    println!("| workload | runtime | ours M/s | vs flume | vs kanal | vs tokio |");
    println!("|---|---|---|---|---|---|");
    for (workload, variants) in workloads {
        for rt_name in ["current-thread", "multi-thread"] {
            let rt = runtime(rt_name);
            let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
            for r in 0..reps {
                for k in 0..variants.len() {
                    let (name, run) = variants[(r + k) % variants.len()];
                    by.entry(name).or_default().push(run(&rt, n));
                }
            }
            let ratio = |other: &str| {
                let xs: Vec<f64> = by["ours"]
                    .iter()
                    .zip(&by[other])
                    .map(|(a, b)| a / b)
                    .collect();
                let e = estimate(&xs).expect("ratios");
                format!("{:.2} [{:.2}, {:.2}]", e.median, e.lo, e.hi)
            };
            println!(
                "| {workload} | {rt_name} | {:.2} | {} | {} | {} |",
                median(&by["ours"]).unwrap_or(f64::NAN) / 1e6,
                ratio("flume"),
                ratio("kanal"),
                ratio("tokio"),
            );
        }
    }
}
