//! The allocator of the library's own Rust code: bump allocation from `mmap`ed chunks, never
//! freed.
//!
//! The locks allocate a little on a thread's first use (Hemlock's Grant, MCS and CLH queue
//! nodes, all kept for the life of the process). Through `malloc` that would recurse whenever
//! the program's allocator itself locks pthread mutexes (jemalloc and tcmalloc do): the first
//! lock of a thread would call `malloc`, which would lock a mutex, which would need the Grant
//! being allocated. `mmap` takes no user-space lock, so the library never re-enters itself.
//! Those blocks are never freed anyway; anything else the library frees is simply not reused,
//! which costs nothing measurable for the few small blocks it ever allocates.

use core::alloc::{GlobalAlloc, Layout};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const CHUNK: usize = 64 * 1024;

/// See the module documentation.
pub(crate) struct Bump;

static BUSY: AtomicBool = AtomicBool::new(false);
static NEXT: AtomicUsize = AtomicUsize::new(0);
static END: AtomicUsize = AtomicUsize::new(0);

// SAFETY: `alloc` returns blocks that are fresh (never handed out before), of at least
// `layout.size()` bytes at `layout.align()` alignment, from memory mapped read-write for the life
// of the process, or null; `dealloc` never makes memory available again, so no block is handed
// out twice.
unsafe impl GlobalAlloc for Bump {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // A test-and-test-and-set lock around the bump pointer: allocations are rare (a few
        // per thread) and short, and must not depend on anything this library interposes.
        while BUSY
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            while BUSY.load(Ordering::Relaxed) {
                core::hint::spin_loop();
            }
        }
        // Relaxed: NEXT and END are only accessed under BUSY, whose acquire/release orders them.
        let mut start = NEXT
            .load(Ordering::Relaxed)
            .next_multiple_of(layout.align());
        if start == 0 || start + layout.size() > END.load(Ordering::Relaxed) {
            let len = (layout.size() + layout.align())
                .max(CHUNK)
                .next_multiple_of(4096);
            // SAFETY: an anonymous private mapping at an address of the kernel's choosing
            // touches no existing memory.
            let p = unsafe {
                libc::mmap(
                    core::ptr::null_mut(),
                    len,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if p == libc::MAP_FAILED {
                BUSY.store(false, Ordering::Release);
                return core::ptr::null_mut();
            }
            start = (p as usize).next_multiple_of(layout.align());
            END.store(p as usize + len, Ordering::Relaxed);
        }
        NEXT.store(start + layout.size(), Ordering::Relaxed);
        BUSY.store(false, Ordering::Release);
        start as *mut u8
    }

    unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {}
}

#[global_allocator]
static ALLOCATOR: Bump = Bump;
