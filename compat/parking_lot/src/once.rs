//! parking_lot's `Once`: a one-time initialisation, on one state word and a futex.
//!
//! **Algorithm.** parking_lot's state machine (Amanieu d'Antras,
//! <https://github.com/Amanieu/parking_lot>, `src/once.rs`): bits for done, poisoned, locked
//! (an initialiser runs) and parked (someone sleeps). The first caller to set the locked bit
//! runs the closure; the others sleep on the word (a futex, where parking_lot parks in its
//! global table) until the initialiser finishes or panics. A panicking initialiser leaves the
//! `Once` poisoned and wakes everyone: `call_once` then panics, `call_once_force` runs its
//! closure with [`OnceState::Poisoned`].
//!
//! **Guarantees.** The closure runs at most once to completion; every caller that returns
//! sees its effects (Release when done, Acquire on every path that returns). After the store
//! that ends an initialisation, only the word's address is used (to wake the sleepers), since
//! a caller that sees it may free the `Once`. The closure is
//! user code run with the locked bit set: it must not call into the same `Once` (it would wait
//! for itself, as with parking_lot's and std's).

use core::sync::atomic::{AtomicU32, Ordering};
use welltempered_lock::futex;

const DONE_BIT: u32 = 1;
const POISON_BIT: u32 = 2;
const LOCKED_BIT: u32 = 4;
const PARKED_BIT: u32 = 8;

/// The state of a [`Once`].
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
pub enum OnceState {
    /// No initialiser has run yet.
    New,
    /// An initialiser panicked; a later `call_once_force` may run one again.
    Poisoned,
    /// An initialiser is running.
    InProgress,
    /// An initialiser completed.
    Done,
}

impl OnceState {
    /// Whether an earlier initialiser panicked.
    #[inline]
    pub fn poisoned(self) -> bool {
        matches!(self, OnceState::Poisoned)
    }

    /// Whether an initialiser completed.
    #[inline]
    pub fn done(self) -> bool {
        matches!(self, OnceState::Done)
    }
}

/// A one-time initialisation, with parking_lot's API.
///
/// ```
/// use parking_lot::{Once, OnceState};
///
/// static INIT: Once = Once::new();
/// let mut runs = 0;
/// INIT.call_once(|| runs += 1);
/// INIT.call_once(|| runs += 1);
/// assert_eq!(runs, 1);
/// assert_eq!(INIT.state(), OnceState::Done);
/// ```
pub struct Once(AtomicU32);

impl Once {
    /// A `Once` whose initialiser has not run.
    #[inline]
    pub const fn new() -> Once {
        Once(AtomicU32::new(0))
    }

    /// The current state.
    #[inline]
    pub fn state(&self) -> OnceState {
        // Acquire: a `Done` seen here comes with the initialiser's effects.
        let state = self.0.load(Ordering::Acquire);
        if state & DONE_BIT != 0 {
            OnceState::Done
        } else if state & LOCKED_BIT != 0 {
            OnceState::InProgress
        } else if state & POISON_BIT != 0 {
            OnceState::Poisoned
        } else {
            OnceState::New
        }
    }

    /// Runs `f` if no initialiser has completed, once among all callers; returns when one has.
    ///
    /// # Panics
    /// If an earlier initialiser panicked (the `Once` is poisoned), and with `f`'s panic.
    #[inline]
    pub fn call_once<F: FnOnce()>(&self, f: F) {
        // Acquire: see `state`.
        if self.0.load(Ordering::Acquire) == DONE_BIT {
            return;
        }
        let mut f = Some(f);
        self.call_once_slow(false, &mut |_| {
            if let Some(f) = f.take() {
                f();
            }
        });
    }

    /// As [`Self::call_once`], but runs even on a poisoned `Once`; `f` is told which state it
    /// found (`New` or `Poisoned`).
    #[inline]
    pub fn call_once_force<F: FnOnce(OnceState)>(&self, f: F) {
        // Acquire: see `state`.
        if self.0.load(Ordering::Acquire) == DONE_BIT {
            return;
        }
        let mut f = Some(f);
        self.call_once_slow(true, &mut |state| {
            if let Some(f) = f.take() {
                f(state);
            }
        });
    }

