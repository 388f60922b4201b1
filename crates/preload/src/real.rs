//! glibc's own `pthread_*` functions, found behind ours with `dlvsym(RTLD_NEXT, ..)` at the
//! symbol versions a program linked today binds to (falling back to the default version through
//! `dlsym` on a glibc that lacks that version node), and cached after the first look-up.
//!
//! They serve the mutex kinds this library does not implement (recursive, error-checking,
//! robust, process-shared, priority protocols), and every call when `WELLTEMPERED_LOCK` names no
//! known lock.

use core::ffi::{CStr, c_int, c_void};
use core::sync::atomic::{AtomicPtr, Ordering};
use libc::{
    clockid_t, pthread_cond_t, pthread_condattr_t, pthread_mutex_t, pthread_mutexattr_t, timespec,
};

unsafe extern "C" {
    fn dlvsym(
        handle: *mut c_void,
        symbol: *const libc::c_char,
        version: *const libc::c_char,
    ) -> *mut c_void;
}

/// Looks `name` up behind this library, caching the address in `slot`.
///
/// A missing symbol is fatal: the program called a function its own libc does not have.
fn resolve(slot: &AtomicPtr<c_void>, name: &CStr, version: &CStr) -> *mut c_void {
    // Relaxed: the address is the same whichever thread resolves it; the dynamic linker's own
    // state is what the pointer refers to, and it is already initialised.
    let p = slot.load(Ordering::Relaxed);
    if !p.is_null() {
        return p;
    }
    // SAFETY: both strings are NUL-terminated; RTLD_NEXT is a valid pseudo-handle from a shared
    // object; dlvsym/dlsym take no locks that our interposed functions could need.
    let mut p = unsafe { dlvsym(libc::RTLD_NEXT, name.as_ptr(), version.as_ptr()) };
    if p.is_null() {
        // SAFETY: as above.
        p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    }
    if p.is_null() {
        crate::config::fatal(&[
            b"glibc's ",
            name.to_bytes(),
            b" was not found behind the preload library",
        ]);
    }
    slot.store(p, Ordering::Relaxed);
    p
}

macro_rules! real_fns {
    ($( $name:ident ( $($arg:ident : $ty:ty),* ) @ $ver:literal; )*) => {$(
        #[doc = concat!("glibc's `", stringify!($name), "` (symbol version ", $ver, ").")]
        ///
        /// # Safety
        ///
        /// The same contract as the glibc function: pointers valid for its access.
        pub(crate) unsafe fn $name($($arg: $ty),*) -> c_int {
            static SLOT: AtomicPtr<c_void> = AtomicPtr::new(core::ptr::null_mut());
            let p = resolve(
                &SLOT,
                // SAFETY: the literal ends in exactly one NUL.
                unsafe { CStr::from_bytes_with_nul_unchecked(concat!(stringify!($name), "\0").as_bytes()) },
                // SAFETY: the literal ends in exactly one NUL.
                unsafe { CStr::from_bytes_with_nul_unchecked(concat!($ver, "\0").as_bytes()) },
            );
            // SAFETY: `p` is the address of glibc's function of this exact C signature.
            let f: unsafe extern "C" fn($($ty),*) -> c_int = unsafe { core::mem::transmute(p) };
            // SAFETY: the caller upholds the function's contract.
            unsafe { f($($arg),*) }
        }
    )*};
}

real_fns! {
    pthread_mutex_init(m: *mut pthread_mutex_t, a: *const pthread_mutexattr_t) @ "GLIBC_2.2.5";
    pthread_mutex_destroy(m: *mut pthread_mutex_t) @ "GLIBC_2.2.5";
    pthread_mutex_lock(m: *mut pthread_mutex_t) @ "GLIBC_2.2.5";
    pthread_mutex_unlock(m: *mut pthread_mutex_t) @ "GLIBC_2.2.5";
    pthread_mutex_trylock(m: *mut pthread_mutex_t) @ "GLIBC_2.34";
    pthread_mutex_timedlock(m: *mut pthread_mutex_t, t: *const timespec) @ "GLIBC_2.34";
    pthread_mutex_clocklock(m: *mut pthread_mutex_t, c: clockid_t, t: *const timespec) @ "GLIBC_2.34";
    pthread_cond_init(c: *mut pthread_cond_t, a: *const pthread_condattr_t) @ "GLIBC_2.3.2";
    pthread_cond_destroy(c: *mut pthread_cond_t) @ "GLIBC_2.3.2";
    pthread_cond_signal(c: *mut pthread_cond_t) @ "GLIBC_2.3.2";
    pthread_cond_broadcast(c: *mut pthread_cond_t) @ "GLIBC_2.3.2";
}

/// The address of glibc's `pthread_cond_wait` (`which` 0), `pthread_cond_timedwait` (1) or
/// `pthread_cond_clockwait` (2), for the C wrappers of `src/condwait.c` to call themselves: a
/// cancellation inside glibc's wait then unwinds through C frames only.
pub(crate) fn cond_wait_address(which: c_int) -> *mut c_void {
    static SLOTS: [AtomicPtr<c_void>; 3] = [const { AtomicPtr::new(core::ptr::null_mut()) }; 3];
    let (name, version) = match which {
        0 => (c"pthread_cond_wait", c"GLIBC_2.3.2"),
        1 => (c"pthread_cond_timedwait", c"GLIBC_2.3.2"),
        _ => (c"pthread_cond_clockwait", c"GLIBC_2.34"),
    };
    let slot = &SLOTS[usize::try_from(which).unwrap_or(2).min(2)];
    resolve(slot, name, version)
}
