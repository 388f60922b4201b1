//! Tests of the environment variables: every form each accepts, the errors, and OpenMP's
//! places on this machine and on described ones.

use super::places::*;
use super::*;

fn with(vars: &[(&str, &str)]) -> Result<Config, EnvError> {
    Config::from_lookup(|name| {
        vars.iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| (*v).to_owned())
    })
}

/// [`Config::from_lookup_lenient`] on `machine` rather than this one.
fn with_on(machine: &Machine, vars: &[(&str, &str)]) -> (Config, Vec<EnvError>) {
    Config::from_lookup_on(
        |name| {
            vars.iter()
                .find(|(n, _)| *n == name)
                .map(|(_, v)| (*v).to_owned())
        },
        || machine.clone(),
    )
}

/// 8 CPUs on 2 sockets of 2 cores of 2 hyperthreads, Linux's numbering (siblings 4
/// apart): cores {0,4} {1,5} {2,6} {3,7}, sockets and NUMA nodes {0,1,4,5} {2,3,6,7}, one
/// last-level cache per socket. The process may run on `allowed`.
fn smt_machine(allowed: &[usize]) -> Machine {
    let cores = |cpu: usize| Some(vec![cpu % 4, cpu % 4 + 4]);
    let sockets = |cpu: usize| {
        Some(if cpu % 4 < 2 {
            vec![0, 1, 4, 5]
        } else {
            vec![2, 3, 6, 7]
        })
    };
    Machine {
        allowed: allowed.to_vec(),
        cores: group(allowed, cores),
        sockets: group(allowed, sockets),
        ll_caches: group(allowed, sockets),
        numa_domains: group(allowed, sockets),
    }
}

/// The places `vars` bind a team to on `machine` (with no error), and the policy.
fn places_on(machine: &Machine, vars: &[(&str, &str)]) -> (Vec<Vec<usize>>, ProcBind) {
    let (c, errors) = with_on(machine, vars);
    assert_eq!(errors, [], "{vars:?}");
    match c.pinning {
        Pinning::Places { places, bind } => (places, bind),
        other => panic!("{vars:?} gave {other:?}"),
    }
}

/// The places an explicit `OMP_PLACES` list names, on a machine that allows CPUs 0..64.
fn list(value: &str) -> Vec<Vec<usize>> {
    let all: Vec<usize> = (0..64).collect();
    places_on(&smt_machine(&all), &[("OMP_PLACES", value)]).0
}

#[test]
fn unset_is_default() {
    assert_eq!(with(&[]), Ok(Config::default()));
    assert_eq!(
        with(&[("WELLTEMPERED_SCHEDULE", " ")]),
        Ok(Config::default())
    );
    assert_eq!(with(&[("OMP_PLACES", "")]), Ok(Config::default()));
    let d = Config::default();
    assert_eq!(d.nested_threads, Vec::<usize>::new());
    assert!(!d.dynamic);
    assert_eq!(d.max_active_levels, 1);
    assert_eq!(d.stack_size, None);
    // Nothing asks for places: the machine is not read.
    let (c, errors) = Config::from_lookup_on(
        |name| (name == "OMP_PROC_BIND").then(|| "false".to_owned()),
        || panic!("the machine was read"),
    );
    assert_eq!((c.pinning, errors), (Pinning::Off, vec![]));
}

#[test]
fn every_variable_parses() {
    let c = with(&[
        ("WELLTEMPERED_NUM_THREADS", "7"),
        ("WELLTEMPERED_SCHEDULE", "Dynamic, 4"),
        ("WELLTEMPERED_WAIT_POLICY", "spin-then-sleep,250"),
        ("WELLTEMPERED_PROC_BIND", "0,1, 3"),
        ("WELLTEMPERED_LOCK", "hemlock-park"),
        ("WELLTEMPERED_BARRIER", "dissemination"),
        ("WELLTEMPERED_REDUCTION", "linear"),
    ])
    .unwrap();
    assert_eq!(c.threads, 7);
    assert_eq!(c.schedule, Schedule::Dynamic { chunk: 4 });
    assert_eq!(
        c.wait,
        WaitPolicy::SpinThenSleep {
            window: Duration::from_micros(250)
        }
    );
    assert_eq!(c.pinning, Pinning::Cores(vec![0, 1, 3]));
    assert_eq!(c.lock, LockKind::HemlockPark);
    assert_eq!(c.barrier, BarrierKind::Dissemination);
    assert_eq!(c.reduction, ReductionKind::Linear);
}

