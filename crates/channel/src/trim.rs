//! Giving a drained burst's memory back to the operating system, not only to the allocator.
//!
//! The queue frees every segment beyond its one spare as soon as it is drained
//! ([`crate::queue`]), so the memory of a burst goes back to the allocator at once. Whether the
//! process's resident memory shrinks is then the allocator's decision. mimalloc and jemalloc
//! purge freed pages on their own (after a delay); glibc's malloc returns only the top of a heap,
//! and a drained burst lies *below* the channel's live segment (allocated after it), so without
//! help glibc keeps all of it resident (the complaint of tokio#4321, kanal#51 and flume#146).
//!
//! The help: every segment freed adds its size to one process-wide count; each time the count
//! passes [`TRIM_EVERY`] bytes, the thread that freed the segment calls glibc's
//! `malloc_trim(0)`, which hands every whole free page of every arena back to the kernel
//! (`MADV_DONTNEED`). A steady stream frees nothing (the spare segment is reused), so only a
//! drained backlog pays: one call per 4 MiB freed, some microseconds per call, or a few
//! nanoseconds per element of the burst. Where the C library is not glibc, or under Miri and
//! loom, nothing is called.

use core::sync::atomic::{AtomicUsize, Ordering};

/// Bytes of freed segments between two calls to `malloc_trim`.
pub(crate) const TRIM_EVERY: usize = 4 << 20;

/// Freed bytes not yet followed by a trim.
static FREED: AtomicUsize = AtomicUsize::new(0);

/// Records that `bytes` of segments were just freed; trims glibc's heaps every [`TRIM_EVERY`].
#[inline]
pub(crate) fn freed(bytes: usize) {
    // Relaxed: a count, not a synchronisation; a trim a little early or late is harmless.
    let before = FREED.fetch_add(bytes, Ordering::Relaxed);
    if before / TRIM_EVERY != (before + bytes) / TRIM_EVERY {
        trim();
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu", not(miri), not(loom)))]
#[cold]
fn trim() {
    // SAFETY: `malloc_trim` takes no pointers and may be called from any thread at any time; it
    // locks each arena itself while it walks the free lists.
    unsafe { libc::malloc_trim(0) };
}

#[cfg(not(all(target_os = "linux", target_env = "gnu", not(miri), not(loom))))]
#[cold]
fn trim() {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trim_falls_due_each_time_the_count_crosses_the_threshold() {
        // Only the crossing arithmetic can be checked here: the count is process-wide.
        let cross =
            |before: usize, bytes: usize| before / TRIM_EVERY != (before + bytes) / TRIM_EVERY;
        assert!(!cross(0, 4096));
        assert!(cross(TRIM_EVERY - 1, 4096));
        assert!(!cross(TRIM_EVERY, 4096));
        assert!(cross(2 * TRIM_EVERY - 4096, 4096));
        freed(4096); // and calling it does no harm
    }
}
