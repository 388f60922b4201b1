//! The team's configuration and its environment variables: ours, `WELLTEMPERED_*`, and OpenMP's
//! `OMP_*` (OpenMP 5.2 §21) with the meaning libgomp (GCC 12) gives them, so that a program set
//! up for libgomp, or the libgomp-compatible library built on this crate, runs as configured.
//!
//! | variable | accepted forms | sets |
//! |---|---|---|
//! | `WELLTEMPERED_NUM_THREADS` | a positive integer | `threads` |
//! | `OMP_NUM_THREADS` | a positive integer, or a comma list such as `4,2` (one per nesting level) | `threads`, `nested_threads` |
//! | `WELLTEMPERED_SCHEDULE` | `static`, `static,N`, `dynamic`, `dynamic,N`, `guided`, `guided,N` (N > 0) | `schedule` |
//! | `OMP_SCHEDULE` | `static`, `dynamic`, `guided`, `auto`, each with an optional `,N` (0 ≤ N < 2³¹) and an optional `monotonic:` or `nonmonotonic:` prefix | `schedule` |
//! | `WELLTEMPERED_WAIT_POLICY` | `active`, `passive`, `spin-then-sleep`, `spin-then-sleep,MICROS` | `wait` |
//! | `OMP_WAIT_POLICY` | `active`, `passive` | `wait` |
//! | `WELLTEMPERED_PROC_BIND` | `false`/`off`, `true`/`on`, or a core list such as `0,1,3` | `pinning` |
//! | `OMP_PROC_BIND` | `true`, `false`, or a comma list of `close`, `spread`, `primary`, `master` | `pinning` |
//! | `OMP_PLACES` | `threads`, `cores`, `sockets`, `ll_caches`, `numa_domains`, optionally with `(N)`; or places such as `{0,1},{2,3}`, `{0:4:2}`, `{0}:4:2` (below) | `pinning` |
//! | `WELLTEMPERED_LOCK` | a `LockKind` name (`two-phase`, the default, `mutex`, `hemlock`, `mcs-park`, ...) | `lock` |
//! | `WELLTEMPERED_BARRIER` | `central`, `tree`, `dissemination` | `barrier` |
//! | `WELLTEMPERED_REDUCTION` | `linear`, `tree` | `reduction` |
//! | `OMP_DYNAMIC` | `true`, `false` | `dynamic` |
//! | `OMP_MAX_ACTIVE_LEVELS` | a non-negative integer | `max_active_levels` |
//! | `OMP_NESTED` | `true`, `false` (deprecated in OpenMP 5.0) | `max_active_levels` |
//! | `OMP_STACKSIZE` | a size with an optional unit `B`, `K`, `M` or `G` (`K` when none), such as `512` or `4M` | `stack_size` |
//!
//! Names and values are matched without case and surrounding whitespace; an unset (or empty)
//! variable keeps the default. A malformed value is an [`EnvError`] naming the variable, the
//! value and the accepted forms. Parsing goes through a lookup function
//! ([`Config::from_lookup`]) so that tests need not touch the process environment.
//!
//! Precedence: a `WELLTEMPERED_*` variable wins over the `OMP_*` ones of the same setting. When
//! it is set (to something other than blanks) they are not read at all, even if it is malformed
//! (the setting then keeps its default): `WELLTEMPERED_NUM_THREADS` over `OMP_NUM_THREADS`,
//! `WELLTEMPERED_SCHEDULE` over `OMP_SCHEDULE`, `WELLTEMPERED_WAIT_POLICY` over
//! `OMP_WAIT_POLICY`, `WELLTEMPERED_PROC_BIND` over both `OMP_PROC_BIND` and `OMP_PLACES`.
//!
//! What the `OMP_*` variables mean here (libgomp's meaning, where it can be had):
//!
//! - `OMP_NUM_THREADS=4,2`: a team of 4; the sizes of the nested levels are kept in
//!   [`Config::nested_threads`], but a region inside a region runs with a team of one.
//! - `OMP_SCHEDULE`: `auto` is [`Schedule::Static`] (libgomp treats `auto` as static too, and
//!   ignores its chunk). As in libgomp, a chunk of 0 means the default: `static,0` is `static`,
//!   `dynamic,0` and `guided,0` take a chunk of 1. The `monotonic:` and `nonmonotonic:`
//!   modifiers are accepted and not kept: our dynamic and guided loops hand each thread its
//!   chunks in increasing order of iterations (the shared counter only grows), which is what
//!   `monotonic` asks, and `nonmonotonic` allows any order, so both always hold.
//! - `OMP_PROC_BIND` and `OMP_PLACES` make a [`Pinning::Places`]: the place list and the
//!   [`ProcBind`] policy (`true` is `close`; of a list such as `spread,close`, for the nesting
//!   levels, the first is used). `false` is [`Pinning::Off`]. As in libgomp, `OMP_PLACES`
//!   without `OMP_PROC_BIND` binds (as `true`), and `OMP_PROC_BIND` without `OMP_PLACES` uses
//!   the places `threads`. The master (thread 0) runs on the first place, and which place each
//!   thread gets is decided per team size ([`ProcBind::place_of`]).
//! - The abstract places are read from sysfs: `cores` groups the CPUs by
//!   `/sys/devices/system/cpu/cpuN/topology/core_cpus_list` (or `thread_siblings_list`),
//!   `sockets` by `package_cpus_list` (or `core_siblings_list`), `ll_caches` by the
//!   `shared_cpu_list` of the highest-level cache, `numa_domains` by
//!   `/sys/devices/system/node/nodeN/cpulist`; a CPU whose group cannot be read is a place of
//!   its own. `threads` is every CPU alone, core after core (libgomp's order: hyperthread
//!   siblings are neighbours). `(N)` keeps the first `N` places.
//! - In an explicit list, `{0:4}` is the 4 CPUs from 0, `{0:4:2}` 4 CPUs from 0 two apart,
//!   `{0,1}:4:2` the place `{0,1}` and 3 copies each shifted 2 CPUs further (`{2,3}`, `{4,5}`,
//!   `{6,7}`; strides may be negative); `!N` inside a place removes a CPU the place holds, and
//!   `!{...}` removes an earlier place equal to it. At most 65,536 places, CPU numbers below
//!   65,536.
//! - Every place is cut to the CPUs this process may run on (the calling thread's affinity
//!   when the configuration is made) and the places left empty are dropped, as libgomp does;
//!   `OMP_PLACES` is malformed if none is left. A malformed `OMP_PLACES` counts as unset.
//! - `OMP_DYNAMIC` is kept in [`Config::dynamic`]; our team size never shrinks.
//! - `OMP_MAX_ACTIVE_LEVELS` is kept in [`Config::max_active_levels`] (at most 255, libgomp's
//!   supported levels). When it is unset or malformed, `OMP_NESTED=true` means 255 and
//!   `false` 1; when neither is given, it is 255 if `OMP_NUM_THREADS` or `OMP_PROC_BIND` is a
//!   list of more than one level, 1 otherwise (libgomp's rules). Whatever it says, a region
//!   inside a region runs with a team of one.
//! - `OMP_STACKSIZE` sets the workers' stack size ([`Config::stack_size`]).
//!
//! Where this differs from libgomp: a negative chunk in `OMP_SCHEDULE` is malformed (libgomp
//! takes it modulo 2³²), a CPU whose topology cannot be read is a place of its own (libgomp
//! leaves it out of the abstract places), and CPU numbers in `OMP_PLACES` stay below 65,536
//! (libgomp's bound is the size of the kernel's CPU mask).
//!
//! libgomp's other variables (`OMP_THREAD_LIMIT`, `OMP_CANCELLATION`, `OMP_DISPLAY_ENV`,
//! `GOMP_CPU_AFFINITY`, `GOMP_STACKSIZE`, `GOMP_SPINCOUNT`, ...) are not read here.

