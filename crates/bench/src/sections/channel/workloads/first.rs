//! The `first` workload: what the first channel of a process costs, measured in a fresh child
//! process per repetition, so that whatever a channel sets up once per process (a lazily
//! initialised global, a registration with the kernel, the allocator's first arena for its
//! size class, the first page faults of its code) is paid inside the measurement, as a short
//! command-line program pays it.
//!
//! Two groups, each one measurement per fresh process:
//!
//! - `first/one-thread`: the time to make the process's first channel, send one 8-byte
//!   element, receive it and drop both handles, on one thread (microseconds, lower is better).
//!   `extra.second_us` is the same for a second channel made right after it in the same
//!   process: the difference is what the first one paid once.
//! - `first/blocking`: the process's first channel with a receiver on a thread of its own that
//!   finds it empty and waits (the sender sends [`WAIT`] later, so every channel that can
//!   sleep has gone to sleep by then). The figure is the CPU time the receiving thread spends in
//!   that receive (microseconds, lower is better): its spinning, yielding, setting up its sleep
//!   and waking. `extra.wake_us` is the time from the send to the receive's return (wall
//!   clock) and `extra.wall_us` the whole measurement, thread start and join included. Only
//!   channels with a blocking receive take part ([`super::ChannelEntry::blocks`]): on the
//!   queues and rings, the workloads' receive spins.

use super::{CellDef, Flavor, Planner, RxEnd, Spec, TxEnd, channel_entry};
use crate::model::Metric;
use crate::model::Sample;
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// How long the sender of `first/blocking` waits before it sends.
pub const WAIT: Duration = Duration::from_millis(2);

/// The first workload's cells: one per [`FirstUse`]; the blocking one only on channels whose
/// receive can sleep.
pub(in crate::sections::channel) fn cells(p: &mut Planner<'_>) {
    for how in FirstUse::ALL {
        let variants = p
            .plan
            .channels
            .iter()
            .filter(|c| how == FirstUse::OneThread || channel_entry(c).is_ok_and(|e| e.blocks))
            .cloned()
            .collect();
        p.push(CellDef {
            id: format!("first/{}", how.name()),
            title: how.title(),
            x: None,
            params: BTreeMap::from([("first".to_string(), serde_json::json!(how.name()))]),
            metric: Metric {
                unit: "us".into(),
                higher_is_better: false,
                op: "channel".into(),
            },
            spec: Spec {
                first: Some(how),
                limit: 0,
                ..p.base.clone()
            },
            variants,
        });
    }
}

/// The element sent through each channel.
const ELEMENT: u64 = 0x5eed_f00d;

/// Which first use a `first` measurement makes (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FirstUse {
    /// Make, send, receive and drop on one thread.
    OneThread,
    /// A receiver on its own thread waits for an element sent later.
    Blocking,
}

impl FirstUse {
    /// Both, in report order.
    pub const ALL: [FirstUse; 2] = [Self::OneThread, Self::Blocking];

    /// The name in group ids.
    pub fn name(self) -> &'static str {
        match self {
            Self::OneThread => "one-thread",
            Self::Blocking => "blocking",
        }
    }

    /// The group's title.
    pub fn title(self) -> String {
        match self {
            Self::OneThread => "first channel of a fresh process: make, send, receive and drop \
                                on one thread (us; extra.second_us: a second channel)"
                .into(),
            Self::Blocking => format!(
                "first channel of a fresh process, a receiver that sleeps: CPU time of the \
                 receiving thread while it waits {} ms for the element (us)",
                WAIT.as_millis()
            ),
        }
    }
}

/// Runs one `first` measurement of channel `F` in this process, which must not have used a
/// channel before (the harness runs every `first` measurement in a child process of its own).
pub(super) fn run_first<F: Flavor>(spec: &Spec, how: FirstUse) -> Result<Sample> {
    match how {
        FirstUse::OneThread => one_thread::<F>(spec),
        FirstUse::Blocking => blocking::<F>(spec),
    }
}

