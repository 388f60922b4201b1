//! A quick look at construct overheads (not the study: see `welltempered par` in the bench
//! crate): `cargo run --release -p welltempered-par --example overhead [THREADS]`.

use std::hint::black_box;
use std::time::Instant;
use welltempered_par::{BarrierKind, Config, Runtime, Schedule};

fn per_op(label: &str, reps: u64, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    println!(
        "{label:>28}: {:8.1} ns",
        t.elapsed().as_nanos() as f64 / reps as f64
    );
}

fn main() {
    let threads = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(2);
    for barrier in BarrierKind::ALL {
        let rt = Runtime::new(Config {
            threads,
            barrier,
            ..Config::default()
        });
        println!("{threads} threads, {barrier:?} barrier");
        let reps = 100_000;
        per_op("parallel (empty region)", reps, || {
            for _ in 0..reps {
                rt.parallel(|ctx| {
                    black_box(ctx);
                });
            }
        });
        per_op("barrier", reps, || {
            rt.parallel(|ctx| {
                for _ in 0..reps {
                    ctx.barrier();
                }
            })
        });
        per_op("reduce (ctx, u64)", reps / 10, || {
            rt.parallel(|ctx| {
                for _ in 0..reps / 10 {
                    black_box(ctx.reduce(1u64, |a, b| a + b));
                }
            })
        });
        per_op("dynamic chunk of 1", reps * 10, || {
            rt.parallel_for_schedule(
                0..(reps * 10) as usize,
                Schedule::Dynamic { chunk: 1 },
                |i| {
                    black_box(i);
                },
            )
        });
        per_op("critical", reps, || {
            rt.parallel(|ctx| {
                for _ in 0..reps / threads as u64 {
                    ctx.critical(|| black_box(()));
                }
            })
        });
    }
}