#[test]
fn schedule_forms() {
    let s = |v: &str| with(&[("WELLTEMPERED_SCHEDULE", v)]).map(|c| c.schedule);
    assert_eq!(s("static"), Ok(Schedule::Static));
    assert_eq!(s("static,8"), Ok(Schedule::StaticChunked { chunk: 8 }));
    assert_eq!(s("dynamic"), Ok(Schedule::Dynamic { chunk: 1 }));
    assert_eq!(s("guided"), Ok(Schedule::Guided { min_chunk: 1 }));
    assert_eq!(s("guided,8"), Ok(Schedule::Guided { min_chunk: 8 }));
    let w = |v: &str| with(&[("WELLTEMPERED_WAIT_POLICY", v)]).map(|c| c.wait);
    assert_eq!(w("active"), Ok(WaitPolicy::Active));
    assert_eq!(w("PASSIVE"), Ok(WaitPolicy::Passive));
    assert_eq!(w("spin-then-sleep"), Ok(WaitPolicy::default()));
    let b = |v: &str| with(&[("WELLTEMPERED_PROC_BIND", v)]).map(|c| c.pinning);
    assert_eq!(b("true"), Ok(Pinning::On));
    assert_eq!(b("on"), Ok(Pinning::On));
    assert_eq!(b("false"), Ok(Pinning::Off));
    assert_eq!(b("off"), Ok(Pinning::Off));
    assert_eq!(b("2"), Ok(Pinning::Cores(vec![2])));
}

