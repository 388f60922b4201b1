//! Giving a thread's lock state back when the thread exits.
//!
//! Hemlock Grants and MCS/CLH queue nodes are never freed (a waiter or releaser may touch them
//! after their owner moved on: see `hemlock.rs` and `mcs.rs`), but they are *reused*: when a
//! thread exits, its Grants and its cached queue nodes go to global pools that later threads
//! take from. Without that, a program that keeps creating threads (a C server under the preload
//! library, a Rust program spawning a thread per task) would hold memory for every thread it
//! ever ran.
//!
//! The exit hook is a POSIX thread-specific-data key with a destructor (`pthread_key_create`),
//! created once per process; a thread registers itself (`pthread_setspecific`) on the slow
//! path where it first takes a Grant or a node from a pool. Not a Rust `thread_local!` with a
//! `Drop`: the thread-locals on the lock path stay `const`-initialised and destructor-free, so
//! that a lock operation never registers a TLS destructor (the preload library runs inside
//! threads C created, and during their teardown). Registration allocates nothing for the first
//! 32 keys of a process (glibc keeps them in the thread descriptor); beyond that
//! `pthread_setspecific` may allocate, which is why the callers register only after they have
//! set up the state the allocator's own locking may need.
//!
//! A thread that locks again after its destructor ran (another key's destructor, late in its
//! exit) takes a Grant or node again and registers again; glibc repeats destructors up to
//! `PTHREAD_DESTRUCTOR_ITERATIONS` (4) times, after which such late state is not given back.
//! If the process has no key left (`EAGAIN`), nothing is given back: the old behaviour.
//!
//! The pools are [`FreeStack`]s: a stack behind a test-and-test-and-set flag. A lock-free
//! stack's pop has the ABA problem (a block popped, reused and pushed back between a popper's
//! read of the head and its compare-and-swap would hand out a block twice), and a *take all*
//! pop, which avoids it, leaves the pool looking empty while the taker puts the rest back, so
//! that a concurrent first use allocates: under churn the pool then grows without bound. The
//! flag is held for a few instructions, only on a thread's first lock operation, at its exit,
//! and when a thread's node cache overflows, and it waits by spinning and yielding, not on
//! anything this crate or the preload library interposes.

#[cfg(all(unix, not(loom)))]
mod imp {
    use core::ffi::c_void;
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// No key yet.
    const UNSET: u64 = u64::MAX;
    /// `pthread_key_create` failed: no reclamation.
    const FAILED: u64 = u64::MAX - 1;

    /// The key, once created (`pthread_key_t` is an unsigned int on Linux, an unsigned long
    /// elsewhere: it fits in 64 bits).
    static KEY: AtomicU64 = AtomicU64::new(UNSET);

    std::thread_local! {
        /// Whether this thread has set its value for [`KEY`] (so its destructor will run).
        static REGISTERED: Cell<bool> = const { Cell::new(false) };
    }

    /// The process's key, created on first use.
    fn key() -> Option<libc::pthread_key_t> {
        // Acquire: pairs with the Release of the creating thread (the key is then valid).
        let k = KEY.load(Ordering::Acquire);
        if k != UNSET {
            return (k != FAILED).then_some(k as libc::pthread_key_t);
        }
        let mut key: libc::pthread_key_t = 0;
        // SAFETY: `key` is a valid out-pointer; the destructor is a function of this library
        // with the signature POSIX requires, which never unwinds.
        let made = unsafe { libc::pthread_key_create(&mut key, Some(on_thread_exit)) } == 0;
        let mine = if made { key as u64 } else { FAILED };
        // Release: publishes the created key. Whoever loses the race deletes its own key.
        match KEY.compare_exchange(UNSET, mine, Ordering::AcqRel, Ordering::Acquire) {
            Ok(_) => (mine != FAILED).then_some(key),
            Err(winner) => {
                if made {
                    // SAFETY: our key, never published, so no thread set a value for it.
                    unsafe { libc::pthread_key_delete(key) };
                }
                (winner != FAILED).then_some(winner as libc::pthread_key_t)
            }
        }
    }

    /// Makes sure the calling thread's Grants and cached nodes go back to the pools when it
    /// exits.
    pub(crate) fn register_thread() {
        if REGISTERED.with(|r| r.replace(true)) {
            return;
        }
        if let Some(key) = key() {
            // Any non-null value makes the destructor run at thread exit.
            // SAFETY: `key` is a live key of this process; the value is never dereferenced.
            unsafe { libc::pthread_setspecific(key, core::ptr::dangling::<c_void>()) };
        }
    }

