//! The allocator of a harness process, chosen when it starts: the allocator factor of the
//! channel workloads (system, mimalloc, jemalloc) without one binary per allocator.
//!
//! [`Selected`] is the `welltempered` binary's global allocator. On its first call it reads
//! `WELLTEMPERED_ALLOCATOR` (`system`, `mimalloc` or `jemalloc`; unset or anything else means
//! `system`) with `getenv`, which does not allocate, and keeps the answer for the life of the
//! process, so every block is freed by the allocator that made it. The harness runs a variant
//! such as `ours@mimalloc` in a child process with the variable set; in-process variants use the
//! system allocator. The dispatch costs one relaxed load and a predictable branch per call.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU8, Ordering};

/// The environment variable naming the allocator of a harness process.
pub const ALLOCATOR_VAR: &str = "WELLTEMPERED_ALLOCATOR";

/// The allocators a process can choose, by name: the C allocators are built on Linux only.
#[cfg(target_os = "linux")]
pub const ALLOCATORS: &[&str] = &["system", "mimalloc", "jemalloc"];
/// The allocators a process can choose, by name: the C allocators are built on Linux only.
#[cfg(not(target_os = "linux"))]
pub const ALLOCATORS: &[&str] = &["system"];

const UNSET: u8 = 0;
const SYSTEM: u8 = 1;
const MIMALLOC: u8 = 2;
const JEMALLOC: u8 = 3;

/// The choice, made once per process.
static CHOICE: AtomicU8 = AtomicU8::new(UNSET);

/// The global allocator that dispatches to the allocator named by [`ALLOCATOR_VAR`].
#[derive(Debug, Default, Clone, Copy)]
pub struct Selected;

fn read_choice() -> u8 {
    // SAFETY: the name is a NUL-terminated literal; `getenv` returns null or a pointer to a
    // NUL-terminated string in the environment, read here before anything could change it (the
    // first allocation happens before `main`).
    let value = unsafe { libc::getenv(c"WELLTEMPERED_ALLOCATOR".as_ptr()) };
    if value.is_null() {
        return SYSTEM;
    }
    // SAFETY: non-null, NUL-terminated (getenv's contract).
    match unsafe { std::ffi::CStr::from_ptr(value) }.to_bytes() {
        b"mimalloc" if cfg!(target_os = "linux") => MIMALLOC,
        b"jemalloc" if cfg!(target_os = "linux") => JEMALLOC,
        _ => SYSTEM,
    }
}

#[inline]
fn choice() -> u8 {
    // Relaxed: the value is derived from the environment, the same in every thread; the first
    // compare-exchange fixes it for good.
    let c = CHOICE.load(Ordering::Relaxed);
    if c != UNSET {
        return c;
    }
    let c = read_choice();
    match CHOICE.compare_exchange(UNSET, c, Ordering::Relaxed, Ordering::Relaxed) {
        Ok(_) => c,
        Err(first) => first,
    }
}

/// The name of this process's allocator.
pub fn current() -> &'static str {
    match choice() {
        MIMALLOC => "mimalloc",
        JEMALLOC => "jemalloc",
        _ => "system",
    }
}

#[cfg(target_os = "linux")]
macro_rules! dispatch {
    ($method:ident($($arg:expr),*)) => {
        match choice() {
            // SAFETY: the caller upholds `GlobalAlloc`'s contract, which we pass on unchanged
            // to the one allocator this process uses for every block.
            MIMALLOC => unsafe { mimalloc::MiMalloc.$method($($arg),*) },
            // SAFETY: as above.
            JEMALLOC => unsafe { tikv_jemallocator::Jemalloc.$method($($arg),*) },
            // SAFETY: as above.
            _ => unsafe { System.$method($($arg),*) },
        }
    };
}

#[cfg(not(target_os = "linux"))]
macro_rules! dispatch {
    ($method:ident($($arg:expr),*)) => {
        // SAFETY: the caller upholds `GlobalAlloc`'s contract, which we pass on unchanged to
        // the system allocator, the only one here.
        unsafe { System.$method($($arg),*) }
    };
}

// SAFETY: every method forwards to the same allocator for the life of the process (the choice
// is fixed by the first call), so each block is freed or resized by the allocator that made it.
unsafe impl GlobalAlloc for Selected {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        dispatch!(alloc(layout))
    }
    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        dispatch!(alloc_zeroed(layout))
    }
    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        dispatch!(dealloc(ptr, layout))
    }
    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        dispatch!(realloc(ptr, layout, new_size))
    }
}

/// Resident memory of this process, KiB (`/proc/self/statm`); `None` where unreadable (and
/// off Linux).
#[cfg(target_os = "linux")]
pub fn resident_kib() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = text.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * page.max(1) as u64 / 1024)
}

/// Resident memory of this process: not read off Linux.
#[cfg(not(target_os = "linux"))]
pub fn resident_kib() -> Option<u64> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_process_uses_the_system_allocator_and_reads_its_rss() {
        // Tests run on the system allocator (`Selected` is only the binary's).
        assert!(ALLOCATORS.contains(&current()));
        if cfg!(target_os = "linux") {
            let kib = resident_kib().unwrap();
            assert!(kib > 0);
        }
    }

    #[test]
    fn selected_allocates_and_frees_on_one_allocator() {
        let layout = Layout::from_size_align(4096, 64).unwrap();
        // SAFETY: a nonzero-size layout; the block is freed once with the same layout.
        unsafe {
            let p = Selected.alloc_zeroed(layout);
            assert!(!p.is_null());
            assert_eq!(*p.add(4095), 0);
            let q = Selected.realloc(p, layout, 8192);
            assert!(!q.is_null());
            Selected.dealloc(q, Layout::from_size_align(8192, 64).unwrap());
        }
    }
}
