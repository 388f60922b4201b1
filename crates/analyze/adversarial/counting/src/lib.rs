//! A stand-in with crossbeam-channel's name and the part of its API the adversarial programs
//! use, over `std::sync::mpsc`, that records which threads use each side of each channel: the
//! truth the static analysis is checked against. Every channel remembers where it was made
//! (`#[track_caller]`), and [`report`] prints one line per channel:
//! `SITE senders=N receivers=M made=S/R`, N and M the distinct threads that sent and received,
//! S and R the handles made of each side (one at construction, one per clone).
//! Cloning and dropping a handle are not uses; `send`/`try_send` and `recv`/`try_recv`/
//! `recv_timeout`/iteration are.

use std::collections::HashSet;
use std::panic::Location;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::ThreadId;
use std::time::Duration;

pub use std::sync::mpsc::{RecvError, RecvTimeoutError, SendError, TryRecvError};

struct Record {
    site: &'static Location<'static>,
    senders: Mutex<HashSet<ThreadId>>,
    receivers: Mutex<HashSet<ThreadId>>,
    /// Handles made of each side: 1 each at construction, plus every clone.
    made: [AtomicUsize; 2],
}

static ALL: Mutex<Vec<Arc<Record>>> = Mutex::new(Vec::new());

fn note(set: &Mutex<HashSet<ThreadId>>) {
    set.lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(std::thread::current().id());
}

/// The sending side.
pub struct Sender<T> {
    tx: mpsc::Sender<T>,
    record: Arc<Record>,
}

/// The receiving side.
pub struct Receiver<T> {
    rx: Arc<Mutex<mpsc::Receiver<T>>>,
    record: Arc<Record>,
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.record.made[0].fetch_add(1, Ordering::Relaxed);
        Sender {
            tx: self.tx.clone(),
            record: self.record.clone(),
        }
    }
}

impl<T> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        self.record.made[1].fetch_add(1, Ordering::Relaxed);
        Receiver {
            rx: self.rx.clone(),
            record: self.record.clone(),
        }
    }
}

#[track_caller]
fn make<T>() -> (Sender<T>, Receiver<T>) {
    let record = Arc::new(Record {
        site: Location::caller(),
        senders: Mutex::new(HashSet::new()),
        receivers: Mutex::new(HashSet::new()),
        made: [AtomicUsize::new(1), AtomicUsize::new(1)],
    });
    ALL.lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(record.clone());
    let (tx, rx) = mpsc::channel();
    (
        Sender {
            tx,
            record: record.clone(),
        },
        Receiver {
            rx: Arc::new(Mutex::new(rx)),
            record,
        },
    )
}

/// An unbounded channel.
#[track_caller]
pub fn unbounded<T>() -> (Sender<T>, Receiver<T>) {
    make()
}

/// A channel of capacity `cap` (not enforced: only who uses it is recorded).
#[track_caller]
pub fn bounded<T>(cap: usize) -> (Sender<T>, Receiver<T>) {
    let _ = cap;
    make()
}

impl<T> Sender<T> {
    /// Sends `msg`.
    pub fn send(&self, msg: T) -> Result<(), SendError<T>> {
        note(&self.record.senders);
        self.tx.send(msg)
    }
    /// Sends `msg` (never full here).
    pub fn try_send(&self, msg: T) -> Result<(), SendError<T>> {
        self.send(msg)
    }
}

impl<T> Receiver<T> {
    fn rx(&self) -> std::sync::MutexGuard<'_, mpsc::Receiver<T>> {
        note(&self.record.receivers);
        self.rx.lock().unwrap_or_else(|e| e.into_inner())
    }
    /// Waits for a message.
    pub fn recv(&self) -> Result<T, RecvError> {
        self.rx().recv()
    }
    /// Takes a message if one is there.
    pub fn try_recv(&self) -> Result<T, TryRecvError> {
        self.rx().try_recv()
    }
    /// Waits at most `d` for a message.
    pub fn recv_timeout(&self, d: Duration) -> Result<T, RecvTimeoutError> {
        self.rx().recv_timeout(d)
    }
    /// Messages until every sender is gone.
    pub fn iter(&self) -> Iter<'_, T> {
        Iter { rx: self }
    }
}

/// Messages until every sender is gone.
pub struct Iter<'a, T> {
    rx: &'a Receiver<T>,
}

impl<T> Iterator for Iter<'_, T> {
    type Item = T;
    fn next(&mut self) -> Option<T> {
        self.rx.recv().ok()
    }
}

impl<'a, T> IntoIterator for &'a Receiver<T> {
    type Item = T;
    type IntoIter = Iter<'a, T>;
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

/// Prints, for every channel made so far, `FILE:LINE:COLUMN senders=N receivers=M made=S/R`:
/// the distinct threads that used each side, and the handles made of each side.
pub fn report() {
    for r in ALL.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        let n = |s: &Mutex<HashSet<ThreadId>>| s.lock().unwrap_or_else(|e| e.into_inner()).len();
        println!(
            "{}:{}:{} senders={} receivers={} made={}/{}",
            r.site.file(),
            r.site.line(),
            r.site.column(),
            n(&r.senders),
            n(&r.receivers),
            r.made[0].load(Ordering::Relaxed),
            r.made[1].load(Ordering::Relaxed)
        );
    }
}
