//! Tests for the never channel flavor, ported to `welltempered_channel::never`.
//!
//! Source: crossbeam-channel 0.5.16 (git commit 7de845aa, after the 0.5.16 release),
//! `tests/never.rs` (<https://github.com/crossbeam-rs/crossbeam>,
//! `crossbeam-channel/tests/never.rs`).
//! Copyright (c) The Crossbeam Project Developers.
//! Licensed under the Apache License, Version 2.0 or the MIT license, at your option
//! (crossbeam-channel is MIT OR Apache-2.0; so is this project).
//!
//! Under Miri these suites run with `-Zmiri-disable-weak-memory-emulation` (see `.ci/run`):
//! like crossbeam's, many of their tests order threads by sleeps alone, which create no
//! happens-before, and Miri's weak-memory emulation may then let a load return a value older
//! than the sleep (which the memory model allows, and hardware does not do for a second). Data
//! races and undefined behaviour are still checked; the crate's own tests (`user_code.rs`,
//! `stress.rs`, the unit tests) run with the emulation on.
//!
//! Changes from the original:
//!
//! - Imports: `welltempered_channel` instead of `crossbeam_channel`.
//! - Timing: `recv_timeout` keeps its lower bounds (a timeout must not end early: at least
//!   100 ms, then 200 ms, after the start) and drops its two upper bounds
//!   (`now - start <= ms(150)` and `now - start <= ms(250)`), which only a fast, quiet machine
//!   satisfies; so its `#[cfg_attr(gha_macos_runner, ignore = ...)]` for a slow CI runner
//!   goes too. `tick_n` orders nothing by time beyond its 100 ms ticks and 500 ms default, and
//!   is kept as it is.
//! - `#![cfg(not(loom))]`, as the crate's other non-loom tests.
#![cfg(not(loom))]

use std::{
    thread,
    time::{Duration, Instant},
};

use welltempered_channel::{never, select, tick, unbounded};

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[test]
fn smoke() {
    select! {
        recv(never::<i32>()) -> _ => panic!(),
        default => {}
    }
}

#[test]
fn optional() {
    let (s, r) = unbounded::<i32>();
    s.send(1).unwrap();
    s.send(2).unwrap();

    let mut r = Some(&r);
    select! {
        recv(r.unwrap_or(&never())) -> _ => {}
        default => panic!(),
    }

    r = None;
    select! {
        recv(r.unwrap_or(&never())) -> _ => panic!(),
        default => {}
    }
}

#[test]
fn tick_n() {
    let mut r = tick(ms(100));
    let mut step = 0;

    loop {
        select! {
            recv(r) -> _ => step += 1,
            default(ms(500)) => break,
        }

        if step == 10 {
            r = never();
        }
    }

    assert_eq!(step, 10);
}

#[test]
fn capacity() {
    let r = never::<i32>();
    assert_eq!(r.capacity(), Some(0));
}

#[test]
fn len_empty_full() {
    let r = never::<i32>();
    assert_eq!(r.len(), 0);
    assert!(r.is_empty());
    assert!(r.is_full());
}

#[test]
fn try_recv() {
    let r = never::<i32>();
    assert!(r.try_recv().is_err());

    thread::sleep(ms(100));
    assert!(r.try_recv().is_err());
}

#[test]
fn recv_timeout() {
    let start = Instant::now();
    let r = never::<i32>();

    assert!(r.recv_timeout(ms(100)).is_err());
    let now = Instant::now();
    assert!(now - start >= ms(100));
    // welltempered: upper bound `now - start <= ms(150)` dropped (timing, see the header).

    assert!(r.recv_timeout(ms(100)).is_err());
    let now = Instant::now();
    assert!(now - start >= ms(200));
    // welltempered: upper bound `now - start <= ms(250)` dropped (timing, see the header).
}