    /// The key's destructor: runs on the exiting thread, after its last use of any lock
    /// (a thread in the middle of a lock operation is not exiting).
    extern "C" fn on_thread_exit(_: *mut c_void) {
        REGISTERED.with(|r| r.set(false));
        crate::hemlock::give_back_thread_grant();
        crate::hemlock_overlap::give_back_thread_grant();
        crate::mcs::give_back_thread_nodes();
    }
}

#[cfg(all(unix, not(loom)))]
pub(crate) use imp::register_thread;

/// A block that can sit in a [`FreeStack`]: it lends one of its links for the stack's use.
#[cfg(not(loom))]
pub(crate) trait Linked: Sized {
    /// The link the stack uses while the block is in it.
    fn free_link(&self) -> &core::sync::atomic::AtomicPtr<Self>;
}

/// A stack of never-freed blocks behind a spin flag (see the module documentation).
#[cfg(not(loom))]
pub(crate) struct FreeStack<T> {
    head: core::sync::atomic::AtomicPtr<T>,
    busy: core::sync::atomic::AtomicBool,
}

#[cfg(not(loom))]
impl<T: Linked> FreeStack<T> {
    /// An empty stack.
    pub(crate) const fn new() -> Self {
        FreeStack {
            head: core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()),
            busy: core::sync::atomic::AtomicBool::new(false),
        }
    }

    fn lock(&self) {
        use core::sync::atomic::Ordering;
        let mut spins = 0u32;
        // Acquire: the previous holder's changes to the stack and to the blocks it handled.
        while self
            .busy
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            while self.busy.load(Ordering::Relaxed) {
                spins += 1;
                if spins < 64 {
                    core::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            }
        }
    }

    fn unlock(&self) {
        // Release: our changes before the next holder's.
        self.busy
            .store(false, core::sync::atomic::Ordering::Release);
    }

    /// Pushes a block nobody uses any more.
    pub(crate) fn push(&self, block: *mut T) {
        use core::sync::atomic::Ordering;
        self.lock();
        // Relaxed: under the flag.
        let head = self.head.load(Ordering::Relaxed);
        // SAFETY: blocks are never freed, and this one is ours until pushed.
        unsafe { &*block }
            .free_link()
            .store(head, Ordering::Relaxed);
        self.head.store(block, Ordering::Relaxed);
        self.unlock();
    }

    /// Pops a block (null when empty); the caller's alone from then on.
    pub(crate) fn pop(&self) -> *mut T {
        use core::sync::atomic::Ordering;
        // Relaxed: a hint only; an empty-looking stack is re-read under the flag.
        if self.head.load(Ordering::Relaxed).is_null() {
            return core::ptr::null_mut();
        }
        self.lock();
        let top = self.head.load(Ordering::Relaxed);
        if !top.is_null() {
            // SAFETY: blocks are never freed; under the flag the top is ours to unlink.
            let next = unsafe { &*top }.free_link().load(Ordering::Relaxed);
            self.head.store(next, Ordering::Relaxed);
        }
        self.unlock();
        top
    }
}

/// Where there are no POSIX keys (Windows), a thread-local whose destructor gives the
/// thread's Grants and nodes back at its exit, as the key's destructor does on Unix.
#[cfg(all(not(unix), not(loom)))]
mod imp_tls {
    /// Gives the exiting thread's blocks back when dropped.
    struct OnExit;

    impl Drop for OnExit {
        fn drop(&mut self) {
            crate::hemlock::give_back_thread_grant();
            crate::hemlock_overlap::give_back_thread_grant();
            crate::mcs::give_back_thread_nodes();
        }
    }

    std::thread_local! {
        static ON_EXIT: OnExit = const { OnExit };
    }

    /// Makes sure the calling thread's Grants and cached nodes go back to the pools when it
    /// exits (the first access registers the destructor).
    pub(crate) fn register_thread() {
        let _ = ON_EXIT.try_with(|_| ());
    }
}

#[cfg(all(not(unix), not(loom)))]
pub(crate) use imp_tls::register_thread;

