//! Thread pinning with `sched_setaffinity(2)`, and the reset of threads that must not be pinned
//! (omp0's pinning: worker `i` on core `i mod nproc`, `pin_threads = true`).
//!
//! omp0's sticky-affinity bug: an affinity mask is per thread and inherited by the threads it
//! creates, so after one pinned run the master stayed on core 0 and every later "unpinned"
//! team, spawned by it, inherited core 0 and ran serialised. Here every worker sets its mask at
//! start-up whatever the configuration: its core when it is to be pinned, otherwise every CPU
//! (the kernel clips that to the CPUs the process's cpuset allows). The master (the caller's
//! thread, team thread 0) is pinned only when the configuration names CPUs for thread 0, and
//! then only for the duration of each region: its previous mask is restored afterwards.
//!
//! A thread is pinned to one CPU ([`Pinning::On`], [`Pinning::Cores`]) or bound to the set of
//! CPUs of an OpenMP place ([`Pinning::Places`], from `OMP_PLACES` and `OMP_PROC_BIND`), where
//! it may move between the CPUs of its place. Which place a thread gets depends on the team's
//! size ([`ProcBind::place_of`], libgomp's assignment), so a configuration gives the right
//! binding to a team of any size.
//!
//! A `taskset` restriction of the whole process is not kept by the reset (a worker's mask
//! becomes every CPU of the cpuset); use [`Pinning::Cores`] or [`Pinning::Places`] to confine a
//! team.
//!
//! Pinning needs Linux's affinity calls. Under Miri (which cannot run them) it does nothing
//! and reports success; on other systems (macOS has no way to bind a thread to a CPU, and
//! Windows' is not wired in) [`set_current_affinity`] and [`current_affinity`] report
//! [`io::ErrorKind::Unsupported`], and a team asked to pin runs unpinned after a one-time note
//! on standard error.

use std::io;

/// Where the team's threads run (`WELLTEMPERED_PROC_BIND`, or `OMP_PROC_BIND` with
/// `OMP_PLACES`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Pinning {
    /// No thread is pinned; every worker's affinity is reset to all CPUs.
    #[default]
    Off,
    /// Thread `i` (the master is 0) is pinned to CPU `i % cores`, `cores` the number of
    /// online CPUs.
    On,
    /// Thread `i` is pinned to CPU `cores[i % cores.len()]`; an empty list means [`Pinning::Off`].
    Cores(Vec<usize>),
    /// OpenMP places and the policy that assigns a team's threads to them: thread `i` of a team
    /// of `n` is bound to the CPUs of `places[bind.place_of(i, n, places.len())]` (with `Close`
    /// and `n <= places.len()`, simply `places[i]`). An empty list means [`Pinning::Off`]; a
    /// thread whose place is empty is not pinned.
    Places {
        /// The places, each a set of CPU numbers (ascending, without repeats), in the order of
        /// the place list: the master's place is the first.
        places: Vec<Vec<usize>>,
        /// How the threads of a team are assigned to the places.
        bind: ProcBind,
    },
}

/// How the threads of a team are assigned to places (OpenMP 5.2 §10.1.3, the `proc_bind`
/// policies, with the choices libgomp makes where the specification leaves them open).
///
/// The master (thread 0) runs on the first place: libgomp binds the initial thread to the first
/// place of the list. With `T` threads and `P` places:
///
/// - `Close` (and `OMP_PROC_BIND=true`): thread `i` on place `i` when `T <= P`. When `T > P`,
///   `S = T / P` consecutive threads share each place (threads `0..S` the first, and so on),
///   and the `T % P` threads left over go one per place from the first (libgomp's order: with
///   `T = 13`, `P = 5`: `0 0 1 1 2 2 3 3 4 4 0 1 2`).
/// - `Spread`: when `T <= P` the places are cut into `T` consecutive partitions of `P / T`
///   places, the first `P % T` of them one place longer, and thread `i` runs on the first place
///   of partition `i` (`T = 3`, `P = 7`: places `0 3 5`). When `T > P`, as `Close`.
/// - `Primary` (`master`): every thread on the master's place.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ProcBind {
    /// Threads on consecutive places from the master's (`close`, `true`).
    #[default]
    Close,
    /// Threads spread evenly over the places (`spread`).
    Spread,
    /// Every thread on the master's place (`primary`, formerly `master`).
    Primary,
}

impl ProcBind {
    /// The place (an index into the place list) of thread `tid` of a team of `threads` threads
    /// over `places` places; 0 when there are no places. A `tid` beyond the team is placed as
    /// in a team of `tid + 1` threads.
    pub fn place_of(self, tid: usize, threads: usize, places: usize) -> usize {
        let (t, p) = (threads.max(tid + 1), places);
        if p == 0 {
            return 0;
        }
        match self {
            ProcBind::Primary => 0,
            _ if t > p => {
                let s = t / p;
                if tid < s * p { tid / s } else { tid - s * p }
            }
            ProcBind::Close => tid,
            ProcBind::Spread => {
                let (s, rest) = (p / t, p % t);
                tid * s + tid.min(rest)
            }
        }
    }
}