#[test]
fn every_variable_rejects_malformed_values() {
    let bad = [
        ("WELLTEMPERED_NUM_THREADS", "0", "positive integer"),
        ("WELLTEMPERED_NUM_THREADS", "-2", "positive integer"),
        ("WELLTEMPERED_NUM_THREADS", "four", "positive integer"),
        ("WELLTEMPERED_SCHEDULE", "auto", "dynamic,N"),
        ("WELLTEMPERED_SCHEDULE", "dynamic,0", "dynamic,N"),
        ("WELLTEMPERED_SCHEDULE", "dynamic,x", "guided,N"),
        ("WELLTEMPERED_SCHEDULE", "static,4,5", "static,N"),
        (
            "WELLTEMPERED_WAIT_POLICY",
            "sleepy",
            "spin-then-sleep,MICROS",
        ),
        ("WELLTEMPERED_WAIT_POLICY", "active,5", "passive"),
        ("WELLTEMPERED_WAIT_POLICY", "spin-then-sleep,-1", "active"),
        ("WELLTEMPERED_PROC_BIND", "maybe", "0,1,3"),
        ("WELLTEMPERED_PROC_BIND", "0,,1", "true"),
        ("WELLTEMPERED_LOCK", "no-such-lock", "hemlock-park"),
        ("WELLTEMPERED_BARRIER", "butterfly", "dissemination"),
        ("WELLTEMPERED_REDUCTION", "parallel", "linear, tree"),
        ("OMP_NUM_THREADS", "0", "comma list"),
        ("OMP_NUM_THREADS", "4,0", "comma list"),
        ("OMP_NUM_THREADS", "4,", "comma list"),
        ("OMP_NUM_THREADS", ",4", "comma list"),
        ("OMP_NUM_THREADS", "4 2", "comma list"),
        ("OMP_NUM_THREADS", "-1", "comma list"),
        ("OMP_SCHEDULE", "runtime", "nonmonotonic:dynamic,4"),
        ("OMP_SCHEDULE", "static,", "nonmonotonic:dynamic,4"),
        ("OMP_SCHEDULE", "dynamic,3x", "nonmonotonic:dynamic,4"),
        ("OMP_SCHEDULE", "dynamic,-1", "nonmonotonic:dynamic,4"),
        ("OMP_SCHEDULE", "guided,2147483648", "2147483647"),
        ("OMP_SCHEDULE", "monotonic dynamic", "monotonic:"),
        ("OMP_SCHEDULE", "monotonic:", "monotonic:"),
        ("OMP_SCHEDULE", "simd:static", "monotonic:"),
        ("OMP_SCHEDULE", "static,4,5", "auto"),
        ("OMP_WAIT_POLICY", "spin-then-sleep", "active, passive"),
        ("OMP_WAIT_POLICY", "true", "active, passive"),
        ("OMP_PROC_BIND", "maybe", "spread,close"),
        ("OMP_PROC_BIND", "true,close", "spread,close"),
        ("OMP_PROC_BIND", "spread,false", "spread,close"),
        ("OMP_PROC_BIND", "spread,", "spread,close"),
        ("OMP_PROC_BIND", "on", "spread,close"),
        ("OMP_PROC_BIND", "0,1", "spread,close"),
        ("OMP_PLACES", "{}", "{0:4:2}"),
        ("OMP_PLACES", "{0", "{0:4:2}"),
        ("OMP_PLACES", "{0}x", "{0:4:2}"),
        ("OMP_PLACES", "{0},,{1}", "{0:4:2}"),
        ("OMP_PLACES", "{0},", "{0:4:2}"),
        ("OMP_PLACES", "0,1", "{0:4:2}"),
        ("OMP_PLACES", "{0:0}", "{0:4:2}"),
        ("OMP_PLACES", "{0:2:-1}", "{0:4:2}"),
        ("OMP_PLACES", "{0,1}:2:-1", "{0:4:2}"),
        ("OMP_PLACES", "{0}:0", "{0:4:2}"),
        ("OMP_PLACES", "{0}:65537", "{0:4:2}"),
        ("OMP_PLACES", "{0}:300:300", "below 65536"),
        ("OMP_PLACES", "{65536}", "below 65536"),
        ("OMP_PLACES", "{!0}", "{0:4,!2}"),
        ("OMP_PLACES", "{0:4,!7}", "{0:4,!2}"),
        ("OMP_PLACES", "{0:4,!1:2}", "{0:4,!2}"),
        ("OMP_PLACES", "!{0}", "{0},{1},!{0}"),
        ("OMP_PLACES", "{0},!{1}", "{0},{1},!{0}"),
        ("OMP_PLACES", "{0},{1},!{0}:2", "{0},{1},!{0}"),
        ("OMP_PLACES", "{0},!{0}", "{0},{1},!{0}"),
        ("OMP_PLACES", "cores(0)", "(N)"),
        ("OMP_PLACES", "cores(x)", "(N)"),
        ("OMP_PLACES", "threads(2", "(N)"),
        ("OMP_PLACES", "threadsx", "ll_caches"),
        ("OMP_PLACES", "hyperthreads", "numa_domains"),
        ("OMP_DYNAMIC", "yes", "true, false"),
        ("OMP_DYNAMIC", "1", "true, false"),
        ("OMP_MAX_ACTIVE_LEVELS", "-1", "non-negative integer"),
        ("OMP_MAX_ACTIVE_LEVELS", "1x", "non-negative integer"),
        (
            "OMP_MAX_ACTIVE_LEVELS",
            "99999999999999999999999",
            "non-negative",
        ),
        ("OMP_NESTED", "yes", "true, false"),
        ("OMP_STACKSIZE", "4kb", "B, K, M or G"),
        ("OMP_STACKSIZE", "-1", "B, K, M or G"),
        ("OMP_STACKSIZE", "8x", "B, K, M or G"),
        ("OMP_STACKSIZE", "m", "B, K, M or G"),
        ("OMP_STACKSIZE", "1.5m", "B, K, M or G"),
        ("OMP_STACKSIZE", "99999999999999999999", "B, K, M or G"),
        ("OMP_STACKSIZE", "18014398509481984", "B, K, M or G"),
    ];
    for (var, value, form) in bad {
        let e = match with(&[(var, value)]) {
            Err(e) => e,
            Ok(c) => panic!("{var}={value} was accepted: {c:?}"),
        };
        assert_eq!(e.variable(), var);
        assert_eq!(e.value(), value);
        let msg = e.to_string();
        assert!(
            msg.contains(var) && msg.contains(value) && msg.contains(form),
            "{msg}"
        );
    }
}

#[test]
fn lenient_keeps_the_good_ones() {
    let (c, errors) = Config::from_lookup_lenient(|name| match name {
        "WELLTEMPERED_NUM_THREADS" => Some("3".into()),
        "WELLTEMPERED_BARRIER" => Some("nope".into()),
        _ => None,
    });
    assert_eq!(c.threads, 3);
    assert_eq!(c.barrier, BarrierKind::Central);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].variable(), "WELLTEMPERED_BARRIER");
}