    #[cold]
    fn call_once_slow(&self, ignore_poison: bool, f: &mut dyn FnMut(OnceState)) {
        // Acquire on every load: a return on DONE must see the initialiser's effects, and a
        // poisoned state's panic comes after the failed initialiser's.
        let mut state = self.0.load(Ordering::Acquire);
        let mut spins = 0u32;
        loop {
            if state & DONE_BIT != 0 {
                return;
            }
            if state & POISON_BIT != 0 && !ignore_poison {
                panic!("Once instance has previously been poisoned");
            }
            if state & LOCKED_BIT == 0 {
                match self.0.compare_exchange_weak(
                    state,
                    (state | LOCKED_BIT) & !POISON_BIT,
                    Ordering::Acquire,
                    Ordering::Acquire,
                ) {
                    Ok(_) => break,
                    Err(now) => state = now,
                }
                continue;
            }
            if state & PARKED_BIT == 0 && spins < 10 {
                spins += 1;
                std::thread::yield_now();
                state = self.0.load(Ordering::Acquire);
                continue;
            }
            if state & PARKED_BIT == 0
                && let Err(now) = self.0.compare_exchange_weak(
                    state,
                    state | PARKED_BIT,
                    Ordering::Acquire,
                    Ordering::Acquire,
                )
            {
                state = now;
                continue;
            }
            futex::wait(&self.0, LOCKED_BIT | PARKED_BIT, None);
            state = self.0.load(Ordering::Acquire);
        }

        /// Poisons the `Once` and wakes its sleepers if the initialiser unwinds.
        struct PoisonOnUnwind<'a>(&'a Once);
        impl Drop for PoisonOnUnwind<'_> {
            fn drop(&mut self) {
                // The address only, taken first: once the swap is seen, another thread may
                // return and free the `Once`.
                let word = self.0.0.as_ptr().cast_const();
                // Release: pairs with the Acquire of the callers that find it poisoned.
                let state = self.0.0.swap(POISON_BIT, Ordering::Release);
                if state & PARKED_BIT != 0 {
                    futex::wake_address(word, u32::MAX);
                }
            }
        }

        let guard = PoisonOnUnwind(self);
        let found = if state & POISON_BIT != 0 {
            OnceState::Poisoned
        } else {
            OnceState::New
        };
        f(found);
        core::mem::forget(guard);

        // The address only, taken first: once DONE is seen, another thread may return and free
        // the `Once` (a wake on a freed address is at worst a spurious wake of whoever waits
        // there now).
        let word = self.0.as_ptr().cast_const();
        // Release: the initialiser's effects come with DONE.
        let state = self.0.swap(DONE_BIT, Ordering::Release);
        if state & PARKED_BIT != 0 {
            futex::wake_address(word, u32::MAX);
        }
    }
}

impl Default for Once {
    #[inline]
    fn default() -> Once {
        Once::new()
    }
}

impl core::fmt::Debug for Once {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Once")
            .field("state", &self.state())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Once, OnceState};
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn one_initialiser_among_many_callers() {
        static O: Once = Once::new();
        static RUNS: AtomicUsize = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    O.call_once(|| {
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        RUNS.fetch_add(1, Ordering::Relaxed);
                    });
                    // Every caller returns after the initialiser's effects.
                    assert_eq!(RUNS.load(Ordering::Relaxed), 1);
                });
            }
        });
        assert_eq!(O.state(), OnceState::Done);
    }

    #[test]
    fn a_panic_poisons_and_force_recovers() {
        let o = Once::new();
        let r = std::panic::catch_unwind(|| o.call_once(|| panic!("initialiser fails")));
        assert!(r.is_err());
        assert_eq!(o.state(), OnceState::Poisoned);
        assert!(std::panic::catch_unwind(|| o.call_once(|| {})).is_err());
        let mut seen = None;
        o.call_once_force(|state| seen = Some(state));
        assert_eq!(seen, Some(OnceState::Poisoned));
        assert!(o.state().done());
        assert_eq!(format!("{o:?}"), "Once { state: Done }");
    }
}