/// Nothing to register under loom, whose threads end with the model.
#[cfg(loom)]
pub(crate) fn register_thread() {}

#[cfg(not(loom))]
std::thread_local! {
    /// Set while this thread is inside the global allocator on behalf of this module.
    static ALLOCATING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `alloc` (an allocation through the global allocator) unless this thread is already in
/// one, in which case runs `system` (the same through the system allocator) instead; returns
/// the result and whether `system` ran. See [`leak_box`] for why.
#[cfg(not(loom))]
fn guarded_alloc<R>(alloc: impl FnOnce() -> R, system: impl FnOnce() -> R) -> (R, bool) {
    if ALLOCATING.with(|a| a.replace(true)) {
        return (system(), true);
    }
    /// Clears the flag on the way out (an allocation failure may unwind).
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            ALLOCATING.with(|a| a.set(false));
        }
    }
    let _done = Done;
    (alloc(), false)
}

/// Allocates `value` on the heap for good (Grants and queue nodes are never freed), without
/// coming back here: a first lock operation allocates, and a global allocator that itself locks
/// one of our locks (the preload library's own allocator does not; a Rust program's may) would
/// re-enter that first operation and allocate again, forever. A re-entered call takes the
/// memory from the system allocator directly. (Not the system allocator always: under the
/// preload library, that is the C program's `malloc`, which may lock a mutex.)
#[cfg(not(loom))]
pub(crate) fn leak_box<T>(value: T) -> *mut T {
    use std::alloc::{GlobalAlloc, Layout, System};
    let (p, _) = guarded_alloc(
        || Box::into_raw(Box::<T>::new_uninit()).cast::<T>(),
        || {
            let layout = Layout::new::<T>();
            // SAFETY: `T` is a lock's per-thread block: a nonzero size.
            let p = unsafe { System.alloc(layout) }.cast::<T>();
            if p.is_null() {
                std::alloc::handle_alloc_error(layout);
            }
            p
        },
    );
    // SAFETY: fresh memory of `T`'s layout.
    unsafe { p.write(value) };
    p
}

/// Zeroed memory of `layout` (a nonzero size) for a table that is never freed, from the
/// allocator [`leak_box`] would use; [`free_zeroed`] gives it back if it was never published.
#[cfg(not(loom))]
pub(crate) fn leak_zeroed(layout: std::alloc::Layout) -> (*mut u8, bool) {
    use std::alloc::{GlobalAlloc, System};
    let (p, system) = guarded_alloc(
        // SAFETY: the caller passes a nonzero size.
        || unsafe { std::alloc::alloc_zeroed(layout) },
        // SAFETY: as above.
        || unsafe { System.alloc_zeroed(layout) },
    );
    if p.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    (p, system)
}

/// Frees what [`leak_zeroed`] returned (`system`: its second value) with the same `layout`.
///
/// # Safety
///
/// `p` came from `leak_zeroed(layout)` with that `system` flag, and nothing else uses it.
#[cfg(not(loom))]
pub(crate) unsafe fn free_zeroed(p: *mut u8, layout: std::alloc::Layout, system: bool) {
    use std::alloc::{GlobalAlloc, System};
    if system {
        // SAFETY: forwarded from the caller.
        unsafe { System.dealloc(p, layout) };
    } else {
        // SAFETY: forwarded from the caller.
        unsafe { std::alloc::dealloc(p, layout) };
    }
}

/// Under loom: zeroed memory from the global allocator.
#[cfg(loom)]
pub(crate) fn leak_zeroed(layout: std::alloc::Layout) -> (*mut u8, bool) {
    // SAFETY: the caller passes a nonzero size.
    let p = unsafe { std::alloc::alloc_zeroed(layout) };
    if p.is_null() {
        std::alloc::handle_alloc_error(layout);
    }
    (p, false)
}

/// Under loom: frees what [`leak_zeroed`] returned.
///
/// # Safety
///
/// `p` came from `leak_zeroed(layout)`, and nothing else uses it.
#[cfg(loom)]
pub(crate) unsafe fn free_zeroed(p: *mut u8, layout: std::alloc::Layout, _system: bool) {
    // SAFETY: forwarded from the caller.
    unsafe { std::alloc::dealloc(p, layout) };
}

/// Under loom: a plain box (the models do not allocate from a locking allocator).
#[cfg(loom)]
pub(crate) fn leak_box<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}