#[test]
fn omp_num_threads_forms() {
    let t = |v: &str| with(&[("OMP_NUM_THREADS", v)]).map(|c| (c.threads, c.nested_threads));
    assert_eq!(t("4"), Ok((4, vec![])));
    assert_eq!(t("+3"), Ok((3, vec![])));
    assert_eq!(t("4,2"), Ok((4, vec![2])));
    assert_eq!(t(" 6 , 3 ,1 "), Ok((6, vec![3, 1])));
}

#[test]
fn omp_schedule_forms() {
    let s = |v: &str| with(&[("OMP_SCHEDULE", v)]).map(|c| c.schedule);
    assert_eq!(s("static"), Ok(Schedule::Static));
    assert_eq!(s("STATIC,0"), Ok(Schedule::Static));
    assert_eq!(s("static , 5"), Ok(Schedule::StaticChunked { chunk: 5 }));
    assert_eq!(s("dynamic"), Ok(Schedule::Dynamic { chunk: 1 }));
    assert_eq!(s("dynamic,0"), Ok(Schedule::Dynamic { chunk: 1 }));
    assert_eq!(s("Dynamic,7"), Ok(Schedule::Dynamic { chunk: 7 }));
    assert_eq!(
        s("dynamic,2147483647"),
        Ok(Schedule::Dynamic { chunk: 2147483647 })
    );
    assert_eq!(s("guided"), Ok(Schedule::Guided { min_chunk: 1 }));
    assert_eq!(s("guided,0"), Ok(Schedule::Guided { min_chunk: 1 }));
    assert_eq!(s("guided,3"), Ok(Schedule::Guided { min_chunk: 3 }));
    assert_eq!(s("auto"), Ok(Schedule::Static));
    assert_eq!(s("auto,5"), Ok(Schedule::Static));
    assert_eq!(s("monotonic:dynamic,4"), Ok(Schedule::Dynamic { chunk: 4 }));
    assert_eq!(
        s("NONMONOTONIC : guided , 3"),
        Ok(Schedule::Guided { min_chunk: 3 })
    );
    assert_eq!(
        s("monotonic:static,2"),
        Ok(Schedule::StaticChunked { chunk: 2 })
    );
    assert_eq!(s("nonmonotonic:auto"), Ok(Schedule::Static));
}

#[test]
fn omp_wait_dynamic_nested_forms() {
    let w = |v: &str| with(&[("OMP_WAIT_POLICY", v)]).map(|c| c.wait);
    assert_eq!(w("active"), Ok(WaitPolicy::Active));
    assert_eq!(w(" PASSIVE "), Ok(WaitPolicy::Passive));
    let d = |v: &str| with(&[("OMP_DYNAMIC", v)]).map(|c| c.dynamic);
    assert_eq!(d("true"), Ok(true));
    assert_eq!(d(" TRUE "), Ok(true));
    assert_eq!(d("false"), Ok(false));
}

#[test]
fn max_active_levels_follows_libgomp() {
    let m = |vars: &[(&str, &str)]| with(vars).map(|c| c.max_active_levels);
    assert_eq!(m(&[]), Ok(1));
    assert_eq!(m(&[("OMP_MAX_ACTIVE_LEVELS", "0")]), Ok(0));
    assert_eq!(m(&[("OMP_MAX_ACTIVE_LEVELS", "3")]), Ok(3));
    assert_eq!(m(&[("OMP_MAX_ACTIVE_LEVELS", "300")]), Ok(255));
    assert_eq!(m(&[("OMP_NESTED", "true")]), Ok(255));
    assert_eq!(m(&[("OMP_NESTED", "FALSE")]), Ok(1));
    // OMP_MAX_ACTIVE_LEVELS wins; OMP_NESTED is not even read then.
    assert_eq!(
        m(&[("OMP_MAX_ACTIVE_LEVELS", "3"), ("OMP_NESTED", "true")]),
        Ok(3)
    );
    assert_eq!(
        m(&[("OMP_MAX_ACTIVE_LEVELS", "2"), ("OMP_NESTED", "bogus")]),
        Ok(2)
    );
    // A list of levels means nesting, unless OMP_NESTED says otherwise.
    assert_eq!(m(&[("OMP_NUM_THREADS", "4,2")]), Ok(255));
    assert_eq!(m(&[("OMP_NUM_THREADS", "4")]), Ok(1));
    assert_eq!(
        m(&[("OMP_NUM_THREADS", "4,2"), ("OMP_NESTED", "false")]),
        Ok(1)
    );
    assert_eq!(m(&[("OMP_PROC_BIND", "spread,close")]), Ok(255));
    assert_eq!(m(&[("OMP_PROC_BIND", "spread")]), Ok(1));
    // A malformed OMP_MAX_ACTIVE_LEVELS leaves the decision to OMP_NESTED.
    let (c, errors) = Config::from_lookup_lenient(|name| match name {
        "OMP_MAX_ACTIVE_LEVELS" => Some("1x".into()),
        "OMP_NESTED" => Some("true".into()),
        _ => None,
    });
    assert_eq!(c.max_active_levels, 255);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].variable(), "OMP_MAX_ACTIVE_LEVELS");
}

