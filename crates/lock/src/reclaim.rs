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

/// Nothing to register where there are no POSIX keys (or under loom, whose threads end with
/// the model).
#[cfg(not(all(unix, not(loom))))]
pub(crate) fn register_thread() {}

/// Allocates `value` on the heap for good (Grants and queue nodes are never freed), without
/// coming back here: a first lock operation allocates, and a global allocator that itself locks
/// one of our locks (the preload library's own allocator does not; a Rust program's may) would
/// re-enter that first operation and allocate again, forever. A re-entered call takes the
/// memory from the system allocator directly.
#[cfg(not(loom))]
pub(crate) fn leak_box<T>(value: T) -> *mut T {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;
    std::thread_local! {
        static ALLOCATING: Cell<bool> = const { Cell::new(false) };
    }
    if ALLOCATING.with(|a| a.replace(true)) {
        let layout = Layout::new::<T>();
        // SAFETY: `T` is a lock's per-thread block: a nonzero size.
        let p = unsafe { System.alloc(layout) }.cast::<T>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        // SAFETY: fresh memory of `T`'s layout.
        unsafe { p.write(value) };
        return p;
    }
    /// Clears the flag on the way out (an allocation failure may unwind).
    struct Done;
    impl Drop for Done {
        fn drop(&mut self) {
            ALLOCATING.with(|a| a.set(false));
        }
    }
    let _done = Done;
    Box::into_raw(Box::new(value))
}

/// Under loom: a plain box (the models do not allocate from a locking allocator).
#[cfg(loom)]
pub(crate) fn leak_box<T>(value: T) -> *mut T {
    Box::into_raw(Box::new(value))
}
