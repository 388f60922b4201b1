//! The OpenMP lock API (`omp_init_lock`, `omp_set_lock`, ..., and the nestable `omp_*_nest_lock`
//! forms; OpenMP 5.2 §18.9) on the locks of `welltempered-lock`.
//!
//! GCC's `omp.h` gives `omp_lock_t` 4 bytes and `omp_nest_lock_t` 16 (on Linux, 8 plus a
//! pointer): no room for most of our locks, and none for a pointer. So a lock's 4 bytes hold the
//! number of a slot in a process-wide table of locks of the configured kind
//! (`WELLTEMPERED_LOCK`; a two-phase lock following the wait policy when unset), allocated by `omp_init_lock` (a lock must be initialised before use)
//! and returned to a free list by `omp_destroy_lock`. The table grows by blocks of [`BLOCK`]
//! locks that are never freed or moved, so finding a lock is two loads and no lock. A nestable
//! lock keeps its slot number, its nesting count and its owner in its 16 bytes.
//!
//! Guarantees: mutual exclusion of the configured algorithm (FIFO for the queue locks);
//! `omp_test_lock` never blocks; a nestable lock is re-entered by its owner. Using a lock that
//! was never initialised, or destroying one that is held, is undefined in OpenMP; here it is
//! reported and the program stopped when the slot number is out of range.

use core::ffi::c_int;
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use welltempered_lock::DynRawMutex;
use welltempered_lock::lock_api::RawMutex as _;

/// Locks per block of the table.
const BLOCK: usize = 1024;
/// Blocks in the table (4 Mi locks).
const BLOCKS: usize = 4096;

/// The table: block `b` holds slots `b * BLOCK ..`; slot numbers stored in a lock are one more
/// than the slot's index (0 is no lock).
static TABLE: [AtomicPtr<[DynRawMutex; BLOCK]>; BLOCKS] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; BLOCKS];
/// Slots ever handed out, and those given back.
static USED: Mutex<(usize, Vec<u32>)> = Mutex::new((0, Vec::new()));

/// A fresh slot number (from the free list, or the next never used).
fn allocate() -> u32 {
    let mut used = USED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(n) = used.1.pop() {
        return n;
    }
    let index = used.0;
    if index >= BLOCK * BLOCKS {
        crate::refused::fatal("more than 4194304 OpenMP locks alive at once");
    }
    let block = &TABLE[index / BLOCK];
    // Relaxed: blocks are published under USED, and read by threads that got the slot number
    // through the lock variable's initialisation, which OpenMP orders before any use.
    if block.load(Ordering::Relaxed).is_null() {
        let fresh: Box<[DynRawMutex; BLOCK]> =
            Box::new(core::array::from_fn(|_| crate::team::new_lock()));
        // Release: pairs with the Acquire in `slot`, for a thread that learns the number some
        // other way than through this lock.
        block.store(Box::into_raw(fresh), Ordering::Release);
    }
    used.0 += 1;
    (index + 1) as u32
}

/// The lock of slot number `n`.
fn slot(n: u32, what: &str) -> &'static DynRawMutex {
    let index = (n as usize).wrapping_sub(1);
    // Acquire: pairs with the Release that published the block.
    let block = TABLE
        .get(index / BLOCK)
        .map_or(core::ptr::null_mut(), |b| b.load(Ordering::Acquire));
    if block.is_null() {
        crate::refused::fatal(&format!("{what} on a lock that was not initialised"));
    }
    // SAFETY: blocks are never freed or moved once published.
    unsafe { &(*block)[index % BLOCK] }
}

/// The 4 bytes of an `omp_lock_t`.
///
/// # Safety
///
/// `lock` points to a live, 4-aligned `omp_lock_t`.
unsafe fn word<'a>(lock: *mut u32) -> &'a AtomicU32 {
    // SAFETY: the caller's contract; the lock's bytes are only accessed atomically here.
    unsafe { AtomicU32::from_ptr(lock) }
}

/// Initialises a simple lock.
///
/// # Safety
///
/// `lock` points to an `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_init_lock(lock: *mut u32) {
    // SAFETY: the caller's contract.
    unsafe { word(lock) }.store(allocate(), Ordering::Release);
}

/// Initialises a simple lock (the hint is not used: every lock is of the configured kind).
///
/// # Safety
///
/// `lock` points to an `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_init_lock_with_hint(lock: *mut u32, _hint: c_int) {
    // SAFETY: the caller's contract.
    unsafe { omp_init_lock(lock) }
}

/// Destroys a simple lock (it must be unlocked).
///
/// # Safety
///
/// `lock` points to an initialised `omp_lock_t` that no thread uses any more.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_destroy_lock(lock: *mut u32) {
    // SAFETY: the caller's contract.
    let n = unsafe { word(lock) }.swap(0, Ordering::AcqRel);
    let _ = slot(n, "omp_destroy_lock");
    USED.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .1
        .push(n);
}