use crate::barrier::BarrierKind;
use crate::pin::{self, Pinning, ProcBind};
use crate::reduce::ReductionKind;
use crate::schedule::Schedule;
use crate::wait::WaitPolicy;
use std::cell::OnceCell;
use std::collections::BTreeSet;
use std::fmt;
use std::time::Duration;
use welltempered_lock::LockKind;

/// A team's configuration: every primitive the runtime uses can be swapped here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// The team size, master included (0 counts as 1).
    pub threads: usize,
    /// The schedule of `parallel_for`, `for_range` and `reduce`.
    pub schedule: Schedule,
    /// The barrier of `Context::barrier` and of every implicit barrier.
    pub barrier: BarrierKind,
    /// How team reductions combine.
    pub reduction: ReductionKind,
    /// The lock of `Context::critical` (made by [`Config::critical_lock`]).
    pub lock: LockKind,
    /// Where the team's threads run.
    pub pinning: Pinning,
    /// How threads wait, in barriers and idle between regions.
    pub wait: WaitPolicy,
    /// The team sizes `OMP_NUM_THREADS` gives the nested levels (`4,2,1`: `[2, 1]`): noted;
    /// nested regions run with a team of one.
    pub nested_threads: Vec<usize>,
    /// Whether the runtime may give a region fewer threads than asked (`OMP_DYNAMIC`): noted;
    /// our team size never shrinks.
    pub dynamic: bool,
    /// How many nested regions may be active (`OMP_MAX_ACTIVE_LEVELS`, or `OMP_NESTED`), at
    /// most 255 as in libgomp: noted; nested regions run with a team of one whatever it says.
    pub max_active_levels: usize,
    /// The stack size of the worker threads in bytes (`OMP_STACKSIZE`); `None` leaves the
    /// standard library's default (2 MiB unless `RUST_MIN_STACK` says otherwise), and a size
    /// below the system's minimum is rounded up to it. The master runs on its caller's stack.
    pub stack_size: Option<usize>,
}

