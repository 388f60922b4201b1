//! The `condvar` workload: a condition-variable ping-pong. Two threads pass a turn back and
//! forth through one mutex and one condition variable: each waits until the turn is its own,
//! takes it (incrementing the turn counter under the mutex) and notifies the other. Every
//! hand-over is a wake-up of a thread that waited, so the figure (hand-overs per second) is the
//! cost of `notify_one` plus a sleeping `wait` returning, with the mutex around both.
//!
//! The variants are std's `Mutex` + `Condvar`, parking_lot's, and each of our locks with
//! `welltempered_lock::CondvarFor<R>` (the default `Mutex` with `welltempered_lock::Condvar`).
//! The window closes when the parent sets the stop flag under the mutex and notifies all; the
//! counter then checks that the turns alternated (no lost or doubled hand-over).

use super::Spec;
use crate::counters::Rusage;
use crate::model::Sample;
use crate::{Error, Result};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// The state under the mutex.
#[derive(Debug, Default)]
struct Turn {
    /// Hand-overs so far; thread `i` may move when `count % 2 == i`.
    count: u64,
    /// Set by the parent to end the run.
    stop: bool,
    /// Hand-overs per thread, for the alternation check.
    by: [u64; 2],
}

/// A mutex and condition variable pair, as the three APIs spell them.
trait Pair: Sync + Default {
    /// Runs `f` holding the mutex, after waiting until `ready` holds (or `stop` is set).
    fn wait_then(&self, ready: impl Fn(&Turn) -> bool, f: impl FnOnce(&mut Turn) -> bool) -> bool;
    /// Runs `f` holding the mutex, then notifies every waiter.
    fn set_and_notify_all(&self, f: impl FnOnce(&mut Turn));
    /// Notifies one waiter (called after `wait_then`'s update, outside the mutex).
    fn notify_one(&self);
    /// The final state.
    fn into_turn(self) -> Turn;
}

/// std's `Mutex` and `Condvar`.
#[derive(Default)]
struct StdPair(std::sync::Mutex<Turn>, std::sync::Condvar);

