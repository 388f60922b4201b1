//! Naming the locks of this crate at run time: [`LockKind`] (parsed from and printed as the
//! names the command line, the benchmark reports and `WELLTEMPERED_LOCK` use) and
//! [`DynRawMutex`], a raw lock whose algorithm is chosen when it is created.
//!
//! Not an algorithm: a dispatcher. [`DynRawMutex`] is an enum of every lock, so its size is the
//! largest body plus a tag and each operation is one `match` away from the algorithm's own code;
//! it has the weakest guard of them all ([`lock_api::GuardNoSend`]: the queue locks unlock with
//! the calling thread's own state).

use core::fmt;
use core::str::FromStr;

/// Every lock of this crate, by name.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub enum LockKind {
    /// [`crate::Hemlock`], spinning (`"hemlock"`).
    Hemlock,
    /// [`crate::HemlockPark`] (`"hemlock-park"`).
    HemlockPark,
    /// [`crate::HemlockOverlap`], spinning (`"hemlock-overlap"`).
    HemlockOverlap,
    /// [`crate::HemlockOverlapPark`] (`"hemlock-overlap-park"`).
    HemlockOverlapPark,
    /// [`crate::HemlockAh`], spinning (`"hemlock-ah"`).
    HemlockAh,
    /// [`crate::HemlockAhPark`] (`"hemlock-ah-park"`).
    HemlockAhPark,
    /// [`crate::Mcs`], spinning (`"mcs"`).
    Mcs,
    /// [`crate::McsPark`] (`"mcs-park"`).
    McsPark,
    /// [`crate::Clh`], spinning (`"clh"`).
    Clh,
    /// [`crate::ClhPark`] (`"clh-park"`).
    ClhPark,
    /// [`crate::Ticket`], spinning (`"ticket"`).
    Ticket,
    /// [`crate::TicketPark`] (`"ticket-park"`).
    TicketPark,
    /// [`crate::Tas`] (`"tas"`).
    Tas,
    /// [`crate::Ttas`] (`"ttas"`).
    Ttas,
    /// [`crate::TtasYield`] (`"ttas-yield"`).
    TtasYield,
    /// [`crate::Futex`] (`"futex"`).
    Futex,
    /// [`crate::TwoPhase`] with its default window (`"two-phase"`).
    TwoPhase,
    /// The default [`crate::RawMutex`] (`"mutex"`).
    #[default]
    Mutex,
}

impl LockKind {
    /// Every kind, in the order of the enum (queue locks, then the simple ones, then the
    /// default).
    pub const ALL: [LockKind; 18] = [
        LockKind::Hemlock,
        LockKind::HemlockPark,
        LockKind::HemlockOverlap,
        LockKind::HemlockOverlapPark,
        LockKind::HemlockAh,
        LockKind::HemlockAhPark,
        LockKind::Mcs,
        LockKind::McsPark,
        LockKind::Clh,
        LockKind::ClhPark,
        LockKind::Ticket,
        LockKind::TicketPark,
        LockKind::Tas,
        LockKind::Ttas,
        LockKind::TtasYield,
        LockKind::Futex,
        LockKind::TwoPhase,
        LockKind::Mutex,
    ];

    /// The kind's name, as [`FromStr`] accepts it.
    pub const fn name(self) -> &'static str {
        match self {
            LockKind::Hemlock => "hemlock",
            LockKind::HemlockPark => "hemlock-park",
            LockKind::HemlockOverlap => "hemlock-overlap",
            LockKind::HemlockOverlapPark => "hemlock-overlap-park",
            LockKind::HemlockAh => "hemlock-ah",
            LockKind::HemlockAhPark => "hemlock-ah-park",
            LockKind::Mcs => "mcs",
            LockKind::McsPark => "mcs-park",
            LockKind::Clh => "clh",
            LockKind::ClhPark => "clh-park",
            LockKind::Ticket => "ticket",
            LockKind::TicketPark => "ticket-park",
            LockKind::Tas => "tas",
            LockKind::Ttas => "ttas",
            LockKind::TtasYield => "ttas-yield",
            LockKind::Futex => "futex",
            LockKind::TwoPhase => "two-phase",
            LockKind::Mutex => "mutex",
        }
    }

    /// Whether the lock admits waiters in arrival order (the queue locks). The default mutex
    /// is not FIFO (it bounds bypass instead).
    pub const fn is_fifo(self) -> bool {
        !matches!(
            self,
            LockKind::Tas
                | LockKind::Ttas
                | LockKind::TtasYield
                | LockKind::Futex
                | LockKind::TwoPhase
                | LockKind::Mutex
        )
    }

    /// Whether a waiter may sleep in the kernel (rather than only spin or yield).
    pub const fn parks(self) -> bool {
        matches!(
            self,
            LockKind::HemlockPark
                | LockKind::HemlockOverlapPark
                | LockKind::HemlockAhPark
                | LockKind::McsPark
                | LockKind::ClhPark
                | LockKind::TicketPark
                | LockKind::Futex
                | LockKind::TwoPhase
                | LockKind::Mutex
        )
    }
}