impl Default for Config {
    /// `available_parallelism` threads, `Static`, `Central`, `Tree`, the two-phase lock, no
    /// pinning, spin-then-sleep with [`crate::DEFAULT_SPIN_WINDOW`]; no nested team sizes, not
    /// dynamic, one active level, the default stack size.
    fn default() -> Self {
        Config {
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            schedule: Schedule::Static,
            barrier: BarrierKind::Central,
            reduction: ReductionKind::Tree,
            lock: LockKind::TwoPhase,
            pinning: Pinning::Off,
            wait: WaitPolicy::default(),
            nested_threads: Vec::new(),
            dynamic: false,
            max_active_levels: 1,
            stack_size: None,
        }
    }
}

/// The variables, with their accepted forms, in the order they are read (the first malformed
/// one is the error of [`Config::from_lookup`]).
const VARIABLES: [(&str, &str); 16] = [
    ("WELLTEMPERED_NUM_THREADS", "a positive integer"),
    (
        "OMP_NUM_THREADS",
        "a positive integer, or a comma list of them (one per nesting level) such as 4,2",
    ),
    (
        "WELLTEMPERED_SCHEDULE",
        "static, static,N, dynamic, dynamic,N, guided, guided,N (N a positive integer)",
    ),
    (
        "OMP_SCHEDULE",
        "static, dynamic, guided or auto, each with an optional ,N (N from 0 to 2147483647) and \
         an optional monotonic: or nonmonotonic: prefix, such as nonmonotonic:dynamic,4",
    ),
    (
        "WELLTEMPERED_WAIT_POLICY",
        "active, passive, spin-then-sleep, spin-then-sleep,MICROS",
    ),
    ("OMP_WAIT_POLICY", "active, passive"),
    (
        "WELLTEMPERED_PROC_BIND",
        "false, off, true, on, or a list of CPU numbers such as 0,1,3",
    ),
    (
        "OMP_PROC_BIND",
        "true, false, or a comma list of close, spread, primary and master such as spread,close",
    ),
    (
        "OMP_PLACES",
        "threads, cores, sockets, ll_caches or numa_domains, each with an optional (N) (N > 0), \
         or a comma list of places such as {0,1},{2,3}, where {0:4} is 4 CPUs from 0, {0:4:2} \
         4 CPUs from 0 two apart, {0}:4:2 the place {0} and 3 copies each 2 CPUs further, !N \
         in a place removes CPU N ({0:4,!2}) and !{..} an earlier place ({0},{1},!{0}); CPU \
         numbers below 65536, and at least one place must hold a CPU this process may run on",
    ),
    ("WELLTEMPERED_LOCK", ""),
    ("WELLTEMPERED_BARRIER", "central, tree, dissemination"),
    ("WELLTEMPERED_REDUCTION", "linear, tree"),
    ("OMP_DYNAMIC", "true, false"),
    ("OMP_MAX_ACTIVE_LEVELS", "a non-negative integer"),
    ("OMP_NESTED", "true, false"),
    (
        "OMP_STACKSIZE",
        "a non-negative integer with an optional unit B, K, M or G (K when none), such as 512 \
         or 4M",
    ),
];

/// The active levels libgomp supports: the ceiling of `OMP_MAX_ACTIVE_LEVELS`, and what
/// `OMP_NESTED=true` means.
const SUPPORTED_ACTIVE_LEVELS: usize = 255;

/// CPU numbers in `OMP_PLACES` (and read from sysfs) stay below this.
const MAX_CPUS: usize = 1 << 16;

/// The most places (and the longest interval) an `OMP_PLACES` list may have (libgomp's bound).
const MAX_PLACES: usize = 1 << 16;

impl Config {
    /// The default configuration overridden by the `WELLTEMPERED_*` and `OMP_*` variables
    /// (`OMP_*` with libgomp's meaning; a `WELLTEMPERED_*` variable wins over the `OMP_*` ones
    /// of its setting; the forms are listed in `env.rs`).
    pub fn from_env() -> Result<Config, EnvError> {
        Config::from_lookup(|name| std::env::var(name).ok())
    }

