//! Timer channels: [`after`], [`at`], [`tick`] and [`never`], receivers of `Instant`s that work
//! alone and in [`select!`](crate::select!), as crossbeam-channel's do.
//!
//! **Algorithm.** A timer channel is an ordinary channel of capacity one whose only "sender"
//! is the timer itself: its sender count holds one shared handle that is never dropped (so it
//! never disconnects), and no `Sender` exists. Nothing pushes ahead of time: a receive that
//! finds the channel empty first asks the timer whether a message is due
//! ([`Timer::fire`]: an atomic swap for a one-shot, a compare-and-swap of the next delivery
//! time for a ticker, so that one receiver fires each delivery) and pushes it with the shared
//! discipline before claiming. A blocked receive (or a `select`) sleeps until the next due
//! time at most, since no one notifies. The delivery rules are crossbeam-channel's
//! (<https://docs.rs/crossbeam-channel/0.5/crossbeam_channel/fn.tick.html>): a ticker's next
//! delivery is one period after the previous one was taken, so missed ticks are dropped, not
//! queued; the message is the instant the delivery was due.
//!
//! **Guarantees.** As the channel's; each delivery is received at most once.

use super::topology::SHARED;
use super::{Chan, Receiver, Wait};
use crate::sync::{AtomicBool, AtomicU64, Ordering};
use core::panic::Location;
use std::time::{Duration, Instant};

/// What a timer delivers, and when.
pub(crate) struct Timer<T> {
    kind: Kind,
    /// Makes the message from the instant it was due (the identity for `Instant`).
    make: fn(Instant) -> T,
}

enum Kind {
    /// One delivery at `due`.
    Once { due: Instant, fired: AtomicBool },
    /// A delivery every `period`; the next is due `next` nanoseconds after `base`
    /// (`u64::MAX`: never).
    Every {
        base: Instant,
        period: Duration,
        next: AtomicU64,
    },
}

impl<T> Timer<T> {
    /// When the next delivery is due; `None` if none will be.
    pub(crate) fn due(&self) -> Option<Instant> {
        match &self.kind {
            // Acquire, though nothing is published through the flag: a receiver that finds it
            // set and the channel empty lost the delivery to another receiver (or it is
            // being pushed, and the pusher's notification follows).
            Kind::Once { due, fired } => (!fired.load(Ordering::Acquire)).then_some(*due),
            Kind::Every { base, next, .. } => {
                let n = next.load(Ordering::Acquire);
                (n != u64::MAX).then(|| *base + Duration::from_nanos(n))
            }
        }
    }

