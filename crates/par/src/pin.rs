//! Thread pinning with `sched_setaffinity(2)`, and the reset of threads that must not be pinned
//! (omp0's pinning: worker `i` on core `i mod nproc`, `pin_threads = true`).
//!
//! omp0's sticky-affinity bug: an affinity mask is per thread and inherited by the threads it
//! creates, so after one pinned run the master stayed on core 0 and every later "unpinned"
//! team, spawned by it, inherited core 0 and ran serialised. Here every worker sets its mask at
//! start-up whatever the configuration: its core when it is to be pinned, otherwise every CPU
//! (the kernel clips that to the CPUs the process's cpuset allows). The master (the caller's
//! thread, team thread 0) is pinned only when the configuration names a core for thread 0, and
//! then only for the duration of each region: its previous mask is restored afterwards.
//!
//! A `taskset` restriction of the whole process is not kept by the reset (a worker's mask
//! becomes every CPU of the cpuset); use [`Pinning::Cores`] to confine a team.
//!
//! Pinning needs Linux's affinity calls. Under Miri (which cannot run them) it does nothing
//! and reports success; on other systems (macOS has no way to bind a thread to a CPU, and
//! Windows' is not wired in) [`set_current_affinity`] and [`current_affinity`] report
//! [`io::ErrorKind::Unsupported`], and a team asked to pin runs unpinned after a one-time note
//! on standard error.

use std::io;

/// Where the team's threads run (`WELLTEMPERED_PROC_BIND`).
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
}

impl Pinning {
    /// The CPU thread `tid` is pinned to, if any.
    pub fn cpu_of(&self, tid: usize) -> Option<usize> {
        match self {
            Pinning::Off => None,
            Pinning::On => Some(tid % online_cpus()),
            Pinning::Cores(c) if c.is_empty() => None,
            Pinning::Cores(c) => Some(c[tid % c.len()]),
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

/// Pins the calling thread to `cpu`, returning its previous mask.
pub(crate) fn pin_saving(cpu: usize) -> io::Result<SavedMask> {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        let saved = SavedMask { set: get_mask()? };
        set_current_affinity(&[cpu])?;
        Ok(saved)
    }
    #[cfg(miri)]
    {
        let _ = cpu;
        Ok(SavedMask {})
    }
    #[cfg(not(any(target_os = "linux", miri)))]
    {
        unsupported_note();
        let _ = cpu;
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

/// Sets worker `tid`'s mask at its start: its CPU, or every CPU.
pub(crate) fn apply_worker(pinning: &Pinning, tid: usize) {
    // Failure (a CPU outside the cpuset, say) leaves the thread unpinned: pinning is a hint.
    let r = match pinning.cpu_of(tid) {
        Some(cpu) => set_current_affinity(&[cpu]),
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
            let saved = pin_saving(all[0]).unwrap();
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
    }
}