    /// The default configuration overridden by the variables `lookup` returns (a name to its
    /// value, `None` when unset); the first malformed one is the error.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Result<Config, EnvError> {
        let (config, mut errors) = Config::from_lookup_lenient(lookup);
        if errors.is_empty() {
            Ok(config)
        } else {
            Err(errors.swap_remove(0))
        }
    }

    /// Like [`Config::from_lookup`], but a malformed variable keeps its default and is
    /// returned among the errors.
    pub fn from_lookup_lenient(lookup: impl Fn(&str) -> Option<String>) -> (Config, Vec<EnvError>) {
        Config::from_lookup_on(lookup, Machine::read)
    }

    /// [`Config::from_lookup_lenient`] with the machine `OMP_PLACES` describes given by
    /// `read_machine`, which is called (once) only when threads are to be bound to places.
    fn from_lookup_on(
        lookup: impl Fn(&str) -> Option<String>,
        read_machine: impl Fn() -> Machine,
    ) -> (Config, Vec<EnvError>) {
        let mut c = Config::default();
        let mut r = Reader {
            lookup,
            errors: Vec::new(),
        };

        if r.is_set("WELLTEMPERED_NUM_THREADS") {
            if let Some(n) = r.read("WELLTEMPERED_NUM_THREADS", parse_positive) {
                c.threads = n;
            }
        } else if let Some(list) = r.read("OMP_NUM_THREADS", parse_positive_list) {
            c.threads = list[0];
            c.nested_threads = list[1..].to_vec();
        }

        if r.is_set("WELLTEMPERED_SCHEDULE") {
            if let Some(s) = r.read("WELLTEMPERED_SCHEDULE", parse_schedule) {
                c.schedule = s;
            }
        } else if let Some(s) = r.read("OMP_SCHEDULE", parse_omp_schedule) {
            c.schedule = s;
        }

        if r.is_set("WELLTEMPERED_WAIT_POLICY") {
            if let Some(w) = r.read("WELLTEMPERED_WAIT_POLICY", parse_wait) {
                c.wait = w;
            }
        } else if let Some(w) = r.read("OMP_WAIT_POLICY", parse_omp_wait) {
            c.wait = w;
        }

        // The levels `OMP_PROC_BIND` lists, for `max_active_levels`.
        let mut bind_levels = 0;
        if r.is_set("WELLTEMPERED_PROC_BIND") {
            if let Some(p) = r.read("WELLTEMPERED_PROC_BIND", parse_bind) {
                c.pinning = p;
            }
        } else {
            let bind = r.read("OMP_PROC_BIND", parse_omp_bind);
            let spec = r.read("OMP_PLACES", parse_places);
            let machine_read = OnceCell::new();
            let machine = || machine_read.get_or_init(&read_machine);
            if let Some((_, levels)) = bind {
                bind_levels = levels;
            }
            // `false` ignores the places (their syntax is checked all the same, as libgomp does).
            let places = match (bind, spec) {
                (Some((None, _)), _) | (_, None) => None,
                (_, Some(spec)) => {
                    let places = spec.resolve(machine());
                    if places.is_none() {
                        r.reject("OMP_PLACES");
                    }
                    places
                }
            };
            let policy = match bind {
                Some((policy, _)) => policy,
                // libgomp: places without a policy bind as `OMP_PROC_BIND=true`.
                None => places.is_some().then_some(ProcBind::Close),
            };
            if let Some(bind) = policy {
                let places = places.unwrap_or_else(|| machine().places(Level::Threads));
                c.pinning = Pinning::Places { places, bind };
            }
        }

        if let Some(k) = r.read("WELLTEMPERED_LOCK", |v| v.parse::<LockKind>().ok()) {
            c.lock = k;
        }
        if let Some(k) = r.read("WELLTEMPERED_BARRIER", |v| {
            BarrierKind::ALL.into_iter().find(|k| k.name() == v)
        }) {
            c.barrier = k;
        }
        if let Some(k) = r.read("WELLTEMPERED_REDUCTION", |v| {
            ReductionKind::ALL.into_iter().find(|k| k.name() == v)
        }) {
            c.reduction = k;
        }

        if let Some(d) = r.read("OMP_DYNAMIC", parse_bool) {
            c.dynamic = d;
        }
        // libgomp reads OMP_NESTED only when OMP_MAX_ACTIVE_LEVELS gives no value.
        c.max_active_levels = match r.read("OMP_MAX_ACTIVE_LEVELS", |v| v.parse::<usize>().ok()) {
            Some(n) => n.min(SUPPORTED_ACTIVE_LEVELS),
            None => match r.read("OMP_NESTED", parse_bool) {
                Some(true) => SUPPORTED_ACTIVE_LEVELS,
                Some(false) => 1,
                None if !c.nested_threads.is_empty() || bind_levels > 1 => SUPPORTED_ACTIVE_LEVELS,
                None => 1,
            },
        };
        if let Some(bytes) = r.read("OMP_STACKSIZE", parse_stacksize) {
            c.stack_size = Some(bytes);
        }
        (c, r.errors)
    }
}