impl fmt::Display for LockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error of parsing a [`LockKind`] from a name that is none of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownLockKind {
    name: String,
}

impl UnknownLockKind {
    /// The name that was not recognised.
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl fmt::Display for UnknownLockKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown lock kind `{}`; valid kinds are: ", self.name)?;
        for (i, k) in LockKind::ALL.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(k.name())?;
        }
        Ok(())
    }
}

impl std::error::Error for UnknownLockKind {}

impl FromStr for LockKind {
    type Err = UnknownLockKind;

    /// Parses a kind's name; surrounding whitespace is ignored, case is not (names are
    /// lower-case).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        LockKind::ALL
            .into_iter()
            .find(|k| k.name() == t)
            .ok_or_else(|| UnknownLockKind { name: t.to_owned() })
    }
}

#[cfg(not(loom))]
pub use dynamic::*;

#[cfg(not(loom))]
mod dynamic {
    use super::LockKind;
    use crate::{
        Clh, ClhPark, Futex, Hemlock, HemlockAh, HemlockAhPark, HemlockOverlap, HemlockOverlapPark,
        HemlockPark, Mcs, McsPark, RawMutex, Tas, Ticket, TicketPark, Ttas, TtasYield, TwoPhase,
    };
    use lock_api::GuardNoSend;

    /// A raw lock whose algorithm is chosen at run time: one variant per [`LockKind`].
    #[derive(Debug)]
    pub enum DynRawMutex {
        /// See [`LockKind::Hemlock`].
        Hemlock(Hemlock),
        /// See [`LockKind::HemlockPark`].
        HemlockPark(HemlockPark),
        /// See [`LockKind::HemlockOverlap`].
        HemlockOverlap(HemlockOverlap),
        /// See [`LockKind::HemlockOverlapPark`].
        HemlockOverlapPark(HemlockOverlapPark),
        /// See [`LockKind::HemlockAh`].
        HemlockAh(HemlockAh),
        /// See [`LockKind::HemlockAhPark`].
        HemlockAhPark(HemlockAhPark),
        /// See [`LockKind::Mcs`].
        Mcs(Mcs),
        /// See [`LockKind::McsPark`].
        McsPark(McsPark),
        /// See [`LockKind::Clh`].
        Clh(Clh),
        /// See [`LockKind::ClhPark`].
        ClhPark(ClhPark),
        /// See [`LockKind::Ticket`].
        Ticket(Ticket),
        /// See [`LockKind::TicketPark`].
        TicketPark(TicketPark),
        /// See [`LockKind::Tas`].
        Tas(Tas),
        /// See [`LockKind::Ttas`].
        Ttas(Ttas),
        /// See [`LockKind::TtasYield`].
        TtasYield(TtasYield),
        /// See [`LockKind::Futex`].
        Futex(Futex),
        /// See [`LockKind::TwoPhase`].
        TwoPhase(TwoPhase),
        /// See [`LockKind::Mutex`].
        Mutex(RawMutex),
    }

    /// Runs `$body` with `$l` bound to the selected lock, whatever its type.
    macro_rules! dispatch {
        ($self:expr, $l:ident => $body:expr) => {
            match $self {
                DynRawMutex::Hemlock($l) => $body,
                DynRawMutex::HemlockPark($l) => $body,
                DynRawMutex::HemlockOverlap($l) => $body,
                DynRawMutex::HemlockOverlapPark($l) => $body,
                DynRawMutex::HemlockAh($l) => $body,
                DynRawMutex::HemlockAhPark($l) => $body,
                DynRawMutex::Mcs($l) => $body,
                DynRawMutex::McsPark($l) => $body,
                DynRawMutex::Clh($l) => $body,
                DynRawMutex::ClhPark($l) => $body,
                DynRawMutex::Ticket($l) => $body,
                DynRawMutex::TicketPark($l) => $body,
                DynRawMutex::Tas($l) => $body,
                DynRawMutex::Ttas($l) => $body,
                DynRawMutex::TtasYield($l) => $body,
                DynRawMutex::Futex($l) => $body,
                DynRawMutex::TwoPhase($l) => $body,
                DynRawMutex::Mutex($l) => $body,
            }
        };
    }

    impl DynRawMutex {
        /// An unlocked lock of the given kind.
        pub const fn new(kind: LockKind) -> Self {
            match kind {
                LockKind::Hemlock => Self::Hemlock(Hemlock::new()),
                LockKind::HemlockPark => Self::HemlockPark(HemlockPark::new()),
                LockKind::HemlockOverlap => Self::HemlockOverlap(HemlockOverlap::new()),
                LockKind::HemlockOverlapPark => Self::HemlockOverlapPark(HemlockOverlapPark::new()),
                LockKind::HemlockAh => Self::HemlockAh(HemlockAh::new()),
                LockKind::HemlockAhPark => Self::HemlockAhPark(HemlockAhPark::new()),
                LockKind::Mcs => Self::Mcs(Mcs::new()),
                LockKind::McsPark => Self::McsPark(McsPark::new()),
                LockKind::Clh => Self::Clh(Clh::new()),
                LockKind::ClhPark => Self::ClhPark(ClhPark::new()),
                LockKind::Ticket => Self::Ticket(Ticket::new()),
                LockKind::TicketPark => Self::TicketPark(TicketPark::new()),
                LockKind::Tas => Self::Tas(Tas::new()),
                LockKind::Ttas => Self::Ttas(Ttas::new()),
                LockKind::TtasYield => Self::TtasYield(TtasYield::new()),
                LockKind::Futex => Self::Futex(Futex::new()),
                LockKind::TwoPhase => Self::TwoPhase(TwoPhase::new()),
                LockKind::Mutex => Self::Mutex(RawMutex::new()),
            }
        }

