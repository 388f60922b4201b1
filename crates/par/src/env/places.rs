//! `OMP_PLACES`: the abstract names (`threads`, `cores`, `sockets`, `ll_caches`,
//! `numa_domains`, with an optional count) and explicit place lists (intervals, strides,
//! exclusions), resolved against the machine's topology as `/sys` describes it.

use super::{MAX_CPUS, MAX_PLACES, parse_positive};
use crate::pin;
use std::collections::BTreeSet;

/// The levels of the machine an abstract `OMP_PLACES` name describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Level {
    Threads,
    Cores,
    Sockets,
    LlCaches,
    NumaDomains,
}

/// A well-formed `OMP_PLACES`, before it meets the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum PlacesSpec {
    /// An abstract name and the number of places to keep (`usize::MAX` for all).
    Abstract(Level, usize),
    /// An explicit list of places, each a set of CPU numbers (ascending).
    Explicit(Vec<Vec<usize>>),
}

impl PlacesSpec {
    /// The places on `machine`: cut to the CPUs it allows, the empty ones dropped; `None` if
    /// none is left.
    pub(super) fn resolve(&self, machine: &Machine) -> Option<Vec<Vec<usize>>> {
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
pub(super) fn parse_places(s: &str) -> Option<PlacesSpec> {
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
pub(super) fn parse_place_list(s: &str) -> Option<Vec<Vec<usize>>> {
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
pub(super) fn shift(cpu: usize, by: isize) -> Option<usize> {
    cpu.checked_add_signed(by).filter(|&c| c < MAX_CPUS)
}

/// A cursor over an `OMP_PLACES` list; blanks are allowed between tokens.
pub(super) struct Cursor<'a> {
    rest: &'a str,
}

impl Cursor<'_> {
    /// Consumes `c` if it comes next.
    pub(super) fn eat(&mut self, c: char) -> bool {
        self.rest = self.rest.trim_start();
        match self.rest.strip_prefix(c) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    pub(super) fn at_end(&mut self) -> bool {
        self.rest.trim_start().is_empty()
    }

    /// An unsigned number.
    pub(super) fn number(&mut self) -> Option<usize> {
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
    pub(super) fn signed(&mut self) -> Option<isize> {
        let negative = self.eat('-');
        if !negative {
            self.eat('+');
        }
        let n = isize::try_from(self.number()?).ok()?;
        Some(if negative { -n } else { n })
    }

    /// An optional `:len[:stride]`: `(1, 1)` when absent; `len` from 1 to [`MAX_PLACES`].
    pub(super) fn interval(&mut self) -> Option<(usize, isize)> {
        if !self.eat(':') {
            return Some((1, 1));
        }
        let len = self.number().filter(|l| (1..=MAX_PLACES).contains(l))?;
        let stride = if self.eat(':') { self.signed()? } else { 1 };
        Some((len, stride))
    }

    /// One place, `{...}`: CPU numbers and intervals `n:len[:stride]` separated by commas,
    /// then the removal of the CPUs marked `!n` (each must be in the place).
    pub(super) fn place(&mut self) -> Option<BTreeSet<usize>> {
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
pub(super) struct Machine {
    /// The CPUs this process may run on, ascending.
    pub(super) allowed: Vec<usize>,
    pub(super) cores: Vec<Vec<usize>>,
    pub(super) sockets: Vec<Vec<usize>>,
    pub(super) ll_caches: Vec<Vec<usize>>,
    pub(super) numa_domains: Vec<Vec<usize>>,
}

impl Machine {
    /// This machine: the calling thread's affinity (every online CPU where it cannot be read)
    /// and the topology in sysfs, a CPU whose group cannot be read making a group of its own.
    pub(super) fn read() -> Machine {
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
    pub(super) fn places(&self, level: Level) -> Vec<Vec<usize>> {
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
pub(super) fn group(
    allowed: &[usize],
    group_of: impl Fn(usize) -> Option<Vec<usize>>,
) -> Vec<Vec<usize>> {
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
pub(super) fn last_level_cache(cpu: usize) -> Option<Vec<usize>> {
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
pub(super) fn sys_read(path: &str) -> Option<String> {
    if cfg!(miri) {
        return None;
    }
    std::fs::read_to_string(path).ok()
}

/// A sysfs CPU list file (`0-3,8-11`) as CPU numbers.
pub(super) fn sys_cpu_list(path: &str) -> Option<Vec<usize>> {
    parse_cpu_list(&sys_read(path)?)
}

/// The kernel's list format, `0-3,8,10-11`, as ascending CPU numbers; blank is empty.
pub(super) fn parse_cpu_list(s: &str) -> Option<Vec<usize>> {
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