/// Reads the variables for [`Config::from_lookup_on`] and collects the errors.
struct Reader<L> {
    lookup: L,
    errors: Vec<EnvError>,
}

impl<L: Fn(&str) -> Option<String>> Reader<L> {
    /// Whether `name` is set to something other than blanks.
    fn is_set(&self, name: &str) -> bool {
        (self.lookup)(name).is_some_and(|v| !v.trim().is_empty())
    }

    /// `name`'s value parsed by `parse`, which gets it trimmed and in lower case: `None` when
    /// unset or blank, and when malformed (then recorded as an error).
    fn read<T>(&mut self, name: &str, parse: impl FnOnce(&str) -> Option<T>) -> Option<T> {
        let v = (self.lookup)(name)?.trim().to_ascii_lowercase();
        if v.is_empty() {
            return None;
        }
        let parsed = parse(&v);
        if parsed.is_none() {
            self.reject(name);
        }
        parsed
    }

    /// Records `name`'s value as malformed.
    fn reject(&mut self, name: &str) {
        debug_assert!(
            VARIABLES.iter().any(|(n, _)| *n == name),
            "{name} is not listed"
        );
        self.errors.push(EnvError {
            variable: name.to_owned(),
            value: (self.lookup)(name).unwrap_or_default(),
        });
    }
}

fn parse_positive(s: &str) -> Option<usize> {
    s.trim().parse::<usize>().ok().filter(|&n| n > 0)
}

/// `OMP_NUM_THREADS`: one or more positive integers separated by commas.
fn parse_positive_list(s: &str) -> Option<Vec<usize>> {
    s.split(',').map(parse_positive).collect()
}

fn parse_schedule(s: &str) -> Option<Schedule> {
    let (kind, n) = match s.split_once(',') {
        Some((k, n)) => (k.trim(), Some(parse_positive(n)?)),
        None => (s, None),
    };
    Some(match (kind, n) {
        ("static", None) => Schedule::Static,
        ("static", Some(chunk)) => Schedule::StaticChunked { chunk },
        ("dynamic", n) => Schedule::Dynamic {
            chunk: n.unwrap_or(1),
        },
        ("guided", n) => Schedule::Guided {
            min_chunk: n.unwrap_or(1),
        },
        _ => return None,
    })
}

/// `OMP_SCHEDULE`, libgomp's syntax: `[monotonic:|nonmonotonic:]kind[,chunk]`, the chunk an
/// `int` (0 is the default chunk). The modifier is dropped: see the module documentation.
fn parse_omp_schedule(s: &str) -> Option<Schedule> {
    let s = match s.split_once(':') {
        Some((modifier, rest)) if matches!(modifier.trim(), "monotonic" | "nonmonotonic") => rest,
        Some(_) => return None,
        None => s,
    };
    let (kind, chunk) = match s.split_once(',') {
        Some((k, n)) => {
            let n = n
                .trim()
                .parse::<u32>()
                .ok()
                .filter(|&n| n <= i32::MAX as u32)?;
            (k.trim(), Some(n as usize))
        }
        None => (s.trim(), None),
    };
    Some(match (kind, chunk) {
        ("static", None | Some(0)) | ("auto", _) => Schedule::Static,
        ("static", Some(chunk)) => Schedule::StaticChunked { chunk },
        ("dynamic", n) => Schedule::Dynamic {
            chunk: n.unwrap_or(1).max(1),
        },
        ("guided", n) => Schedule::Guided {
            min_chunk: n.unwrap_or(1).max(1),
        },
        _ => return None,
    })
}

fn parse_wait(s: &str) -> Option<WaitPolicy> {
    let (kind, micros) = match s.split_once(',') {
        Some((k, n)) => (k.trim(), Some(n.trim().parse::<u64>().ok()?)),
        None => (s, None),
    };
    Some(match (kind, micros) {
        ("active", None) => WaitPolicy::Active,
        ("passive", None) => WaitPolicy::Passive,
        ("spin-then-sleep", None) => WaitPolicy::default(),
        ("spin-then-sleep", Some(us)) => WaitPolicy::SpinThenSleep {
            window: Duration::from_micros(us),
        },
        _ => return None,
    })
}