#[test]
fn omp_stacksize_units() {
    let s = |v: &str| with(&[("OMP_STACKSIZE", v)]).map(|c| c.stack_size);
    assert_eq!(s("0"), Ok(Some(0)));
    assert_eq!(s("512"), Ok(Some(512 << 10)));
    assert_eq!(s("+5"), Ok(Some(5 << 10)));
    assert_eq!(s("16B"), Ok(Some(16)));
    assert_eq!(s("16 b"), Ok(Some(16)));
    assert_eq!(s("4k"), Ok(Some(4096)));
    assert_eq!(s("4K"), Ok(Some(4096)));
    assert_eq!(s("1 m"), Ok(Some(1 << 20)));
    assert_eq!(s(" 10 M "), Ok(Some(10 << 20)));
    assert_eq!(s("2G"), Ok(Some(2 << 30)));
    assert_eq!(s("17179869183k"), Ok(Some(17179869183 << 10)));
}

#[test]
fn welltempered_variables_win() {
    let c = with(&[
        ("WELLTEMPERED_NUM_THREADS", "3"),
        ("OMP_NUM_THREADS", "5,2"),
        ("WELLTEMPERED_SCHEDULE", "guided,2"),
        ("OMP_SCHEDULE", "dynamic,9"),
        ("WELLTEMPERED_WAIT_POLICY", "passive"),
        ("OMP_WAIT_POLICY", "active"),
        ("WELLTEMPERED_PROC_BIND", "0"),
        ("OMP_PROC_BIND", "spread"),
        ("OMP_PLACES", "cores"),
    ])
    .unwrap();
    assert_eq!(c.threads, 3);
    assert_eq!(c.nested_threads, Vec::<usize>::new());
    assert_eq!(c.schedule, Schedule::Guided { min_chunk: 2 });
    assert_eq!(c.wait, WaitPolicy::Passive);
    assert_eq!(c.pinning, Pinning::Cores(vec![0]));
    assert_eq!(c.max_active_levels, 1, "OMP_NUM_THREADS was not read");

    // The OMP_* variable of a setting that WELLTEMPERED_* sets is not read, malformed or
    // not, even when the WELLTEMPERED_* one is malformed (its setting keeps the default).
    let (c, errors) = Config::from_lookup_lenient(|name| match name {
        "WELLTEMPERED_NUM_THREADS" => Some("none".into()),
        "OMP_NUM_THREADS" => Some("5".into()),
        "WELLTEMPERED_SCHEDULE" => Some("static".into()),
        "OMP_SCHEDULE" => Some("bogus".into()),
        "WELLTEMPERED_PROC_BIND" => Some("false".into()),
        "OMP_PROC_BIND" => Some("bogus".into()),
        "OMP_PLACES" => Some("{".into()),
        _ => None,
    });
    assert_eq!(c.threads, Config::default().threads);
    assert_eq!(c.schedule, Schedule::Static);
    assert_eq!(c.pinning, Pinning::Off);
    let names: Vec<&str> = errors.iter().map(EnvError::variable).collect();
    assert_eq!(names, ["WELLTEMPERED_NUM_THREADS"]);

    // A blank WELLTEMPERED_* counts as unset.
    let c = with(&[("WELLTEMPERED_NUM_THREADS", "  "), ("OMP_NUM_THREADS", "5")]).unwrap();
    assert_eq!(c.threads, 5);
}

