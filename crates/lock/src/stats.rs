//! Instrumentation of the queue locks (cargo feature `stats`): the Hemlock paper's LevelDB
//! profile (section 5: "the maximum number of threads waiting simultaneously on any Grant
//! field"), plus total and contended acquisitions per lock kind.
//!
//! With the feature off every recording hook is an empty inline function and
//! [`queue_stats`] returns zeros: the locks pay nothing. With it on, the hooks are relaxed
//! atomic increments on global counters (they add coherence traffic of their own, so numbers
//! measured with the feature on are for profiles, not for throughput).

#[cfg(all(feature = "stats", not(loom)))]
use std::sync::atomic::{AtomicU64, Ordering};

/// The queue-lock families counted separately (spin and park forms share a row).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StatKind {
    /// [`Hemlock`](crate::Hemlock) and its park form.
    Hemlock = 0,
    /// [`HemlockOverlap`](crate::HemlockOverlap) and its park form.
    HemlockOverlap = 1,
    /// [`HemlockAh`](crate::HemlockAh) and its park form.
    HemlockAh = 2,
    /// [`Mcs`](crate::Mcs) and its park form.
    Mcs = 3,
    /// [`Clh`](crate::Clh) and its park form.
    Clh = 4,
    /// [`Ticket`](crate::Ticket) and its park form.
    Ticket = 5,
}

impl StatKind {
    /// Every kind, in the order of [`QueueStats::acquisitions`].
    pub const ALL: [StatKind; 6] = [
        StatKind::Hemlock,
        StatKind::HemlockOverlap,
        StatKind::HemlockAh,
        StatKind::Mcs,
        StatKind::Clh,
        StatKind::Ticket,
    ];
}

/// A snapshot of the counters (all zero when the `stats` feature is off).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct QueueStats {
    /// The most threads ever seen waiting on one Hemlock Grant at once (1 means purely local
    /// spinning; more means multi-waiting).
    pub max_grant_waiters: u64,
    /// Acquisitions that found a Hemlock Grant already waited upon by another thread.
    pub multi_waits: u64,
    /// Acquisitions per kind, indexed like [`StatKind::ALL`].
    pub acquisitions: [u64; 6],
    /// Acquisitions per kind that had to wait behind another thread.
    pub contended: [u64; 6],
}

/// Whether this build counts (the `stats` feature).
pub const STATS_ENABLED: bool = cfg!(all(feature = "stats", not(loom)));

#[cfg(all(feature = "stats", not(loom)))]
mod counters {
    use super::*;
    #[allow(clippy::declare_interior_mutable_const)]
    const ZERO: AtomicU64 = AtomicU64::new(0);
    pub(super) static MAX_GRANT_WAITERS: AtomicU64 = AtomicU64::new(0);
    pub(super) static MULTI_WAITS: AtomicU64 = AtomicU64::new(0);
    pub(super) static ACQUISITIONS: [AtomicU64; 6] = [ZERO; 6];
    pub(super) static CONTENDED: [AtomicU64; 6] = [ZERO; 6];
}

/// Reads the counters.
pub fn queue_stats() -> QueueStats {
    #[cfg(all(feature = "stats", not(loom)))]
    {
        use counters::*;
        let mut s = QueueStats {
            max_grant_waiters: MAX_GRANT_WAITERS.load(Ordering::Relaxed),
            multi_waits: MULTI_WAITS.load(Ordering::Relaxed),
            ..QueueStats::default()
        };
        for i in 0..6 {
            s.acquisitions[i] = ACQUISITIONS[i].load(Ordering::Relaxed);
            s.contended[i] = CONTENDED[i].load(Ordering::Relaxed);
        }
        s
    }
    #[cfg(not(all(feature = "stats", not(loom))))]
    QueueStats::default()
}

/// Records one acquisition of a lock of `kind`; `contended` if it waited behind another thread.
#[inline(always)]
pub(crate) fn record_acquire(kind: StatKind, contended: bool) {
    #[cfg(all(feature = "stats", not(loom)))]
    {
        counters::ACQUISITIONS[kind as usize].fetch_add(1, Ordering::Relaxed);
        if contended {
            counters::CONTENDED[kind as usize].fetch_add(1, Ordering::Relaxed);
        }
    }
    #[cfg(not(all(feature = "stats", not(loom))))]
    let _ = (kind, contended);
}

/// Records that a thread started waiting on a Grant that now has `waiters` waiters.
#[cfg_attr(not(all(feature = "stats", not(loom))), allow(dead_code))]
#[inline(always)]
pub(crate) fn record_grant_waiters(waiters: u32) {
    #[cfg(all(feature = "stats", not(loom)))]
    {
        counters::MAX_GRANT_WAITERS.fetch_max(u64::from(waiters), Ordering::Relaxed);
        if waiters > 1 {
            counters::MULTI_WAITS.fetch_add(1, Ordering::Relaxed);
        }
    }
    #[cfg(not(all(feature = "stats", not(loom))))]
    let _ = waiters;
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn snapshot_follows_feature() {
        record_acquire(StatKind::Ticket, true);
        record_grant_waiters(2);
        let s = queue_stats();
        if STATS_ENABLED {
            assert!(s.acquisitions[StatKind::Ticket as usize] >= 1);
            assert!(s.contended[StatKind::Ticket as usize] >= 1);
            assert!(s.max_grant_waiters >= 2);
            assert!(s.multi_waits >= 1);
        } else {
            assert_eq!(s, QueueStats::default());
        }
    }
}