fn parse_omp_wait(s: &str) -> Option<WaitPolicy> {
    match s {
        "active" => Some(WaitPolicy::Active),
        "passive" => Some(WaitPolicy::Passive),
        _ => None,
    }
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

fn parse_bind(s: &str) -> Option<Pinning> {
    match s {
        "false" | "off" => Some(Pinning::Off),
        "true" | "on" => Some(Pinning::On),
        _ => s
            .split(',')
            .map(|c| c.trim().parse::<usize>().ok())
            .collect::<Option<Vec<_>>>()
            .map(Pinning::Cores),
    }
}

/// `OMP_PROC_BIND`: the outermost level's policy (`None` for `false`) and the number of levels
/// listed. As in libgomp, `true` and `false` stand alone, never in a list.
fn parse_omp_bind(s: &str) -> Option<(Option<ProcBind>, usize)> {
    let kind = |w: &str| match w.trim() {
        "close" => Some(ProcBind::Close),
        "spread" => Some(ProcBind::Spread),
        "primary" | "master" => Some(ProcBind::Primary),
        _ => None,
    };
    match s {
        "false" => Some((None, 1)),
        "true" => Some((Some(ProcBind::Close), 1)),
        _ => {
            let kinds = s.split(',').map(kind).collect::<Option<Vec<_>>>()?;
            Some((Some(kinds[0]), kinds.len()))
        }
    }
}

/// `OMP_STACKSIZE`, libgomp's syntax: a number and an optional unit `b`, `k`, `m` or `g`
/// (kibibytes when none), blanks allowed between them; in bytes.
fn parse_stacksize(s: &str) -> Option<usize> {
    let (number, shift) = match s.as_bytes().last() {
        Some(b'b') => (&s[..s.len() - 1], 0),
        Some(b'k') => (&s[..s.len() - 1], 10),
        Some(b'm') => (&s[..s.len() - 1], 20),
        Some(b'g') => (&s[..s.len() - 1], 30),
        _ => (s, 10),
    };
    number.trim().parse::<usize>().ok()?.checked_mul(1 << shift)
}

/// The levels of the machine an abstract `OMP_PLACES` name describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Level {
    Threads,
    Cores,
    Sockets,
    LlCaches,
    NumaDomains,
}

/// A well-formed `OMP_PLACES`, before it meets the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
enum PlacesSpec {
    /// An abstract name and the number of places to keep (`usize::MAX` for all).
    Abstract(Level, usize),
    /// An explicit list of places, each a set of CPU numbers (ascending).
    Explicit(Vec<Vec<usize>>),
}

impl PlacesSpec {
    /// The places on `machine`: cut to the CPUs it allows, the empty ones dropped; `None` if
    /// none is left.
    fn resolve(&self, machine: &Machine) -> Option<Vec<Vec<usize>>> {
        let places: Vec<Vec<usize>> = match self {
            PlacesSpec::Abstract(level, count) => {
                machine.places(*level).into_iter().take(*count).collect()
            }
            PlacesSpec::Explicit(list) => list
                .iter()
                .map(|place| {
                    place
                        .iter()
                        .copied()
                        .filter(|cpu| machine.allowed.binary_search(cpu).is_ok())
                        .collect::<Vec<_>>()
                })
                .filter(|place| !place.is_empty())
                .collect(),
        };
        (!places.is_empty()).then_some(places)
    }
}

/// `OMP_PLACES`, libgomp's syntax (see the module documentation).
fn parse_places(s: &str) -> Option<PlacesSpec> {
    const NAMES: [(&str, Level); 5] = [
        ("threads", Level::Threads),
        ("cores", Level::Cores),
        ("sockets", Level::Sockets),
        ("ll_caches", Level::LlCaches),
        ("numa_domains", Level::NumaDomains),
    ];
    for (name, level) in NAMES {
        if let Some(rest) = s.strip_prefix(name) {
            let rest = rest.trim();
            let count = if rest.is_empty() {
                usize::MAX
            } else {
                parse_positive(rest.strip_prefix('(')?.strip_suffix(')')?)?
            };
            return Some(PlacesSpec::Abstract(level, count));
        }
    }
    parse_place_list(s).map(PlacesSpec::Explicit)
}