impl Pinning {
    /// The one CPU thread `tid` is pinned to under [`Pinning::On`] and [`Pinning::Cores`];
    /// `None` when it is not pinned, and under [`Pinning::Places`], where a thread is bound to
    /// a set of CPUs that depends on the team's size (see [`Pinning::cpus_of`]).
    pub fn cpu_of(&self, tid: usize) -> Option<usize> {
        match self {
            Pinning::Off | Pinning::Places { .. } => None,
            Pinning::On => Some(tid % online_cpus()),
            Pinning::Cores(c) if c.is_empty() => None,
            Pinning::Cores(c) => Some(c[tid % c.len()]),
        }
    }

    /// The CPUs thread `tid` of a team of `threads` threads is confined to, if it is pinned:
    /// one CPU under [`Pinning::On`] and [`Pinning::Cores`], its place's under
    /// [`Pinning::Places`].
    pub fn cpus_of(&self, tid: usize, threads: usize) -> Option<Vec<usize>> {
        match self {
            Pinning::Places { places, bind } => {
                let place = places.get(bind.place_of(tid, threads, places.len()))?;
                (!place.is_empty()).then(|| place.clone())
            }
            _ => self.cpu_of(tid).map(|cpu| vec![cpu]),
        }
    }
}

/// The number of online CPUs (not the calling thread's mask, which may be pinned; elsewhere
/// than on Unix, the parallelism the standard library reports).
pub fn online_cpus() -> usize {
    #[cfg(all(unix, not(miri)))]
    {
        // SAFETY: sysconf reads a system constant; no memory is passed.
        let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
        usize::try_from(n).ok().filter(|&n| n > 0).unwrap_or(1)
    }
    #[cfg(all(not(unix), not(miri)))]
    {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
    #[cfg(miri)]
    {
        1
    }
}

/// The CPUs the calling thread may run on (`sched_getaffinity(0)`), ascending.
pub fn current_affinity() -> io::Result<Vec<usize>> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let set = get_mask()?;
        Ok((0..libc::CPU_SETSIZE as usize)
            // SAFETY: `cpu < CPU_SETSIZE`, the size of `set`.
            .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
            .collect())
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Confines the calling thread to `cpus` (`sched_setaffinity(0)`).
pub fn set_current_affinity(cpus: &[usize]) -> io::Result<()> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: cpu_set_t is plain bits; all zero is the empty set.
        let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        for &cpu in cpus {
            if cpu >= libc::CPU_SETSIZE as usize {
                return Err(io::Error::from(io::ErrorKind::InvalidInput));
            }
            // SAFETY: `cpu < CPU_SETSIZE`, checked above.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        set_mask(&set)
    }
    #[cfg(miri)]
    {
        let _ = cpus;
        Ok(())
    }
    #[cfg(not(any(target_os = "linux", miri)))]
    {
        let _ = cpus;
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

/// Lets the calling thread run on every CPU the process's cpuset allows.
pub fn reset_current_affinity() -> io::Result<()> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: cpu_set_t is plain bits; all zero is the empty set.
        let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
        for cpu in 0..libc::CPU_SETSIZE as usize {
            // SAFETY: `cpu < CPU_SETSIZE`.
            unsafe { libc::CPU_SET(cpu, &mut set) };
        }
        set_mask(&set)
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    {
        Ok(())
    }
}

/// A saved mask of the calling thread, to restore after a region.
pub(crate) struct SavedMask {
    #[cfg(all(target_os = "linux", not(miri)))]
    set: libc::cpu_set_t,
}

/// Confines the calling thread to `cpus`, returning its previous mask.
pub(crate) fn pin_saving(cpus: &[usize]) -> io::Result<SavedMask> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let saved = SavedMask { set: get_mask()? };
        set_current_affinity(cpus)?;
        Ok(saved)
    }
    #[cfg(miri)]
    {
        let _ = cpus;
        Ok(SavedMask {})
    }
    #[cfg(not(any(target_os = "linux", miri)))]
    {
        unsupported_note();
        let _ = cpus;
        Err(io::Error::from(io::ErrorKind::Unsupported))
    }
}

impl SavedMask {
    /// Restores the mask on the calling thread.
    pub(crate) fn restore(self) {
        #[cfg(all(target_os = "linux", not(miri)))]
        // A mask the thread had a moment ago is valid: nothing to report.
        let _ = set_mask(&self.set);
    }
}

/// Sets the mask of worker `tid` of a team of `threads` at its start: its CPUs, or every CPU.
pub(crate) fn apply_worker(pinning: &Pinning, tid: usize, threads: usize) {
    // Failure (a CPU outside the cpuset, say) leaves the thread unpinned: pinning is a hint.
    let r = match pinning.cpus_of(tid, threads) {
        Some(cpus) => set_current_affinity(&cpus),
        None => reset_current_affinity(),
    };
    if r.is_err_and(|e| e.kind() == io::ErrorKind::Unsupported) {
        unsupported_note();
    }
}

