//! `par_for!` in every form.

mod common;

use common::{config, scaled};
use std::sync::atomic::{AtomicU8, Ordering};
use welltempered_par::{Runtime, par_for};

#[test]
fn every_schedule_clause_visits_every_index_once() {
    let rt = Runtime::new(config(3));
    let n = scaled(500);
    let check = |counts: &[AtomicU8]| {
        assert!(counts.iter().all(|c| c.swap(0, Ordering::Relaxed) == 1));
    };
    let c: Vec<AtomicU8> = (0..n).map(|_| AtomicU8::new(0)).collect();
    let bump = |i: usize| {
        c[i].fetch_add(1, Ordering::Relaxed);
    };
    par_for!(on &rt, for i in 0..n => { bump(i) });
    check(&c);
    par_for!(on &rt, for i in 0..n; schedule(static) => { bump(i) });
    check(&c);
    par_for!(on &rt, for i in 0..n; schedule(static, 3) => { bump(i) });
    check(&c);
    par_for!(on &rt, for i in 0..n; schedule(dynamic) => { bump(i) });
    check(&c);
    par_for!(on rt, for i in 0..n; schedule(dynamic, 4) => { bump(i) });
    check(&c);
    par_for!(on &rt, for i in 0..n; schedule(guided) => { bump(i) });
    check(&c);
    par_for!(on &rt, for i in 0..n; schedule(guided, 8) => { bump(i) });
    check(&c);
}

#[test]
fn every_reduction_operator() {
    let rt = Runtime::new(config(3));
    let n = scaled(1000) as u64;
    let sum = par_for!(on &rt, for i in 0..n as usize; schedule(dynamic, 4), reduction(+: sum = 5u64) => {
        sum += i as u64;
    });
    assert_eq!(sum, 5 + n * (n - 1) / 2);
    let prod = par_for!(on &rt, for i in 1..16; reduction(*: p = 2u128) => { p *= i as u128; });
    assert_eq!(prod, 2 * (1..16u128).product::<u128>());
    let lo = par_for!(on &rt, for i in 0..100; reduction(min: m = 1000i64) => {
        m = m.min(50 - i as i64);
    });
    assert_eq!(lo, -49);
    let hi = par_for!(on &rt, for i in 0..100; schedule(guided, 2), reduction(max: m = f64::NEG_INFINITY) => {
        m = m.max((i as f64).sqrt());
    });
    assert_eq!(hi, 99f64.sqrt());
    // Clauses in either order; the init joins the result.
    let s = par_for!(on &rt, for i in 0..10; reduction(+: s = 100i32), schedule(static, 2) => { s += i as i32; });
    assert_eq!(s, 145);
    // An empty range gives the init.
    let e = par_for!(on &rt, for _i in 0..0; reduction(+: e = 7u8) => { e += 1; });
    assert_eq!(e, 7);
}

#[test]
fn global_form() {
    if cfg!(miri) {
        return; // the global team's threads outlive the test
    }
    let s = par_for!(for i in 0..10; reduction(+: s = 0usize) => { s += i; });
    assert_eq!(s, 45);
}