/// An explicit `OMP_PLACES` list: places `{...}`, each with an optional `:len[:stride]`
/// (copies), or `!{...}` (the removal of an earlier equal place), separated by commas.
fn parse_place_list(s: &str) -> Option<Vec<Vec<usize>>> {
    let mut cur = Cursor { rest: s };
    let mut places: Vec<BTreeSet<usize>> = Vec::new();
    loop {
        let excluded = cur.eat('!');
        let place = cur.place()?;
        let (len, stride) = cur.interval()?;
        if excluded {
            if len != 1 {
                return None;
            }
            let i = places.iter().position(|p| *p == place)?;
            places.remove(i);
        } else {
            for k in 0..len {
                let by = stride.checked_mul(isize::try_from(k).ok()?)?;
                let copy = place
                    .iter()
                    .map(|&cpu| shift(cpu, by))
                    .collect::<Option<_>>()?;
                places.push(copy);
            }
            if places.len() > MAX_PLACES {
                return None;
            }
        }
        if cur.at_end() {
            break;
        }
        if !cur.eat(',') {
            return None;
        }
    }
    (!places.is_empty()).then(|| {
        places
            .into_iter()
            .map(|p| p.into_iter().collect())
            .collect()
    })
}

/// `cpu + by`, if that is a CPU number.
fn shift(cpu: usize, by: isize) -> Option<usize> {
    cpu.checked_add_signed(by).filter(|&c| c < MAX_CPUS)
}

/// A cursor over an `OMP_PLACES` list; blanks are allowed between tokens.
struct Cursor<'a> {
    rest: &'a str,
}

impl Cursor<'_> {
    /// Consumes `c` if it comes next.
    fn eat(&mut self, c: char) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn at_end(&mut self) -> bool {
        self.rest.trim_start().is_empty()
    }

    /// An unsigned number.
    fn number(&mut self) -> Option<usize> {
        self.rest = self.rest.trim_start();
        let end = self
            .rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest.len());
        let n = self.rest[..end].parse().ok()?;
        self.rest = &self.rest[end..];
        Some(n)
    }

    /// A number with an optional sign (a stride).
    fn signed(&mut self) -> Option<isize> {
        let negative = self.eat('-');
        if !negative {
            self.eat('+');
        }
        let n = isize::try_from(self.number()?).ok()?;
        Some(if negative { -n } else { n })
    }

    /// An optional `:len[:stride]`: `(1, 1)` when absent; `len` from 1 to [`MAX_PLACES`].
    fn interval(&mut self) -> Option<(usize, isize)> {
        if !self.eat(':') {
            return Some((1, 1));
        }
        let len = self.number().filter(|l| (1..=MAX_PLACES).contains(l))?;
        let stride = if self.eat(':') { self.signed()? } else { 1 };
        Some((len, stride))
    }

    /// One place, `{...}`: CPU numbers and intervals `n:len[:stride]` separated by commas,
    /// then the removal of the CPUs marked `!n` (each must be in the place).
    fn place(&mut self) -> Option<BTreeSet<usize>> {
        if !self.eat('{') {
            return None;
        }
        let mut cpus = BTreeSet::new();
        let mut removed = Vec::new();
        loop {
            let negated = self.eat('!');
            let start = self.number()?;
            let (len, stride) = self.interval()?;
            if negated {
                if len != 1 {
                    return None;
                }
                removed.push(start);
            } else {
                for k in 0..len {
                    cpus.insert(shift(start, stride.checked_mul(isize::try_from(k).ok()?)?)?);
                }
            }
            if self.eat('}') {
                break;
            }
            if !self.eat(',') {
                return None;
            }
        }
        for cpu in removed {
            if !cpus.remove(&cpu) {
                return None;
            }
        }
        Some(cpus)
    }
}

/// The machine `OMP_PLACES`'s abstract names describe: the CPUs this process may run on,
/// grouped by core, socket, last-level cache and NUMA node. Each group is ascending, the
/// groups come in the order of their lowest CPU, and every allowed CPU is in exactly one group
/// of each level.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct Machine {
    /// The CPUs this process may run on, ascending.
    allowed: Vec<usize>,
    cores: Vec<Vec<usize>>,
    sockets: Vec<Vec<usize>>,
    ll_caches: Vec<Vec<usize>>,
    numa_domains: Vec<Vec<usize>>,
}