#[test]
fn omp_proc_bind_and_places() {
    let m = smt_machine(&(0..8).collect::<Vec<_>>());
    let threads: Vec<Vec<usize>> = [0, 4, 1, 5, 2, 6, 3, 7].map(|c| vec![c]).into();
    let cores = vec![vec![0, 4], vec![1, 5], vec![2, 6], vec![3, 7]];
    let sockets = vec![vec![0, 1, 4, 5], vec![2, 3, 6, 7]];

    // OMP_PROC_BIND alone: the places are `threads`, hyperthread siblings side by side.
    for (value, bind) in [
        ("true", ProcBind::Close),
        ("TRUE", ProcBind::Close),
        ("close", ProcBind::Close),
        ("spread", ProcBind::Spread),
        ("master", ProcBind::Primary),
        ("primary", ProcBind::Primary),
        ("spread, close", ProcBind::Spread),
        ("primary,spread,close", ProcBind::Primary),
    ] {
        assert_eq!(
            places_on(&m, &[("OMP_PROC_BIND", value)]),
            (threads.clone(), bind),
            "{value}"
        );
    }
    // OMP_PLACES alone binds as `true`.
    assert_eq!(
        places_on(&m, &[("OMP_PLACES", "cores")]),
        (cores.clone(), ProcBind::Close)
    );
    let p = |value: &str| places_on(&m, &[("OMP_PLACES", value)]).0;
    assert_eq!(p("threads"), threads);
    assert_eq!(p("Threads(3)"), threads[..3]);
    assert_eq!(p("cores ( 2 )"), cores[..2]);
    assert_eq!(p("cores(100)"), cores);
    assert_eq!(p("sockets"), sockets);
    assert_eq!(p("sockets(1)"), sockets[..1]);
    assert_eq!(p("ll_caches"), sockets);
    assert_eq!(p("numa_domains"), sockets);
    assert_eq!(
        places_on(
            &m,
            &[("OMP_PROC_BIND", "spread"), ("OMP_PLACES", "{0},{1},{2}")]
        ),
        (vec![vec![0], vec![1], vec![2]], ProcBind::Spread)
    );
    // `false` turns binding off, whatever the places.
    let (c, errors) = with_on(&m, &[("OMP_PROC_BIND", "false"), ("OMP_PLACES", "cores")]);
    assert_eq!((c.pinning, errors), (Pinning::Off, vec![]));
    // ... but their syntax is still checked.
    let (c, errors) = with_on(&m, &[("OMP_PROC_BIND", "false"), ("OMP_PLACES", "{0")]);
    assert_eq!(c.pinning, Pinning::Off);
    assert_eq!(errors[0].variable(), "OMP_PLACES");
    // A malformed OMP_PROC_BIND counts as unset: the places bind as `true`.
    let (c, errors) = with_on(&m, &[("OMP_PROC_BIND", "tight"), ("OMP_PLACES", "sockets")]);
    assert_eq!(
        c.pinning,
        Pinning::Places {
            places: sockets.clone(),
            bind: ProcBind::Close
        }
    );
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].variable(), "OMP_PROC_BIND");
    // A malformed OMP_PLACES counts as unset: no binding, or `threads` under a policy.
    let (c, errors) = with_on(&m, &[("OMP_PLACES", "{0:0}")]);
    assert_eq!((c.pinning, errors.len()), (Pinning::Off, 1));
    let (c, errors) = with_on(&m, &[("OMP_PROC_BIND", "spread"), ("OMP_PLACES", "x")]);
    assert_eq!(
        c.pinning,
        Pinning::Places {
            places: threads.clone(),
            bind: ProcBind::Spread
        }
    );
    assert_eq!(errors[0].variable(), "OMP_PLACES");
}