        /// The algorithm of this lock.
        pub const fn kind(&self) -> LockKind {
            match self {
                Self::Hemlock(_) => LockKind::Hemlock,
                Self::HemlockPark(_) => LockKind::HemlockPark,
                Self::HemlockOverlap(_) => LockKind::HemlockOverlap,
                Self::HemlockOverlapPark(_) => LockKind::HemlockOverlapPark,
                Self::HemlockAh(_) => LockKind::HemlockAh,
                Self::HemlockAhPark(_) => LockKind::HemlockAhPark,
                Self::Mcs(_) => LockKind::Mcs,
                Self::McsPark(_) => LockKind::McsPark,
                Self::Clh(_) => LockKind::Clh,
                Self::ClhPark(_) => LockKind::ClhPark,
                Self::Ticket(_) => LockKind::Ticket,
                Self::TicketPark(_) => LockKind::TicketPark,
                Self::Tas(_) => LockKind::Tas,
                Self::Ttas(_) => LockKind::Ttas,
                Self::TtasYield(_) => LockKind::TtasYield,
                Self::Futex(_) => LockKind::Futex,
                Self::TwoPhase(_) => LockKind::TwoPhase,
                Self::Mutex(_) => LockKind::Mutex,
            }
        }
    }

    impl Default for DynRawMutex {
        fn default() -> Self {
            Self::new(LockKind::default())
        }
    }

    /// Releases `l` with a fresh guard value.
    ///
    /// # Safety
    ///
    /// `l` must be held by the calling thread (which is where every lock of this crate may be
    /// released), and `R::Guard` must be stateless, so that a default value stands for the
    /// guard its `lock` returned: every lock of this crate uses the zero-sized
    /// [`lock_api::GuardSend`] or [`lock_api::GuardNoSend`].
    #[inline]
    unsafe fn unlock_stateless<R: lock_api::RawMutex>(l: &R)
    where
        R::Guard: Default,
    {
        // SAFETY: held by this thread (the caller's contract); the guard carries no state.
        unsafe { l.unlock(R::Guard::default()) }
    }

    // SAFETY: every operation forwards to the one lock the enum holds, which never changes
    // after construction, so exclusion is that lock's. The guard is `GuardNoSend`, the weaker
    // of the two guards involved: unlock happens on the locking thread, as the queue locks
    // require.
    unsafe impl lock_api::RawMutex for DynRawMutex {
        #[allow(clippy::declare_interior_mutable_const)]
        const INIT: Self = Self::new(LockKind::Mutex);
        type Guard = GuardNoSend;

        #[inline]
        fn lock(&self) -> GuardNoSend {
            dispatch!(self, l => {
                // The inner guard is a stateless marker; `unlock` recreates it.
                let _ = lock_api::RawMutex::lock(l);
            });
            GuardNoSend::new()
        }

        #[inline]
        fn try_lock(&self) -> Option<GuardNoSend> {
            let ok = dispatch!(self, l => lock_api::RawMutex::try_lock(l).is_some());
            ok.then(GuardNoSend::new)
        }

        #[inline]
        unsafe fn unlock(&self, _guard: GuardNoSend) {
            // SAFETY: the guard proves this thread holds the lock (the trait's contract, and
            // `GuardNoSend` keeps it on this thread); every inner guard is a stateless marker.
            dispatch!(self, l => unsafe { unlock_stateless(l) })
        }

        #[inline]
        fn is_locked(&self) -> bool {
            dispatch!(self, l => lock_api::RawMutex::is_locked(l))
        }
    }

    /// A mutex whose algorithm is chosen at run time.
    pub type DynMutex<T> = lock_api::Mutex<DynRawMutex, T>;

    /// A [`DynMutex`] of the given kind holding `value`.
    pub const fn dyn_mutex<T>(kind: LockKind, value: T) -> DynMutex<T> {
        lock_api::Mutex::from_raw(DynRawMutex::new(kind), value)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for k in LockKind::ALL {
            assert_eq!(k.to_string().parse::<LockKind>(), Ok(k));
        }
        assert_eq!(" ttas-yield\n".parse::<LockKind>(), Ok(LockKind::TtasYield));
        assert_eq!(LockKind::default(), LockKind::Mutex);
    }

    #[test]
    fn dyn_kind_matches() {
        for k in LockKind::ALL {
            assert_eq!(DynRawMutex::new(k).kind(), k);
        }
    }
}