impl Machine {
    /// This machine: the calling thread's affinity (every online CPU where it cannot be read)
    /// and the topology in sysfs, a CPU whose group cannot be read making a group of its own.
    fn read() -> Machine {
        let allowed = pin::current_affinity()
            .ok()
            .filter(|a| !a.is_empty())
            .unwrap_or_else(|| (0..pin::online_cpus()).collect());
        let topology = |cpu: usize, files: [&str; 2]| {
            files.iter().find_map(|f| {
                sys_cpu_list(&format!("/sys/devices/system/cpu/cpu{cpu}/topology/{f}"))
            })
        };
        let nodes: Vec<Vec<usize>> = sys_cpu_list("/sys/devices/system/node/online")
            .unwrap_or_default()
            .into_iter()
            .filter_map(|n| sys_cpu_list(&format!("/sys/devices/system/node/node{n}/cpulist")))
            .collect();
        Machine {
            cores: group(&allowed, |cpu| {
                topology(cpu, ["core_cpus_list", "thread_siblings_list"])
            }),
            sockets: group(&allowed, |cpu| {
                topology(cpu, ["package_cpus_list", "core_siblings_list"])
            }),
            ll_caches: group(&allowed, last_level_cache),
            numa_domains: group(&allowed, |cpu| {
                nodes.iter().find(|n| n.contains(&cpu)).cloned()
            }),
            allowed,
        }
    }

    /// The places of an abstract name, all of them.
    fn places(&self, level: Level) -> Vec<Vec<usize>> {
        match level {
            Level::Threads => self.cores.iter().flatten().map(|&cpu| vec![cpu]).collect(),
            Level::Cores => self.cores.clone(),
            Level::Sockets => self.sockets.clone(),
            Level::LlCaches => self.ll_caches.clone(),
            Level::NumaDomains => self.numa_domains.clone(),
        }
    }
}

/// `allowed` (ascending) cut into groups: each CPU not yet grouped starts a group of the
/// allowed, not yet grouped CPUs that `group_of` puts with it (itself alone when `group_of`
/// knows nothing).
fn group(allowed: &[usize], group_of: impl Fn(usize) -> Option<Vec<usize>>) -> Vec<Vec<usize>> {
    let mut grouped = BTreeSet::new();
    let mut groups = Vec::new();
    for &cpu in allowed {
        if grouped.contains(&cpu) {
            continue;
        }
        let mut g: BTreeSet<usize> = group_of(cpu)
            .unwrap_or_default()
            .into_iter()
            .filter(|c| allowed.binary_search(c).is_ok() && !grouped.contains(c))
            .collect();
        g.insert(cpu);
        grouped.extend(g.iter().copied());
        groups.push(g.into_iter().collect());
    }
    groups
}

/// The CPUs sharing `cpu`'s last-level cache: the `shared_cpu_list` of its cache of the
/// highest level (the last such index, as libgomp picks).
fn last_level_cache(cpu: usize) -> Option<Vec<usize>> {
    let dir = format!("/sys/devices/system/cpu/cpu{cpu}/cache");
    let mut last: Option<(u32, usize)> = None;
    for index in 0..128 {
        let Some(text) = sys_read(&format!("{dir}/index{index}/level")) else {
            break;
        };
        if let Ok(level) = text.trim().parse::<u32>()
            && last.is_none_or(|(l, _)| level >= l)
        {
            last = Some((level, index));
        }
    }
    sys_cpu_list(&format!("{dir}/index{}/shared_cpu_list", last?.1))
}

/// A sysfs file's text (nothing under Miri, which has no file system by default).
fn sys_read(path: &str) -> Option<String> {
    if cfg!(miri) {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// A sysfs CPU list file (`0-3,8-11`) as CPU numbers.
fn sys_cpu_list(path: &str) -> Option<Vec<usize>> {
    parse_cpu_list(&sys_read(path)?)
}

/// The kernel's list format, `0-3,8,10-11`, as ascending CPU numbers; blank is empty.
fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in s.trim().split(',').filter(|p| !p.trim().is_empty()) {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let a: usize = part.trim().parse().ok()?;
                (a, a)
            }
        };
        if last < first || last >= MAX_CPUS {
            return None;
        }
        cpus.extend(first..=last);
    }
    Some(cpus)
}

/// A malformed `WELLTEMPERED_*` or `OMP_*` variable: its name, its value and the forms it accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnvError {
    variable: String,
    value: String,
}

impl EnvError {
    /// The variable's name.
    pub fn variable(&self) -> &str {
        &self.variable
    }

    /// The malformed value, as it was set.
    pub fn value(&self) -> &str {
        &self.value
    }

    /// The forms the variable accepts.
    pub fn accepted(&self) -> String {
        if self.variable == "WELLTEMPERED_LOCK" {
            let names: Vec<&str> = LockKind::ALL.iter().map(|k| k.name()).collect();
            return names.join(", ");
        }
        VARIABLES
            .iter()
            .find(|(n, _)| *n == self.variable)
            .map_or(String::new(), |(_, a)| (*a).to_owned())
    }
}

impl fmt::Display for EnvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}={:?} is malformed; accepted: {}",
            self.variable,
            self.value,
            self.accepted()
        )
    }
}

impl std::error::Error for EnvError {}

#[cfg(all(test, not(loom)))]
mod tests {
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
}