impl Pair for StdPair {
    fn wait_then(&self, ready: impl Fn(&Turn) -> bool, f: impl FnOnce(&mut Turn) -> bool) -> bool {
        let g = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let mut g = self
            .1
            .wait_while(g, |t| !ready(t) && !t.stop)
            .unwrap_or_else(|e| e.into_inner());
        f(&mut g)
    }
    fn set_and_notify_all(&self, f: impl FnOnce(&mut Turn)) {
        f(&mut self.0.lock().unwrap_or_else(|e| e.into_inner()));
        self.1.notify_all();
    }
    fn notify_one(&self) {
        self.1.notify_one();
    }
    fn into_turn(self) -> Turn {
        self.0.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}

/// parking_lot's `Mutex` and `Condvar`.
#[derive(Default)]
struct ParkingLotPair(parking_lot::Mutex<Turn>, parking_lot::Condvar);

impl Pair for ParkingLotPair {
    fn wait_then(&self, ready: impl Fn(&Turn) -> bool, f: impl FnOnce(&mut Turn) -> bool) -> bool {
        let mut g = self.0.lock();
        self.1.wait_while(&mut g, |t| !ready(t) && !t.stop);
        f(&mut g)
    }
    fn set_and_notify_all(&self, f: impl FnOnce(&mut Turn)) {
        f(&mut self.0.lock());
        self.1.notify_all();
    }
    fn notify_one(&self) {
        self.1.notify_one();
    }
    fn into_turn(self) -> Turn {
        self.0.into_inner()
    }
}

/// One of our raw locks with one of our condition variables (`C`: `RawCondvar<R>` for any
/// raw lock, `RequeueCondvar` for the default mutex).
struct OursPair<C: lock_api::RawCondvar>(lock_api::Mutex<C::RawMutex, Turn>, lock_api::Condvar<C>);

/// Lock `R` with [`welltempered_lock::CondvarFor`].
type Ours<R> = OursPair<welltempered_lock::RawCondvar<R>>;

impl<C: lock_api::RawCondvar> Default for OursPair<C> {
    fn default() -> Self {
        Self(
            lock_api::Mutex::new(Turn::default()),
            lock_api::Condvar::new(),
        )
    }
}

impl<C> Pair for OursPair<C>
where
    C: lock_api::RawCondvar + Sync,
    C::RawMutex: Sync + Send,
{
    fn wait_then(&self, ready: impl Fn(&Turn) -> bool, f: impl FnOnce(&mut Turn) -> bool) -> bool {
        let mut g = self.0.lock();
        self.1.wait_while(&mut g, |t| !ready(t) && !t.stop);
        f(&mut g)
    }
    fn set_and_notify_all(&self, f: impl FnOnce(&mut Turn)) {
        f(&mut self.0.lock());
        self.1.notify_all();
    }
    fn notify_one(&self) {
        self.1.notify_one();
    }
    fn into_turn(self) -> Turn {
        self.0.into_inner()
    }
}

/// Runs the ping-pong on pair `P` for the spec's window.
fn run<P: Pair>(spec: &Spec) -> Result<Sample> {
    let pair = P::default();
    let ru0 = Rusage::now();
    let started = Instant::now();
    let (wall, end) = std::thread::scope(|s| {
        for me in 0..2u64 {
            let pair = &pair;
            s.spawn(move || {
                loop {
                    let stopped = pair.wait_then(
                        |t| t.count % 2 == me,
                        |t| {
                            if t.stop {
                                return true;
                            }
                            t.count += 1;
                            t.by[me as usize] += 1;
                            false
                        },
                    );
                    if stopped {
                        return;
                    }
                    pair.notify_one();
                }
            });
        }
        std::thread::sleep(Duration::from_nanos(spec.duration_ns));
        let mut at_stop = 0;
        pair.set_and_notify_all(|t| {
            t.stop = true;
            at_stop = t.count;
        });
        (started.elapsed(), at_stop)
    });
    let ru = Rusage::now().since(&ru0);
    let turn = pair.into_turn();
    // The turns alternate: each thread moved half of them (the first mover one more).
    if turn.count != end || turn.by[0] + turn.by[1] != turn.count || turn.by[0] < turn.by[1] {
        return Err(Error::new(format!(
            "{}: condvar ping-pong lost or doubled a hand-over: {} in all, {:?} by thread",
            spec.lock, turn.count, turn.by
        )));
    }
    if turn.by[0] - turn.by[1] > 1 {
        return Err(Error::new(format!(
            "{}: condvar ping-pong turns did not alternate: {:?} by thread",
            spec.lock, turn.by
        )));
    }
    let secs = wall.as_secs_f64();
    Ok(Sample {
        variant: spec.lock.clone(),
        value: turn.count as f64 / secs / 1e6,
        ops: turn.count,
        wall_s: secs,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        per_thread: turn.by.to_vec(),
        extra: BTreeMap::new(),
        ..Default::default()
    })
}

/// The ping-pong for the lock called `name`, if it has a condition variable here (the
/// test-and-set spin lock of the `spin` crate has none).
pub(super) fn runner(name: &str) -> Option<fn(&Spec) -> Result<Sample>> {
    use welltempered_lock as wl;
    Some(match name {
        "std" => run::<StdPair>,
        "parking_lot" => run::<ParkingLotPair>,
        "hemlock" => run::<Ours<wl::Hemlock>>,
        "hemlock-park" => run::<Ours<wl::HemlockPark>>,
        "hemlock-overlap" => run::<Ours<wl::HemlockOverlap>>,
        "hemlock-overlap-park" => run::<Ours<wl::HemlockOverlapPark>>,
        "hemlock-ah" => run::<Ours<wl::HemlockAh>>,
        "hemlock-ah-park" => run::<Ours<wl::HemlockAhPark>>,
        "mcs" => run::<Ours<wl::Mcs>>,
        "mcs-park" => run::<Ours<wl::McsPark>>,
        "clh" => run::<Ours<wl::Clh>>,
        "clh-park" => run::<Ours<wl::ClhPark>>,
        "ticket" => run::<Ours<wl::Ticket>>,
        "ticket-park" => run::<Ours<wl::TicketPark>>,
        "tas" => run::<Ours<wl::Tas>>,
        "ttas" => run::<Ours<wl::Ttas>>,
        "ttas-yield" => run::<Ours<wl::TtasYield>>,
        "futex" => run::<Ours<wl::Futex>>,
        "mutex" => run::<OursPair<wl::RequeueCondvar>>,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pair_alternates_and_counts() {
        for name in ["std", "parking_lot", "mutex", "hemlock-park", "futex"] {
            let spec = Spec {
                lock: name.into(),
                workload: Some(super::super::Workload::Condvar),
                cs_ns: 0,
                cs_iters: 0,
                threads: 2,
                duration_ns: 5_000_000,
            };
            let s = runner(name).unwrap()(&spec).unwrap();
            assert!(s.ops > 0 && s.value > 0.0, "{name}: {s:?}");
            assert_eq!(s.per_thread.iter().sum::<u64>(), s.ops, "{name}");
        }
        assert!(runner("spin").is_none());
    }
}
