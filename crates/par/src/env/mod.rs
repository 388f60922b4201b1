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
use crate::pin::{Pinning, ProcBind};
use crate::reduce::ReductionKind;
use crate::schedule::Schedule;
use crate::wait::WaitPolicy;
use std::cell::OnceCell;
use std::fmt;
use std::time::Duration;
use welltempered_lock::LockKind;

use places::{Level, Machine, parse_places};

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
    /// of its setting; the forms are listed in `env/mod.rs`).
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

mod places;
#[cfg(all(test, not(loom)))]
mod tests;