/// Acquires a simple lock.
///
/// # Safety
///
/// `lock` points to an initialised `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_set_lock(lock: *mut u32) {
    // SAFETY: the caller's contract.
    let n = unsafe { word(lock) }.load(Ordering::Acquire);
    slot(n, "omp_set_lock").lock();
}

/// Releases a simple lock.
///
/// # Safety
///
/// `lock` points to an initialised `omp_lock_t` this thread holds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_unset_lock(lock: *mut u32) {
    // SAFETY: the caller's contract.
    let n = unsafe { word(lock) }.load(Ordering::Acquire);
    // SAFETY: the caller's contract: this thread holds it.
    unsafe { slot(n, "omp_unset_lock").unlock(Default::default()) };
}

/// Tries to acquire a simple lock: nonzero on success.
///
/// # Safety
///
/// `lock` points to an initialised `omp_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_test_lock(lock: *mut u32) -> c_int {
    // SAFETY: the caller's contract.
    let n = unsafe { word(lock) }.load(Ordering::Acquire);
    c_int::from(slot(n, "omp_test_lock").try_lock().is_some())
}

/// The 16 bytes of an `omp_nest_lock_t`: slot number, nesting count, owner.
#[repr(C)]
pub(crate) struct NestLock {
    slot: AtomicU32,
    count: AtomicU32,
    owner: AtomicUsize,
}

/// A nestable lock's fields.
///
/// # Safety
///
/// `lock` points to a live, 8-aligned `omp_nest_lock_t` (16 bytes).
unsafe fn nest<'a>(lock: *mut NestLock) -> &'a NestLock {
    // SAFETY: the caller's contract; every field is atomic.
    unsafe { &*lock }
}

/// A number that tells the calling thread from every other live thread.
fn me() -> usize {
    thread_local! {
        static TOKEN: u8 = const { 0 };
    }
    TOKEN.with(|t| core::ptr::from_ref(t) as usize)
}

/// Initialises a nestable lock.
///
/// # Safety
///
/// `lock` points to an `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_init_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's contract.
    let l = unsafe { nest(lock) };
    l.count.store(0, Ordering::Relaxed);
    l.owner.store(0, Ordering::Relaxed);
    l.slot.store(allocate(), Ordering::Release);
}

/// Initialises a nestable lock (the hint is not used).
///
/// # Safety
///
/// `lock` points to an `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_init_nest_lock_with_hint(lock: *mut NestLock, _hint: c_int) {
    // SAFETY: the caller's contract.
    unsafe { omp_init_nest_lock(lock) }
}

/// Destroys a nestable lock (it must be unlocked).
///
/// # Safety
///
/// `lock` points to an initialised `omp_nest_lock_t` that no thread uses any more.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_destroy_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's contract.
    let n = unsafe { nest(lock) }.slot.swap(0, Ordering::AcqRel);
    let _ = slot(n, "omp_destroy_nest_lock");
    USED.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .1
        .push(n);
}

/// Acquires a nestable lock, or counts one more level if this thread holds it.
///
/// # Safety
///
/// `lock` points to an initialised `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_set_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's contract.
    let l = unsafe { nest(lock) };
    // Relaxed: only this thread stores its own token, so seeing it means this thread holds the
    // lock.
    if l.owner.load(Ordering::Relaxed) != me() {
        slot(l.slot.load(Ordering::Acquire), "omp_set_nest_lock").lock();
        l.owner.store(me(), Ordering::Relaxed);
    }
    l.count.fetch_add(1, Ordering::Relaxed);
}

/// Releases one level of a nestable lock; the last level unlocks it.
///
/// # Safety
///
/// `lock` points to an initialised `omp_nest_lock_t` this thread holds.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_unset_nest_lock(lock: *mut NestLock) {
    // SAFETY: the caller's contract.
    let l = unsafe { nest(lock) };
    if l.owner.load(Ordering::Relaxed) != me() {
        crate::refused::fatal("omp_unset_nest_lock by a thread that does not hold the lock");
    }
    if l.count.fetch_sub(1, Ordering::Relaxed) == 1 {
        l.owner.store(0, Ordering::Relaxed);
        // SAFETY: this thread holds the lock (checked above).
        unsafe {
            slot(l.slot.load(Ordering::Acquire), "omp_unset_nest_lock").unlock(Default::default())
        };
    }
}

/// Tries to acquire a nestable lock: the new nesting count, or 0 if another thread holds it.
///
/// # Safety
///
/// `lock` points to an initialised `omp_nest_lock_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn omp_test_nest_lock(lock: *mut NestLock) -> c_int {
    // SAFETY: the caller's contract.
    let l = unsafe { nest(lock) };
    if l.owner.load(Ordering::Relaxed) != me() {
        if slot(l.slot.load(Ordering::Acquire), "omp_test_nest_lock")
            .try_lock()
            .is_none()
        {
            return 0;
        }
        l.owner.store(me(), Ordering::Relaxed);
    }
    (l.count.fetch_add(1, Ordering::Relaxed) + 1) as c_int
}