    /// Takes the delivery due at `now`, if any: the instant it was due. At most one caller
    /// gets each delivery.
    pub(crate) fn fire(&self, now: Instant) -> Option<T> {
        let at = match &self.kind {
            Kind::Once { due, fired } => {
                // AcqRel: one winner (the swap); nothing else is published through the flag.
                (now >= *due && !fired.swap(true, Ordering::AcqRel)).then_some(*due)?
            }
            Kind::Every { base, period, next } => loop {
                let n = next.load(Ordering::Acquire);
                if n == u64::MAX {
                    return None;
                }
                let due = *base + Duration::from_nanos(n);
                if now < due {
                    return None;
                }
                // The next delivery is one period after this one is taken (crossbeam's rule).
                // Saturating at `u64::MAX`: never again.
                let after = nanos_since(*base, now)
                    .saturating_add(period.as_nanos().min(u128::from(u64::MAX - 1)) as u64);
                // AcqRel: one receiver takes each delivery.
                if next
                    .compare_exchange(n, after, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok()
                {
                    break due;
                }
            },
        };
        Some((self.make)(at))
    }
}

/// Nanoseconds from `base` to `t` (saturating at `u64::MAX - 1`).
fn nanos_since(base: Instant, t: Instant) -> u64 {
    t.saturating_duration_since(base)
        .as_nanos()
        .min(u128::from(u64::MAX - 1)) as u64
}

impl Chan<Instant> {
    /// A receiver of the timer channel `timer` (none: [`never`]).
    fn timer_receiver(
        timer: Option<Timer<Instant>>,
        site: &'static Location<'static>,
    ) -> Receiver<Instant> {
        let (tx, rx) = Chan::build_with(Some(1), Wait::Park, site, timer, false);
        // The timer is the channel's one sender, a shared one that is never dropped: the
        // channel never disconnects, and the pushes of its receivers (which fire it) use the
        // shared discipline.
        tx.chan.add_senders(SHARED, "timer", site);
        drop(tx);
        rx
    }
}

/// A receiver that delivers one message, the instant `duration` from now, once that time
/// has come; then nothing, and it never disconnects. A duration too long to represent gives
/// [`never`](fn@crate::never).
///
/// ```
/// use std::time::{Duration, Instant};
/// let start = Instant::now();
/// let timeout = welltempered_channel::after(Duration::from_millis(10));
/// let fired = timeout.recv().unwrap();
/// assert!(fired >= start + Duration::from_millis(10));
/// assert!(timeout.try_recv().is_err()); // once only
/// ```
#[track_caller]
pub fn after(duration: Duration) -> Receiver<Instant> {
    match Instant::now().checked_add(duration) {
        Some(due) => at_site(due, Location::caller()),
        None => Chan::timer_receiver(None, Location::caller()),
    }
}

/// A receiver that delivers one message, `when`, once that time has come (at once if it has
/// passed); then nothing, and it never disconnects.
#[track_caller]
pub fn at(when: Instant) -> Receiver<Instant> {
    at_site(when, Location::caller())
}

fn at_site(due: Instant, site: &'static Location<'static>) -> Receiver<Instant> {
    Chan::timer_receiver(
        Some(Timer {
            kind: Kind::Once {
                due,
                fired: AtomicBool::new(false),
            },
            make: core::convert::identity,
        }),
        site,
    )
}

/// A receiver that delivers a message every `duration`: the first `duration` from now, each
/// next one `duration` after the previous one was received (ticks nobody receives are
/// dropped, not queued). The message is the instant the delivery was due. It never
/// disconnects.
///
/// ```
/// use std::time::Duration;
/// let ticker = welltempered_channel::tick(Duration::from_millis(2));
/// let a = ticker.recv().unwrap();
/// let b = ticker.recv().unwrap();
/// assert!(b >= a + Duration::from_millis(2));
/// ```
#[track_caller]
pub fn tick(duration: Duration) -> Receiver<Instant> {
    let base = Instant::now();
    let first = base
        .checked_add(duration)
        .map_or(u64::MAX, |d| nanos_since(base, d));
    Chan::timer_receiver(
        Some(Timer {
            kind: Kind::Every {
                base,
                period: duration,
                next: AtomicU64::new(first),
            },
            make: core::convert::identity,
        }),
        Location::caller(),
    )
}

/// A receiver that never delivers and never disconnects: a receive waits forever (or until
/// its timeout), and in a `select!` the case is never chosen. Useful where a timer is
/// optional:
///
/// ```
/// use std::time::Duration;
/// use welltempered_channel::{after, never, select};
/// let limit: Option<Duration> = None;
/// let timeout = limit.map_or_else(never, after);
/// let (tx, rx) = welltempered_channel::unbounded();
/// tx.send(1).unwrap();
/// select! {
///     recv(rx) -> v => assert_eq!(v, Ok(1)),
///     recv(timeout) -> _ => unreachable!(),
/// }
/// ```
#[track_caller]
pub fn never<T>() -> Receiver<T> {
    // Capacity 0, as crossbeam's: always full, always empty.
    let (tx, rx) = Chan::build_with(Some(0), Wait::Park, Location::caller(), None, true);
    tx.chan.add_senders(SHARED, "never", Location::caller());
    drop(tx);
    rx
}