/// Makes a channel, sends [`ELEMENT`], receives it and drops both ends: the time it took.
fn round_trip<F: Flavor>(spec: &Spec) -> Result<Duration> {
    let t0 = Instant::now();
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    if !tx.send([ELEMENT]) {
        return Err(Error::new(format!("{}: the send failed", spec.channel)));
    }
    let got = rx.try_recv();
    drop((tx, rx));
    let took = t0.elapsed();
    match got {
        Some([ELEMENT]) => Ok(took),
        Some([v]) => Err(Error::new(format!(
            "{}: sent {ELEMENT:#x}, received {v:#x}",
            spec.channel
        ))),
        None => Err(Error::new(format!(
            "{}: the element sent was not there to receive",
            spec.channel
        ))),
    }
}

fn one_thread<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let first = round_trip::<F>(spec)?;
    let second = round_trip::<F>(spec)?;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Ok(Sample {
        variant: spec.channel.clone(),
        value: us(first),
        ops: 1,
        wall_s: first.as_secs_f64(),
        child: true,
        extra: BTreeMap::from([
            ("second_us".to_string(), us(second)),
            (
                "first_over_second".to_string(),
                first.as_secs_f64() / second.as_secs_f64().max(1e-9),
            ),
        ]),
        ..Default::default()
    })
}

/// CPU time of the calling thread: not read on this platform.
#[cfg(not(unix))]
fn thread_cpu() -> Result<Duration> {
    Err(Error::new(
        "the CPU time of a thread is read with clock_gettime, on Unix only",
    ))
}

/// CPU time of the calling thread.
#[cfg(unix)]
fn thread_cpu() -> Result<Duration> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; the clock id is a constant of this platform.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return Err(Error::new(format!(
            "clock_gettime(CLOCK_THREAD_CPUTIME_ID): {}",
            std::io::Error::last_os_error()
        )));
    }
    Ok(Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32))
}

fn blocking<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let t0 = Instant::now();
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    let receiver = std::thread::spawn(move || -> Result<_> {
        let c0 = thread_cpu()?;
        let got = rx.recv();
        let returned = Instant::now();
        let cpu = thread_cpu()?.saturating_sub(c0);
        Ok((got, cpu, returned))
    });
    std::thread::sleep(WAIT);
    let sent = Instant::now();
    let ok = tx.send([ELEMENT]);
    let joined = receiver.join();
    drop(tx);
    let wall = t0.elapsed();
    let (got, cpu, returned) = match joined {
        Ok(r) => r?,
        Err(_) => {
            return Err(Error::new(format!(
                "{}: the receiver panicked",
                spec.channel
            )));
        }
    };
    if !ok {
        return Err(Error::new(format!("{}: the send failed", spec.channel)));
    }
    if got != Some([ELEMENT]) {
        return Err(Error::new(format!(
            "{}: sent {ELEMENT:#x}, received {got:?}",
            spec.channel
        )));
    }
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Ok(Sample {
        variant: spec.channel.clone(),
        value: us(cpu),
        ops: 1,
        wall_s: wall.as_secs_f64(),
        cpu_s: cpu.as_secs_f64(),
        child: true,
        extra: BTreeMap::from([
            (
                "wake_us".to_string(),
                us(returned.saturating_duration_since(sent)),
            ),
            ("wall_us".to_string(), us(wall)),
        ]),
        ..Default::default()
    })
}

#[cfg(test)]
mod tests {
    use super::super::{Crossbeam, Ours};
    use super::*;

    fn spec(channel: &str) -> Spec {
        Spec {
            channel: channel.into(),
            workload: "first".into(),
            bytes: 8,
            producers: 1,
            consumers: 1,
            ..Spec::default()
        }
    }

    #[test]
    fn both_first_uses_deliver_the_element_and_report_positive_times() {
        for how in FirstUse::ALL {
            let s = run_first::<Ours>(&spec("ours"), how).unwrap();
            assert!(s.value > 0.0, "{how:?}: {s:?}");
            let s = run_first::<Crossbeam>(&spec("crossbeam"), how).unwrap();
            assert!(s.value >= 0.0, "{how:?}: {s:?}");
        }
        let s = run_first::<Ours>(&spec("ours"), FirstUse::Blocking).unwrap();
        assert!(s.extra["wall_us"] >= WAIT.as_secs_f64() * 1e6, "{s:?}");
    }
}