/// Says once per process that pinning was asked for where it is not supported.
fn unsupported_note() {
    static NOTE: std::sync::Once = std::sync::Once::new();
    NOTE.call_once(|| {
        eprintln!(
            "welltempered-par: thread pinning is not supported on this system; threads run \
             unpinned"
        );
    });
}

#[cfg(all(target_os = "linux", not(miri)))]
fn get_mask() -> io::Result<libc::cpu_set_t> {
    // SAFETY: cpu_set_t is plain bits; all zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { core::mem::zeroed() };
    // SAFETY: `set` is a live cpu_set_t of the size passed; the kernel writes at most that.
    let r =
        unsafe { libc::sched_getaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if r == 0 {
        Ok(set)
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(all(target_os = "linux", not(miri)))]
fn set_mask(set: &libc::cpu_set_t) -> io::Result<()> {
    // SAFETY: `set` is a live cpu_set_t of the size passed; the kernel only reads it.
    let r = unsafe { libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), set) };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(all(test, target_os = "linux", not(miri)))]
mod tests {
    use super::*;

    #[test]
    fn pin_and_reset_on_own_thread() {
        std::thread::spawn(|| {
            let all = current_affinity().unwrap();
            assert!(!all.is_empty());
            set_current_affinity(&all[..1]).unwrap();
            assert_eq!(current_affinity().unwrap(), &all[..1]);
            reset_current_affinity().unwrap();
            assert_eq!(current_affinity().unwrap(), all);
            let saved = pin_saving(&all[..1]).unwrap();
            assert_eq!(current_affinity().unwrap(), &all[..1]);
            saved.restore();
            assert_eq!(current_affinity().unwrap(), all);
        })
        .join()
        .unwrap();
    }

    #[test]
    fn cpu_of() {
        assert_eq!(Pinning::Off.cpu_of(3), None);
        assert_eq!(Pinning::Cores(vec![]).cpu_of(3), None);
        assert_eq!(Pinning::Cores(vec![4, 5]).cpu_of(3), Some(5));
        assert!(Pinning::On.cpu_of(7).unwrap() < online_cpus());
        assert_eq!(Pinning::Cores(vec![4, 5]).cpus_of(3, 8), Some(vec![5]));
        assert_eq!(Pinning::Off.cpus_of(0, 2), None);
        let places = Pinning::Places {
            places: vec![vec![0, 1], vec![2, 3], vec![]],
            bind: ProcBind::Close,
        };
        assert_eq!(places.cpu_of(1), None);
        assert_eq!(places.cpus_of(0, 3), Some(vec![0, 1]));
        assert_eq!(places.cpus_of(1, 3), Some(vec![2, 3]));
        assert_eq!(places.cpus_of(2, 3), None, "an empty place does not pin");
        let spread = Pinning::Places {
            places: vec![vec![0], vec![1], vec![2], vec![3]],
            bind: ProcBind::Spread,
        };
        assert_eq!(spread.cpus_of(1, 2), Some(vec![2]));
        assert_eq!(spread.cpus_of(1, 4), Some(vec![1]));
        let none = Pinning::Places {
            places: vec![],
            bind: ProcBind::Primary,
        };
        assert_eq!(none.cpus_of(0, 1), None);
    }

    /// libgomp 12's assignments, observed with `omp_get_place_num` over 5 and 7 places.
    #[test]
    fn place_of_matches_libgomp() {
        let places = |bind: ProcBind, t: usize, p: usize| -> Vec<usize> {
            (0..t).map(|i| bind.place_of(i, t, p)).collect()
        };
        assert_eq!(places(ProcBind::Close, 3, 5), [0, 1, 2]);
        assert_eq!(places(ProcBind::Close, 8, 5), [0, 1, 2, 3, 4, 0, 1, 2]);
        assert_eq!(
            places(ProcBind::Close, 13, 5),
            [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 1, 2]
        );
        assert_eq!(places(ProcBind::Spread, 2, 5), [0, 3]);
        assert_eq!(places(ProcBind::Spread, 3, 5), [0, 2, 4]);
        assert_eq!(places(ProcBind::Spread, 4, 5), [0, 2, 3, 4]);
        assert_eq!(places(ProcBind::Spread, 4, 6), [0, 2, 4, 5]);
        assert_eq!(places(ProcBind::Spread, 3, 7), [0, 3, 5]);
        assert_eq!(places(ProcBind::Spread, 4, 7), [0, 2, 4, 6]);
        assert_eq!(places(ProcBind::Spread, 5, 5), [0, 1, 2, 3, 4]);
        assert_eq!(
            places(ProcBind::Spread, 13, 5),
            places(ProcBind::Close, 13, 5)
        );
        assert_eq!(places(ProcBind::Primary, 4, 5), [0, 0, 0, 0]);
        assert_eq!(ProcBind::Close.place_of(3, 2, 5), 3, "beyond the team");
        assert_eq!(ProcBind::Spread.place_of(0, 1, 0), 0, "no places");
    }
}