#[test]
fn explicit_place_lists() {
    assert_eq!(list("{0,1},{2,3}"), [vec![0, 1], vec![2, 3]]);
    assert_eq!(list(" { 3 , 1 , 1 } "), [vec![1, 3]]);
    assert_eq!(list("{0:4}"), [vec![0, 1, 2, 3]]);
    assert_eq!(list("{0:4:2}"), [vec![0, 2, 4, 6]]);
    assert_eq!(list("{6:3:-2}"), [vec![2, 4, 6]]);
    assert_eq!(list("{0:4:0}"), [vec![0]]);
    assert_eq!(list("{0:2,8:2}"), [vec![0, 1, 8, 9]]);
    assert_eq!(list("{0}:4"), [vec![0], vec![1], vec![2], vec![3]]);
    assert_eq!(list("{0}:4:2"), [vec![0], vec![2], vec![4], vec![6]]);
    assert_eq!(list("{0,1}:3:2"), [vec![0, 1], vec![2, 3], vec![4, 5]]);
    assert_eq!(list("{0:2}:2:8,{4}"), [vec![0, 1], vec![8, 9], vec![4]]);
    assert_eq!(list("{3}:3:-1"), [vec![3], vec![2], vec![1]]);
    assert_eq!(list("{0,1}:2"), [vec![0, 1], vec![1, 2]]);
    assert_eq!(list("{0:2}:1:5"), [vec![0, 1]]);
    // Exclusions: a CPU of a place, and an earlier place equal to the one given.
    assert_eq!(list("{0:4,!2}"), [vec![0, 1, 3]]);
    assert_eq!(list("{!1,0:4}"), [vec![0, 2, 3]]);
    assert_eq!(list("{0},{1},{2},!{1}"), [vec![0], vec![2]]);
    assert_eq!(list("{0}:4,!{2}"), [vec![0], vec![1], vec![3]]);
    assert_eq!(list("{1},{0},{1},!{1}"), [vec![0], vec![1]]);
    // A place emptied by its exclusions is dropped with the others that hold no CPU.
    assert_eq!(list("{!0,0},{5}"), [vec![5]]);
}

#[test]
fn places_are_cut_to_the_allowed_cpus() {
    // The process may run on CPUs 0, 1, 4, 5 only (socket 0).
    let m = smt_machine(&[0, 1, 4, 5]);
    let p = |value: &str| places_on(&m, &[("OMP_PLACES", value)]).0;
    assert_eq!(p("threads"), [vec![0], vec![4], vec![1], vec![5]]);
    assert_eq!(p("cores"), [vec![0, 4], vec![1, 5]]);
    assert_eq!(p("sockets"), [vec![0, 1, 4, 5]]);
    assert_eq!(p("{0:8}"), [vec![0, 1, 4, 5]]);
    assert_eq!(p("{0}:8"), [vec![0], vec![1], vec![4], vec![5]]);
    assert_eq!(p("{2,3},{4,9}"), [vec![4]]);
    // No place holds an allowed CPU: malformed.
    let (c, errors) = with_on(&m, &[("OMP_PLACES", "{2},{3,7}")]);
    assert_eq!(c.pinning, Pinning::Off);
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].variable(), "OMP_PLACES");
    assert_eq!(errors[0].value(), "{2},{3,7}");
    assert!(
        errors[0].to_string().contains("may run on"),
        "{}",
        errors[0]
    );
}

#[test]
fn groups_and_cpu_lists() {
    assert_eq!(
        parse_cpu_list("0-3,8,10-11\n"),
        Some(vec![0, 1, 2, 3, 8, 10, 11])
    );
    assert_eq!(parse_cpu_list(" \n"), Some(vec![]));
    assert_eq!(parse_cpu_list("3-1"), None);
    assert_eq!(parse_cpu_list("a"), None);
    // Unknown groups are single CPUs; a group is cut to the allowed, ungrouped CPUs.
    assert_eq!(
        group(&[0, 1, 2, 3], |_| None),
        [vec![0], vec![1], vec![2], vec![3]]
    );
    assert_eq!(
        group(&[0, 1, 2, 3], |cpu| Some(if cpu == 0 {
            vec![0, 2, 9]
        } else {
            vec![1, 2, 3]
        })),
        [vec![0, 2], vec![1, 3]]
    );
}

#[test]
fn this_machine_is_read_consistently() {
    let m = Machine::read();
    assert!(!m.allowed.is_empty());
    assert!(m.allowed.is_sorted());
    for level in [
        Level::Threads,
        Level::Cores,
        Level::Sockets,
        Level::LlCaches,
        Level::NumaDomains,
    ] {
        let places = m.places(level);
        let mut cpus: Vec<usize> = places.iter().flatten().copied().collect();
        cpus.sort_unstable();
        assert_eq!(cpus, m.allowed, "{level:?}: every allowed CPU exactly once");
        assert!(places.iter().all(|p| !p.is_empty() && p.is_sorted()));
    }
    // Through the environment: `true` binds thread i to the i-th allowed CPU's place.
    let c = with(&[("OMP_PROC_BIND", "true")]).unwrap();
    let Pinning::Places { places, bind } = c.pinning else {
        panic!("{:?}", c.pinning)
    };
    assert_eq!(bind, ProcBind::Close);
    assert_eq!(places.len(), m.allowed.len());
}
