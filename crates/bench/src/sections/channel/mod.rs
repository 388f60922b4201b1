//! The channel workloads of WTC (W1, W2, W3, W7, W9, W10, W11 and the one-core mode), and
//! small bounded channels, run on the `welltempered-channel` crate and on the usual Rust channels
//! and queues.
//!
//! - `w1`: SPSC hand-over of 8, 64 and 256-byte elements, one producer and one consumer.
//! - `w2`: latency. The producer sends element `i` when it falls due (`i / rate` after the
//!   start); the consumer records the time from the due time to its arrival. Median (the
//!   primary figure) and p99 (`extra.p99_ns`), at several rates.
//! - `w3`: a three-stage pipeline of 64-byte records (source, transform, sink over two
//!   channels), each stage doing a calibrated amount of work per record: 0 to 1 ms (the grain
//!   sweep).
//! - `w7`: batching, `K` = 1 to 1024 elements per send and per receive (the channel's
//!   `send_iter`/`recv_many` where it has them, else a loop of single operations).
//! - `w9`: many threads: producers:consumers 2:1, 1:2, 2:2, 4:4, and the pairwise workload in
//!   which every thread sends one element and then receives one, on one shared channel.
//! - `w10`: the ablation of our channel's claiming disciplines. A side turns shared when its
//!   handle is cloned, so 1:1 runs plain (`ours`), with an idle extra sender alive (`ours+tx`,
//!   shared producer side), with an idle extra receiver (`ours+rx`, shared consumer side), and
//!   both (`ours+tx+rx`).
//! - `w11`: a thread pool: one submitter, 1 to 8 workers taking tasks of 0 to 1000 ns from one
//!   channel.
//! - `small`: the smallest bounded channels, a rendezvous (`bounded(0)`: each send waits for a
//!   receive) and `bounded(1)`, with 1 sender : 1 receiver and 8 senders : 1 receiver, 8-byte
//!   elements. The channels are ours (`welltempered_channel::bounded`), crossbeam-channel's
//!   `bounded`, flume's `bounded` and std's `sync_channel`, each at the group's capacity
//!   ([`small_channels`]; [`Spec::capacity`]), so every row of a group, and its ratio to crossbeam,
//!   has the same capacity and topology. The groups' `x` is the number of senders.
//! - `select`: one consumer receives with `select!` over 2 or 4 bounded channels, fed by 1 or 2
//!   producers each, on our channel and crossbeam-channel (`select.rs`).
//! - `onecore`: W1 (8 bytes) with both threads pinned to one CPU (the first this process may
//!   use: CPU 0 on an unrestricted machine).
//!
//! Throughput is in millions of elements per second: the elements received while the window
//! was open, over its length. Every run checks delivery: each element carries its producer and
//! its sequence number; every consumer must see each producer's numbers strictly increasing
//! (FIFO per producer), and in the end the count and the sum of the numbers received from each
//! producer must equal what it sent (exactly once). Larger elements also carry the complement of
//! their tag in their last word. A mismatch fails the run.
//!
//! Unbounded channels would let a fast producer pile up an arbitrary backlog (memory, and a long
//! drain after the window); producers therefore keep at most [`IN_FLIGHT`] elements ahead of the
//! consumers (W11: [`POOL_IN_FLIGHT`]), reading the consumers' counts every 64 sends. Bounded
//! variants hold [`BOUND`] elements.
//!
//! - `first`: the first channel of a fresh process: make, send, receive and drop on one thread,
//!   and a first receive that sleeps (its thread's CPU time); one child process per
//!   measurement (`first.rs`).
//! - `memory`: 10^6 8-byte elements queued on one thread, then drained; the figure is the
//!   process's resident memory after the drain over its resident memory with the channel idle
//!   (1.0: everything given back; lower is better), with the peak and the figure 200 ms later
//!   in `extra`. Always in a child process of its own.
//!
//! The allocator is a factor where elements or segments go through the heap ([`HEAP_CHANNELS`]
//! in W1, W11 and `memory`): with `--allocators`, each such channel also runs as
//! `<channel>@mimalloc` and `<channel>@jemalloc`, in a child process whose global allocator is
//! chosen by `WELLTEMPERED_ALLOCATOR` ([`crate::alloc`]). Other variants use the system
//! allocator.
//!
//! Each group's `x` parameter is its swept value (bytes, rate per second, grain in ns, `K`,
//! workers, senders), so the report draws one plot per sweep.
//!
//! Foreign load is a factor with `--load` (comma-separated levels; default `0`, quick mode `0,2`
//! for `small` and `0` for the others): each level runs every group again, `N` with N busy
//! processes spinning beside the measurement (not pinned), `mixed` with one process starting and
//! joining short-lived threads that do a little work each, as a parallel build does
//! ([`crate::load`]). The load processes are child processes of the harness, started before a
//! group's measurement and killed and reaped after it. Each group records its level in the
//! `load` parameter (`"0"`, `"2"`, `"mixed"`); loaded groups carry `/load=<level>` at the end of
//! their id and the level in their title, and follow the quiet group of the same cell, so the
//! report shows them side by side. Nothing else about the measurements changes.

use super::{Ctx, Suite};
use crate::args::{parse_duration, parse_positive, same_name};
use crate::counters::{HwCounters, Rusage};
use crate::harness::{self, Progress};
use crate::load::{Load, LoadGuard, parse_load};
use crate::model::{Group, Metric, Sample, Section};
use crate::work::{busy, busy_iters_per_ns};
use crate::{Error, Result};
use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use crossbeam_utils::{Backoff, CachePadded};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};
use welltempered_channel as wc;

mod first;
mod select;
pub use first::FirstUse;
pub use select::{SELECT_CHANNELS, SELECT_WIDTHS};

/// Capacity of the bounded variants (ring buffers, bounded channels).
pub const BOUND: usize = 1024;

/// Most elements a producer keeps ahead of the consumers on unbounded channels.
pub const IN_FLIGHT: u64 = 1 << 14;

/// Most tasks the W11 submitter keeps queued (so the drain after the window stays short).
pub const POOL_IN_FLIGHT: u64 = 1 << 11;

/// Bits of a tag holding the sequence number; the producer index sits above them.
const SEQ_BITS: u32 = 40;

// ---------------------------------------------------------------------------------------------
// The channels, behind one interface (monomorphized per channel and element type).

/// The sending end as the workloads drive it.
trait TxEnd<T>: Send + Sized {
    /// Sends `v`, waiting for room; false when the receivers are gone.
    fn send(&mut self, v: T) -> bool;
    /// Sends a batch.
    fn send_many(&mut self, it: impl Iterator<Item = T>) -> bool {
        for v in it {
            if !self.send(v) {
                return false;
            }
        }
        true
    }
    /// Another handle on the same channel, if the channel allows more than one sender.
    fn dup(&self) -> Option<Self>;
}

/// The receiving end as the workloads drive it.
trait RxEnd<T>: Send + Sized {
    /// Waits for an element; `None` once every sender is gone and the channel is empty.
    fn recv(&mut self) -> Option<T>;
    /// An element if one is there now.
    fn try_recv(&mut self) -> Option<T>;
    /// Waits for one element, then takes up to `max` in all; false when disconnected.
    fn recv_many(&mut self, buf: &mut Vec<T>, max: usize) -> bool {
        match self.recv() {
            Some(v) => buf.push(v),
            None => return false,
        }
        for _ in 1..max {
            match self.try_recv() {
                Some(v) => buf.push(v),
                None => break,
            }
        }
        true
    }
    /// Another handle on the same channel, if the channel allows more than one receiver.
    fn dup(&self) -> Option<Self>;
}

/// A channel implementation.
trait Flavor: 'static {
    type Tx<T: Send + 'static>: TxEnd<T>;
    type Rx<T: Send + 'static>: RxEnd<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>);
}

/// The ends of our channel, for its plain handles and its shareable ones (which deref to them).
macro_rules! ours_ends {
    ($tx:ty, $rx:ty) => {
        impl<T: Send> TxEnd<T> for $tx {
            fn send(&mut self, v: T) -> bool {
                wc::Sender::send(self, v).is_ok()
            }
            fn send_many(&mut self, it: impl Iterator<Item = T>) -> bool {
                self.send_iter(it).is_ok()
            }
            fn dup(&self) -> Option<Self> {
                Some(self.clone())
            }
        }

        impl<T: Send> RxEnd<T> for $rx {
            fn recv(&mut self) -> Option<T> {
                wc::Receiver::recv(self).ok()
            }
            fn try_recv(&mut self) -> Option<T> {
                wc::Receiver::try_recv(self).ok()
            }
            fn recv_many(&mut self, buf: &mut Vec<T>, max: usize) -> bool {
                wc::Receiver::recv_many(self, buf, max).is_ok()
            }
            fn dup(&self) -> Option<Self> {
                Some(self.clone())
            }
        }
    };
}

ours_ends!(wc::Sender<T>, wc::Receiver<T>);
ours_ends!(wc::SharedSender<T>, wc::SharedReceiver<T>);

impl<T: Send> TxEnd<T> for wc::spsc::Sender<T> {
    fn send(&mut self, v: T) -> bool {
        wc::spsc::Sender::send(self, v).is_ok()
    }
    fn send_many(&mut self, it: impl Iterator<Item = T>) -> bool {
        self.send_iter(it).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> RxEnd<T> for wc::spsc::Receiver<T> {
    fn recv(&mut self) -> Option<T> {
        wc::spsc::Receiver::recv(self).ok()
    }
    fn try_recv(&mut self) -> Option<T> {
        wc::spsc::Receiver::try_recv(self).ok()
    }
    fn recv_many(&mut self, buf: &mut Vec<T>, max: usize) -> bool {
        wc::spsc::Receiver::recv_many(self, buf, max).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> TxEnd<T> for crossbeam_channel::Sender<T> {
    fn send(&mut self, v: T) -> bool {
        crossbeam_channel::Sender::send(self, v).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> RxEnd<T> for crossbeam_channel::Receiver<T> {
    fn recv(&mut self) -> Option<T> {
        crossbeam_channel::Receiver::recv(self).ok()
    }
    fn try_recv(&mut self) -> Option<T> {
        crossbeam_channel::Receiver::try_recv(self).ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> TxEnd<T> for std::sync::mpsc::Sender<T> {
    fn send(&mut self, v: T) -> bool {
        std::sync::mpsc::Sender::send(self, v).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> RxEnd<T> for std::sync::mpsc::Receiver<T> {
    fn recv(&mut self) -> Option<T> {
        std::sync::mpsc::Receiver::recv(self).ok()
    }
    fn try_recv(&mut self) -> Option<T> {
        std::sync::mpsc::Receiver::try_recv(self).ok()
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> TxEnd<T> for std::sync::mpsc::SyncSender<T> {
    fn send(&mut self, v: T) -> bool {
        std::sync::mpsc::SyncSender::send(self, v).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> TxEnd<T> for flume::Sender<T> {
    fn send(&mut self, v: T) -> bool {
        flume::Sender::send(self, v).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> RxEnd<T> for flume::Receiver<T> {
    fn recv(&mut self) -> Option<T> {
        flume::Receiver::recv(self).ok()
    }
    fn try_recv(&mut self) -> Option<T> {
        flume::Receiver::try_recv(self).ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> TxEnd<T> for kanal::Sender<T> {
    fn send(&mut self, v: T) -> bool {
        kanal::Sender::send(self, v).is_ok()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

impl<T: Send> RxEnd<T> for kanal::Receiver<T> {
    fn recv(&mut self) -> Option<T> {
        kanal::Receiver::recv(self).ok()
    }
    fn try_recv(&mut self) -> Option<T> {
        kanal::Receiver::try_recv(self).ok().flatten()
    }
    fn dup(&self) -> Option<Self> {
        Some(self.clone())
    }
}

/// Pushes `v` with `push`, spinning (then yielding) while the queue is full.
fn spin_push<T>(mut v: T, mut push: impl FnMut(T) -> std::result::Result<(), T>) {
    let backoff = Backoff::new();
    loop {
        match push(v) {
            Ok(()) => return,
            Err(back) => {
                v = back;
                backoff.snooze();
            }
        }
    }
}

/// Pops with `pop`, spinning (then yielding) while the queue is empty and `open` says senders
/// remain; once they are gone, one last pop takes what they left.
fn spin_pop<T>(open: impl Fn() -> bool, mut pop: impl FnMut() -> Option<T>) -> Option<T> {
    let backoff = Backoff::new();
    loop {
        if let Some(v) = pop() {
            return Some(v);
        }
        if !open() {
            return pop();
        }
        backoff.snooze();
    }
}

/// The producer end of an SPSC ring; dropping it closes the ring.
struct RingTx<P> {
    inner: P,
    closed: Arc<AtomicBool>,
}

/// The consumer end of an SPSC ring.
struct RingRx<C> {
    inner: C,
    closed: Arc<AtomicBool>,
}

impl<P> Drop for RingTx<P> {
    fn drop(&mut self) {
        // Release: every push of this producer happens before a consumer sees the ring closed.
        self.closed.store(true, Ordering::Release);
    }
}

impl<T: Send> TxEnd<T> for RingTx<rtrb::Producer<T>> {
    fn send(&mut self, v: T) -> bool {
        spin_push(v, |v| {
            self.inner.push(v).map_err(|rtrb::PushError::Full(v)| v)
        });
        true
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> RxEnd<T> for RingRx<rtrb::Consumer<T>> {
    fn recv(&mut self) -> Option<T> {
        let closed = &self.closed;
        let inner = &mut self.inner;
        // Acquire: pairs with the producer's release on drop.
        spin_pop(|| !closed.load(Ordering::Acquire), || inner.pop().ok())
    }
    fn try_recv(&mut self) -> Option<T> {
        self.inner.pop().ok()
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> TxEnd<T> for RingTx<ringbuf::HeapProd<T>> {
    fn send(&mut self, v: T) -> bool {
        use ringbuf::traits::Producer as _;
        spin_push(v, |v| self.inner.try_push(v));
        true
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

impl<T: Send> RxEnd<T> for RingRx<ringbuf::HeapCons<T>> {
    fn recv(&mut self) -> Option<T> {
        use ringbuf::traits::Consumer as _;
        let closed = &self.closed;
        let inner = &mut self.inner;
        // Acquire: pairs with the producer's release on drop.
        spin_pop(|| !closed.load(Ordering::Acquire), || inner.try_pop())
    }
    fn try_recv(&mut self) -> Option<T> {
        use ringbuf::traits::Consumer as _;
        self.inner.try_pop()
    }
    fn dup(&self) -> Option<Self> {
        None
    }
}

/// A lock-free MPMC queue of crossbeam-queue.
trait SpinQueue<T>: Send + Sync + 'static {
    fn make() -> Self;
    fn push(&self, v: T) -> std::result::Result<(), T>;
    fn pop(&self) -> Option<T>;
}

impl<T: Send + 'static> SpinQueue<T> for crossbeam_queue::SegQueue<T> {
    fn make() -> Self {
        Self::new()
    }
    fn push(&self, v: T) -> std::result::Result<(), T> {
        crossbeam_queue::SegQueue::push(self, v);
        Ok(())
    }
    fn pop(&self) -> Option<T> {
        crossbeam_queue::SegQueue::pop(self)
    }
}

impl<T: Send + 'static> SpinQueue<T> for crossbeam_queue::ArrayQueue<T> {
    fn make() -> Self {
        Self::new(BOUND)
    }
    fn push(&self, v: T) -> std::result::Result<(), T> {
        crossbeam_queue::ArrayQueue::push(self, v)
    }
    fn pop(&self) -> Option<T> {
        crossbeam_queue::ArrayQueue::pop(self)
    }
}

/// A queue shared by counted handles, so receivers can tell when the senders are gone.
struct QueueShared<Q> {
    queue: Q,
    senders: AtomicUsize,
}

/// A sending handle on a [`SpinQueue`].
struct QueueTx<Q>(Arc<QueueShared<Q>>);

/// A receiving handle on a [`SpinQueue`].
struct QueueRx<Q>(Arc<QueueShared<Q>>);

impl<Q> Drop for QueueTx<Q> {
    fn drop(&mut self) {
        // Release: this sender's pushes happen before a receiver sees the count reach zero.
        self.0.senders.fetch_sub(1, Ordering::Release);
    }
}

impl<T: Send, Q: SpinQueue<T>> TxEnd<T> for QueueTx<Q> {
    fn send(&mut self, v: T) -> bool {
        spin_push(v, |v| self.0.queue.push(v));
        true
    }
    fn dup(&self) -> Option<Self> {
        // Relaxed: like Arc's count, a new handle is made from a live one.
        self.0.senders.fetch_add(1, Ordering::Relaxed);
        Some(Self(Arc::clone(&self.0)))
    }
}

impl<T: Send, Q: SpinQueue<T>> RxEnd<T> for QueueRx<Q> {
    fn recv(&mut self) -> Option<T> {
        let s = &self.0;
        // Acquire: pairs with the senders' release on drop.
        spin_pop(|| s.senders.load(Ordering::Acquire) > 0, || s.queue.pop())
    }
    fn try_recv(&mut self) -> Option<T> {
        self.0.queue.pop()
    }
    fn dup(&self) -> Option<Self> {
        Some(Self(Arc::clone(&self.0)))
    }
}

struct Ours;
struct OursBounded;
struct OursSpsc;
struct OursShared;
struct Crossbeam;
struct CrossbeamBounded;
struct StdMpsc;
struct Flume;
struct Kanal;
struct Rtrb;
struct Ringbuf;
struct SegQueue;
struct ArrayQueue;

impl Flavor for Ours {
    type Tx<T: Send + 'static> = wc::Sender<T>;
    type Rx<T: Send + 'static> = wc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        wc::unbounded()
    }
}

impl Flavor for OursBounded {
    type Tx<T: Send + 'static> = wc::Sender<T>;
    type Rx<T: Send + 'static> = wc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        wc::bounded(BOUND)
    }
}

/// The shareable handles of `shared::unbounded`: crossbeam's `Sync` handles, in effect, and
/// what the drop-in `compat/crossbeam-channel` gives a patched program. Both sides run the
/// shared disciplines whatever the handle counts.
impl Flavor for OursShared {
    type Tx<T: Send + 'static> = wc::SharedSender<T>;
    type Rx<T: Send + 'static> = wc::SharedReceiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        wc::shared::unbounded()
    }
}

impl Flavor for OursSpsc {
    type Tx<T: Send + 'static> = wc::spsc::Sender<T>;
    type Rx<T: Send + 'static> = wc::spsc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        wc::spsc::channel()
    }
}

impl Flavor for Crossbeam {
    type Tx<T: Send + 'static> = crossbeam_channel::Sender<T>;
    type Rx<T: Send + 'static> = crossbeam_channel::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        crossbeam_channel::unbounded()
    }
}

impl Flavor for CrossbeamBounded {
    type Tx<T: Send + 'static> = crossbeam_channel::Sender<T>;
    type Rx<T: Send + 'static> = crossbeam_channel::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        crossbeam_channel::bounded(BOUND)
    }
}

impl Flavor for StdMpsc {
    type Tx<T: Send + 'static> = std::sync::mpsc::Sender<T>;
    type Rx<T: Send + 'static> = std::sync::mpsc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        std::sync::mpsc::channel()
    }
}

impl Flavor for Flume {
    type Tx<T: Send + 'static> = flume::Sender<T>;
    type Rx<T: Send + 'static> = flume::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        flume::unbounded()
    }
}

impl Flavor for Kanal {
    type Tx<T: Send + 'static> = kanal::Sender<T>;
    type Rx<T: Send + 'static> = kanal::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        kanal::unbounded()
    }
}

impl Flavor for Rtrb {
    type Tx<T: Send + 'static> = RingTx<rtrb::Producer<T>>;
    type Rx<T: Send + 'static> = RingRx<rtrb::Consumer<T>>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        let (p, c) = rtrb::RingBuffer::new(BOUND);
        let closed = Arc::new(AtomicBool::new(false));
        (
            RingTx {
                inner: p,
                closed: Arc::clone(&closed),
            },
            RingRx { inner: c, closed },
        )
    }
}

impl Flavor for Ringbuf {
    type Tx<T: Send + 'static> = RingTx<ringbuf::HeapProd<T>>;
    type Rx<T: Send + 'static> = RingRx<ringbuf::HeapCons<T>>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        use ringbuf::traits::Split as _;
        let (p, c) = ringbuf::HeapRb::<T>::new(BOUND).split();
        let closed = Arc::new(AtomicBool::new(false));
        (
            RingTx {
                inner: p,
                closed: Arc::clone(&closed),
            },
            RingRx { inner: c, closed },
        )
    }
}

/// Our channel, `bounded(N)` (the `small` workload).
struct OursCap<const N: usize>;
/// crossbeam-channel's `bounded(N)`.
struct CrossbeamCap<const N: usize>;
/// flume's `bounded(N)`.
struct FlumeCap<const N: usize>;
/// std's `sync_channel(N)`.
struct StdSync<const N: usize>;

impl<const N: usize> Flavor for OursCap<N> {
    type Tx<T: Send + 'static> = wc::Sender<T>;
    type Rx<T: Send + 'static> = wc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        wc::bounded(N)
    }
}

impl<const N: usize> Flavor for CrossbeamCap<N> {
    type Tx<T: Send + 'static> = crossbeam_channel::Sender<T>;
    type Rx<T: Send + 'static> = crossbeam_channel::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        crossbeam_channel::bounded(N)
    }
}

impl<const N: usize> Flavor for FlumeCap<N> {
    type Tx<T: Send + 'static> = flume::Sender<T>;
    type Rx<T: Send + 'static> = flume::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        flume::bounded(N)
    }
}

impl<const N: usize> Flavor for StdSync<N> {
    type Tx<T: Send + 'static> = std::sync::mpsc::SyncSender<T>;
    type Rx<T: Send + 'static> = std::sync::mpsc::Receiver<T>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        std::sync::mpsc::sync_channel(N)
    }
}

fn make_queue<T: Send + 'static, Q: SpinQueue<T>>() -> (QueueTx<Q>, QueueRx<Q>) {
    let s = Arc::new(QueueShared {
        queue: Q::make(),
        senders: AtomicUsize::new(1),
    });
    (QueueTx(Arc::clone(&s)), QueueRx(s))
}

impl Flavor for SegQueue {
    type Tx<T: Send + 'static> = QueueTx<crossbeam_queue::SegQueue<T>>;
    type Rx<T: Send + 'static> = QueueRx<crossbeam_queue::SegQueue<T>>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        make_queue()
    }
}

impl Flavor for ArrayQueue {
    type Tx<T: Send + 'static> = QueueTx<crossbeam_queue::ArrayQueue<T>>;
    type Rx<T: Send + 'static> = QueueRx<crossbeam_queue::ArrayQueue<T>>;
    fn make<T: Send + 'static>() -> (Self::Tx<T>, Self::Rx<T>) {
        make_queue()
    }
}

/// One channel the section knows.
#[derive(Clone, Copy, Debug)]
pub struct ChannelEntry {
    /// Name on the command line and in tables.
    pub name: &'static str,
    /// Whether it is one of ours.
    pub ours: bool,
    /// Whether it takes several senders.
    pub multi_tx: bool,
    /// Whether it takes several receivers.
    pub multi_rx: bool,
    /// Whether a receive on an empty channel puts the thread to sleep (the queues and rings
    /// have no blocking receive: the workloads spin on them).
    pub blocks: bool,
    run: fn(&Spec) -> Result<Sample>,
}

macro_rules! entry {
    ($name:expr, $ours:expr, $tx:expr, $rx:expr, $blocks:expr, $f:ty) => {
        ChannelEntry {
            name: $name,
            ours: $ours,
            multi_tx: $tx,
            multi_rx: $rx,
            blocks: $blocks,
            run: run_flavor::<$f>,
        }
    };
}

/// Every channel, ours first.
pub fn channels() -> &'static [ChannelEntry] {
    const CHANNELS: &[ChannelEntry] = &[
        entry!("ours", true, true, true, true, Ours),
        entry!("ours-bounded", true, true, true, true, OursBounded),
        entry!("ours-spsc", true, false, false, true, OursSpsc),
        entry!("ours-shared", true, true, true, true, OursShared),
        entry!("crossbeam", false, true, true, true, Crossbeam),
        entry!(
            "crossbeam-bounded",
            false,
            true,
            true,
            true,
            CrossbeamBounded
        ),
        entry!("std", false, true, false, true, StdMpsc),
        entry!("flume", false, true, true, true, Flume),
        entry!("kanal", false, true, true, true, Kanal),
        entry!("rtrb", false, false, false, false, Rtrb),
        entry!("ringbuf", false, false, false, false, Ringbuf),
        entry!("crossbeam-queue", false, true, true, false, SegQueue),
        entry!("crossbeam-array", false, true, true, false, ArrayQueue),
    ];
    CHANNELS
}

/// The channels of quick mode.
pub const QUICK_CHANNELS: &[&str] = &[
    "ours",
    "ours-spsc",
    "crossbeam",
    "std",
    "flume",
    "kanal",
    "rtrb",
    "ringbuf",
];

/// The baselines that ratio columns are taken against, in order.
pub const RATIO_BASELINES: &[&str] = &["crossbeam", "rtrb", "ringbuf", "kanal"];

/// The variants of the W10 ablation: our channel plain, with an idle extra sender, with an idle
/// extra receiver, and with both.
pub const ABLATION: &[&str] = &["ours", "ours+tx", "ours+rx", "ours+tx+rx"];

/// One measurement of one channel.
type Runner = fn(&Spec) -> Result<Sample>;

/// The capacities of the `small` workload: a rendezvous channel and a one-slot channel.
pub const SMALL_CAPACITIES: [usize; 2] = [0, 1];

/// The channels of the `small` workload, each in its bounded form at every capacity of
/// [`SMALL_CAPACITIES`], in that order: ours (`bounded`), crossbeam-channel (`bounded`), flume
/// (`bounded`) and std (`sync_channel`).
const SMALL: &[(&str, [Runner; SMALL_CAPACITIES.len()])] = &[
    ("ours", [run_flavor::<OursCap<0>>, run_flavor::<OursCap<1>>]),
    (
        "crossbeam",
        [run_flavor::<CrossbeamCap<0>>, run_flavor::<CrossbeamCap<1>>],
    ),
    (
        "flume",
        [run_flavor::<FlumeCap<0>>, run_flavor::<FlumeCap<1>>],
    ),
    ("std", [run_flavor::<StdSync<0>>, run_flavor::<StdSync<1>>]),
];

/// The names of the `small` workload's channels, in table order.
pub fn small_channels() -> impl Iterator<Item = &'static str> {
    SMALL.iter().map(|(n, _)| *n)
}

/// The run of channel `name` in its bounded form of capacity `cap` (the `small` workload).
fn small_runner(name: &str, cap: usize) -> Result<Runner> {
    let slot = SMALL_CAPACITIES.iter().position(|&c| c == cap);
    SMALL
        .iter()
        .find(|(n, _)| *n == name)
        .zip(slot)
        .map(|((_, runs), i)| runs[i])
        .ok_or_else(|| {
            Error::new(format!(
                "{name}: no bounded({cap}) form in the small workload (channels: {}; \
                 capacities: {})",
                small_channels().collect::<Vec<_>>().join(", "),
                SMALL_CAPACITIES.map(|c| c.to_string()).join(", ")
            ))
        })
}

/// The channel called `name`, or an error listing the valid names.
pub fn channel_entry(name: &str) -> Result<&'static ChannelEntry> {
    channels()
        .iter()
        .find(|e| same_name(e.name, name))
        .ok_or_else(|| {
            let valid: Vec<&str> = channels().iter().map(|e| e.name).collect();
            Error::new(format!(
                "unknown channel {name:?}; valid channels: {}",
                valid.join(", ")
            ))
        })
}

// ---------------------------------------------------------------------------------------------
// Workloads.

/// The workloads of the section.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// SPSC hand-over at 8, 64 and 256 bytes.
    W1,
    /// Latency from each element's due time, producer on a schedule.
    W2,
    /// Three-stage pipeline of 64-byte records, grain sweep.
    W3,
    /// Batching, K = 1..1024.
    W7,
    /// Many threads: 2:1, 1:2, 2:2, 4:4 and pairwise.
    W9,
    /// Ablation of the claiming disciplines (our channel only).
    W10,
    /// Thread pool: one submitter, 1 to 8 workers.
    W11,
    /// Small bounded channels: bounded(0) and bounded(1), 1:1 and 8 senders : 1 receiver.
    Small,
    /// `select!` over 2 and 4 bounded channels, 1 and 2 producers each.
    Select,
    /// W1 at 8 bytes with both ends pinned to one CPU.
    Onecore,
    /// Memory after a burst: resident memory once 10^6 queued elements are drained, over the
    /// idle channel's.
    Memory,
    /// The first channel of a fresh process: one thread, and a receiver that sleeps.
    First,
}

impl Workload {
    /// The name used in ids and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Self::W1 => "w1",
            Self::W2 => "w2",
            Self::W3 => "w3",
            Self::W7 => "w7",
            Self::W9 => "w9",
            Self::W10 => "w10",
            Self::W11 => "w11",
            Self::Small => "small",
            Self::Select => "select",
            Self::Onecore => "onecore",
            Self::Memory => "memory",
            Self::First => "first",
        }
    }

    /// Every workload, in report order.
    pub const ALL: [Workload; 12] = [
        Self::W1,
        Self::W2,
        Self::W3,
        Self::W7,
        Self::W9,
        Self::W10,
        Self::W11,
        Self::Small,
        Self::Select,
        Self::Onecore,
        Self::Memory,
        Self::First,
    ];
}

/// What one measurement runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Spec {
    /// Channel name; for W10 with `+tx`/`+rx` suffixes (idle extra handles).
    pub channel: String,
    /// Workload name (`w1`, ...), for ids and errors.
    pub workload: String,
    /// Element size in bytes: 8, 64 or 256.
    pub bytes: usize,
    /// Producer threads (W11: the submitter).
    pub producers: usize,
    /// Consumer threads (W11: workers).
    pub consumers: usize,
    /// Pairwise: `producers` threads each send one element, then receive one.
    pub pairwise: bool,
    /// W2: elements per second the producer sends; 0 otherwise.
    pub rate: u64,
    /// W2: run the latency workload.
    pub latency: bool,
    /// W3: run the pipeline.
    pub pipeline: bool,
    /// Work per element per stage (W3) or per task (W11), iterations of the calibrated loop.
    pub work_iters: u64,
    /// Elements per send and per receive (W7); 1 otherwise.
    pub batch: usize,
    /// Pin every thread to one CPU.
    pub pin: bool,
    /// Most elements a producer keeps ahead of the consumers; 0: no limit.
    pub limit: u64,
    /// Length of the measured window, nanoseconds.
    pub duration_ns: u64,
    /// The memory workload: elements queued in the burst (0: another workload).
    #[serde(default)]
    pub burst: u64,
    /// The small workload: the channel in its bounded form of this capacity (0: rendezvous);
    /// `None`: the channel as its entry makes it.
    #[serde(default)]
    pub capacity: Option<usize>,
    /// The first workload: which first use of a fresh process's first channel to measure
    /// (`None`: another workload).
    #[serde(default)]
    pub first: Option<FirstUse>,
    /// The select workload: channels selected over (0: another workload).
    #[serde(default)]
    pub select: usize,
}

/// An element of `N` words: the tag (producer and sequence number) first, its complement last.
trait Elem: Send + 'static {
    fn make(tag: u64) -> Self;
    fn tag(&self) -> u64;
    fn intact(&self) -> bool;
}

impl<const N: usize> Elem for [u64; N] {
    #[inline(always)]
    fn make(tag: u64) -> Self {
        let mut a = [0u64; N];
        a[0] = tag;
        if N > 1 {
            a[N - 1] = !tag;
        }
        a
    }
    #[inline(always)]
    fn tag(&self) -> u64 {
        self[0]
    }
    #[inline(always)]
    fn intact(&self) -> bool {
        N == 1 || self[N - 1] == !self[0]
    }
}

/// What one consumer saw: per producer, how many elements and the sum of their numbers.
#[derive(Debug)]
struct Seen {
    last: Vec<Option<u64>>,
    counts: Vec<u64>,
    sums: Vec<u64>,
    total: u64,
    first_error: Option<String>,
}

impl Seen {
    fn new(producers: usize) -> Self {
        Self {
            last: vec![None; producers],
            counts: vec![0; producers],
            sums: vec![0; producers],
            total: 0,
            first_error: None,
        }
    }

    /// Records one element; checks its producer, its order and its payload.
    #[inline(always)]
    fn see<E: Elem>(&mut self, e: &E) {
        let tag = e.tag();
        let p = (tag >> SEQ_BITS) as usize;
        let seq = tag & ((1 << SEQ_BITS) - 1);
        self.total += 1;
        if p >= self.counts.len() || !e.intact() {
            self.error(format!("corrupt element (tag {tag:#x})"));
            return;
        }
        if self.last[p].is_some_and(|l| seq <= l) {
            self.error(format!(
                "producer {p}: element {seq} after {} (out of order or duplicated)",
                self.last[p].unwrap_or_default()
            ));
        }
        self.last[p] = Some(seq);
        self.counts[p] += 1;
        self.sums[p] = self.sums[p].wrapping_add(seq);
    }

    fn error(&mut self, msg: String) {
        if self.first_error.is_none() {
            self.first_error = Some(msg);
        }
    }
}

/// Checks that every producer's `sent[p]` elements (numbered 0..sent[p]) arrived exactly once.
fn verify(channel: &str, sent: &[u64], seen: &[Seen]) -> Result<()> {
    if let Some(e) = seen.iter().find_map(|s| s.first_error.as_ref()) {
        return Err(Error::new(format!("{channel}: {e}")));
    }
    for (p, &n) in sent.iter().enumerate() {
        let count: u64 = seen.iter().map(|s| s.counts[p]).sum();
        let sum = seen.iter().fold(0u64, |a, s| a.wrapping_add(s.sums[p]));
        let expected = if n == 0 { 0 } else { n * (n - 1) / 2 };
        if count != n || sum != expected {
            return Err(Error::new(format!(
                "{channel}: producer {p} sent {n} elements, {count} arrived \
                 (sequence sum {sum}, expected {expected})"
            )));
        }
    }
    Ok(())
}

/// Pins the calling thread to the first CPU this process may run on: Linux only.
#[cfg(not(target_os = "linux"))]
fn pin_to_first_cpu() -> Result<()> {
    Err(Error::new(
        "pinning a thread to a CPU is implemented on Linux only (sched_setaffinity)",
    ))
}

/// Pins the calling thread to the first CPU this process may run on.
#[cfg(target_os = "linux")]
fn pin_to_first_cpu() -> Result<()> {
    // SAFETY: cpu_set_t is a plain bit array, for which all zeroes is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    let size = std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: `set` is a valid, writable cpu_set_t of `size` bytes; pid 0 is this thread.
    if unsafe { libc::sched_getaffinity(0, size, &mut set) } != 0 {
        return Err(Error::new("sched_getaffinity failed"));
    }
    let cpu = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: `c` is below CPU_SETSIZE, so the bit read lies inside `set`.
        .find(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .ok_or_else(|| Error::new("no CPU in this process's affinity mask"))?;
    // SAFETY: `cpu` is below CPU_SETSIZE, so the bits written lie inside `set`.
    unsafe {
        libc::CPU_ZERO(&mut set);
        libc::CPU_SET(cpu, &mut set);
    }
    // SAFETY: `set` is a valid cpu_set_t of `size` bytes holding one CPU; pid 0 is this thread.
    if unsafe { libc::sched_setaffinity(0, size, &set) } != 0 {
        return Err(Error::new(format!("cannot pin a thread to CPU {cpu}")));
    }
    Ok(())
}

/// Sum of the consumers' published counts.
fn received(slots: &[CachePadded<AtomicU64>]) -> u64 {
    // Relaxed: an estimate for flow control and the window's count; nothing is read through it.
    slots.iter().map(|s| s.load(Ordering::Relaxed)).sum()
}

/// Opens the window when every thread is at the barrier, sleeps through it, raises the stop
/// flag; returns the window's length, the process's CPU time and context switches in it, and
/// what `at_stop` read right after the stop flag.
fn window(
    barrier: &Barrier,
    stop: &AtomicBool,
    duration_ns: u64,
    hw: &HwCounters,
    at_stop: impl FnOnce() -> u64,
) -> (f64, Rusage, u64) {
    barrier.wait();
    hw.enable();
    let ru0 = Rusage::now();
    let t0 = Instant::now();
    std::thread::sleep(Duration::from_nanos(duration_ns));
    // Relaxed: the flag only ends the loops; results travel back through `join`.
    stop.store(true, Ordering::Relaxed);
    let wall = t0.elapsed().as_secs_f64();
    let ops = at_stop();
    let ru = Rusage::now().since(&ru0);
    hw.disable();
    (wall, ru, ops)
}

fn sample(
    spec: &Spec,
    value: f64,
    ops: u64,
    wall_s: f64,
    ru: Rusage,
    hw: &HwCounters,
    per_thread: Vec<u64>,
) -> Sample {
    Sample {
        variant: spec.channel.clone(),
        value,
        ops,
        wall_s,
        cpu_s: ru.cpu_s,
        vcsw: ru.vcsw,
        ivcsw: ru.ivcsw,
        hw: hw.read(),
        per_thread,
        child: false,
        extra: BTreeMap::new(),
    }
}

fn panicked(spec: &Spec) -> Error {
    Error::new(format!(
        "{} {}: a thread panicked",
        spec.workload, spec.channel
    ))
}

/// The flow workloads (W1, W7, W9, W10, W11, one-core): producers send numbered elements until
/// the window closes, consumers receive until every sender is gone.
fn run_flow<F: Flavor, E: Elem>(spec: &Spec, extra_tx: bool, extra_rx: bool) -> Result<Sample> {
    let producers = spec.producers.max(1);
    let consumers = spec.consumers.max(1);
    let batch = spec.batch.max(1);
    let (tx, rx) = F::make::<E>();
    let single = || Error::new(format!("{}: one handle per side only", spec.channel));
    let mut txs = vec![tx];
    for _ in 1..producers + usize::from(extra_tx) {
        txs.push(txs[0].dup().ok_or_else(single)?);
    }
    let mut rxs = vec![rx];
    for _ in 1..consumers + usize::from(extra_rx) {
        rxs.push(rxs[0].dup().ok_or_else(single)?);
    }
    let idle_tx = if extra_tx { txs.pop() } else { None };
    let idle_rx = if extra_rx { rxs.pop() } else { None };
    let slots: Vec<CachePadded<AtomicU64>> = (0..consumers)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(producers + consumers + 1);
    let hw = HwCounters::open();
    let (slots, stop, barrier) = (&slots, &stop, &barrier);
    let limit = spec.limit;
    let (wall, ru, ops, sent, seen) = std::thread::scope(|s| {
        let prod: Vec<_> = txs
            .into_iter()
            .enumerate()
            .map(|(i, mut tx)| {
                s.spawn(move || {
                    let pinned = if spec.pin { pin_to_first_cpu() } else { Ok(()) };
                    let base = (i as u64) << SEQ_BITS;
                    let mut seq = 0u64;
                    let mut since_check = 0usize;
                    barrier.wait();
                    while !stop.load(Ordering::Relaxed) {
                        if batch == 1 {
                            tx.send(E::make(base | seq));
                            seq += 1;
                            since_check += 1;
                        } else {
                            tx.send_many((seq..seq + batch as u64).map(|k| E::make(base | k)));
                            seq += batch as u64;
                            since_check += batch;
                        }
                        if limit > 0 && since_check >= 64 {
                            since_check = 0;
                            let backoff = Backoff::new();
                            while (seq * producers as u64).saturating_sub(received(slots)) > limit
                                && !stop.load(Ordering::Relaxed)
                            {
                                backoff.snooze();
                            }
                        }
                    }
                    drop(tx);
                    pinned.map(|()| seq)
                })
            })
            .collect();
        let cons: Vec<_> = rxs
            .into_iter()
            .zip(slots.iter())
            .map(|(mut rx, slot)| {
                s.spawn(move || {
                    let pinned = if spec.pin { pin_to_first_cpu() } else { Ok(()) };
                    let mut seen = Seen::new(producers);
                    let mut buf = Vec::with_capacity(batch);
                    barrier.wait();
                    if batch == 1 {
                        while let Some(e) = rx.recv() {
                            seen.see(&e);
                            if spec.work_iters > 0 {
                                busy(spec.work_iters);
                            }
                            // Relaxed: a count for the window and the producers' flow control.
                            slot.store(seen.total, Ordering::Relaxed);
                        }
                    } else {
                        while rx.recv_many(&mut buf, batch) {
                            for e in buf.drain(..) {
                                seen.see(&e);
                            }
                            // Relaxed: as above.
                            slot.store(seen.total, Ordering::Relaxed);
                        }
                    }
                    pinned.map(|()| seen)
                })
            })
            .collect();
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || received(slots));
        drop(idle_tx);
        let sent: Vec<_> = prod.into_iter().map(|h| h.join()).collect();
        let seen: Vec<_> = cons.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, sent, seen)
    });
    drop(idle_rx);
    let sent: Vec<u64> = sent
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec))?)
        .collect::<Result<_>>()?;
    let seen: Vec<Seen> = seen
        .into_iter()
        .map(|r| r.map_err(|_| panicked(spec))?)
        .collect::<Result<_>>()?;
    verify(&spec.channel, &sent, &seen)?;
    let per_thread = seen.iter().map(|s| s.total).collect();
    let extra = BTreeMap::from([("sent_total".to_string(), sent.iter().sum::<u64>() as f64)]);
    Ok(Sample {
        extra,
        ..sample(
            spec,
            ops as f64 / wall / 1e6,
            ops,
            wall,
            ru,
            &hw,
            per_thread,
        )
    })
}

/// W9 pairwise: every thread sends one element, then receives one, on one shared channel.
fn run_pairwise<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let threads = spec.producers.max(1);
    let (tx, rx) = F::make::<[u64; 1]>();
    let single = || Error::new(format!("{}: one handle per side only", spec.channel));
    let mut ends = Vec::with_capacity(threads);
    for _ in 1..threads {
        ends.push((tx.dup().ok_or_else(single)?, rx.dup().ok_or_else(single)?));
    }
    ends.push((tx, rx));
    let slots: Vec<CachePadded<AtomicU64>> = (0..threads)
        .map(|_| CachePadded::new(AtomicU64::new(0)))
        .collect();
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(threads + 1);
    let hw = HwCounters::open();
    let (slots, stop, barrier) = (&slots, &stop, &barrier);
    let (wall, ru, ops, results) = std::thread::scope(|s| {
        let hs: Vec<_> = ends
            .into_iter()
            .zip(slots.iter())
            .enumerate()
            .map(|(i, ((mut tx, mut rx), slot))| {
                s.spawn(move || {
                    let base = (i as u64) << SEQ_BITS;
                    let mut seen = Seen::new(threads);
                    let mut seq = 0u64;
                    barrier.wait();
                    // Each thread has sent one more than it received before it receives, so
                    // the channel is never empty when a thread waits in `recv`.
                    while !stop.load(Ordering::Relaxed) {
                        tx.send(<[u64; 1]>::make(base | seq));
                        seq += 1;
                        match rx.recv() {
                            Some(e) => seen.see(&e),
                            None => seen.error("channel closed while senders live".into()),
                        }
                        // Relaxed: a count for the window.
                        slot.store(seen.total, Ordering::Relaxed);
                    }
                    (seq, seen)
                })
            })
            .collect();
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || received(slots));
        let results: Vec<_> = hs.into_iter().map(|h| h.join()).collect();
        (wall, ru, ops, results)
    });
    let mut sent = Vec::with_capacity(threads);
    let mut seen = Vec::with_capacity(threads);
    for r in results {
        let (n, s) = r.map_err(|_| panicked(spec))?;
        sent.push(n);
        seen.push(s);
    }
    verify(&spec.channel, &sent, &seen)?;
    let per_thread = seen.iter().map(|s| s.total).collect();
    Ok(sample(
        spec,
        ops as f64 / wall / 1e6,
        ops,
        wall,
        ru,
        &hw,
        per_thread,
    ))
}

/// The `q` quantile (0..=1) of sorted `v`, by the nearest rank.
fn quantile(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64
}

/// W2: the producer sends element `i` at `start + i / rate`; the consumer records, for each, the
/// time from its due time to its arrival.
fn run_latency<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let rate = spec.rate.max(1);
    let period_ns = 1e9 / rate as f64;
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    let origin = Instant::now();
    let start_ns = AtomicU64::new(0);
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(3);
    let hw = HwCounters::open();
    let (slot, stop, barrier, start_ns) = (&slot, &stop, &barrier, &start_ns);
    let expected = (spec.duration_ns as f64 / period_ns) as usize + 16;
    let (wall, ru, ops, sent, got) = std::thread::scope(|s| {
        let prod = s.spawn(move || {
            barrier.wait();
            let start = origin.elapsed().as_nanos() as u64;
            // Relaxed: the consumer reads it after receiving an element sent after this store.
            start_ns.store(start, Ordering::Relaxed);
            let mut seq = 0u64;
            // The first element goes out even if the window has closed, so there is always a
            // latency to report.
            while seq == 0 || !stop.load(Ordering::Relaxed) {
                let due = start + (seq as f64 * period_ns) as u64;
                loop {
                    let now = origin.elapsed().as_nanos() as u64;
                    if now >= due || stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // Far ahead: sleep; near: give the core away (the consumer may share
                    // it); within 20 us: spin.
                    if due - now > 200_000 {
                        std::thread::sleep(Duration::from_nanos(due - now - 100_000));
                    } else if due - now > 20_000 {
                        std::thread::yield_now();
                    } else {
                        std::hint::spin_loop();
                    }
                }
                tx.send([seq]);
                seq += 1;
            }
            drop(tx);
            seq
        });
        let cons = s.spawn(move || {
            let mut seen = Seen::new(1);
            let mut lat = Vec::with_capacity(expected);
            barrier.wait();
            while let Some(e) = rx.recv() {
                let now = origin.elapsed().as_nanos() as u64;
                seen.see(&e);
                // Relaxed: see the producer's store.
                let start = start_ns.load(Ordering::Relaxed);
                let due = start + (e[0] as f64 * period_ns) as u64;
                lat.push(now.saturating_sub(due));
                // Relaxed: a count for the window.
                slot.store(seen.total, Ordering::Relaxed);
            }
            (seen, lat)
        });
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || {
            slot.load(Ordering::Relaxed)
        });
        (wall, ru, ops, prod.join(), cons.join())
    });
    let sent = sent.map_err(|_| panicked(spec))?;
    let (seen, mut lat) = got.map_err(|_| panicked(spec))?;
    verify(&spec.channel, &[sent], std::slice::from_ref(&seen))?;
    lat.sort_unstable();
    let median = quantile(&lat, 0.5);
    let extra = BTreeMap::from([
        ("p50_ns".to_string(), median),
        ("p99_ns".to_string(), quantile(&lat, 0.99)),
        ("max_ns".to_string(), quantile(&lat, 1.0)),
        ("rate_per_s".to_string(), rate as f64),
        ("achieved_per_s".to_string(), ops as f64 / wall),
    ]);
    Ok(Sample {
        extra,
        ..sample(spec, median, sent, wall, ru, &hw, vec![sent])
    })
}

/// W3: source → transform → sink over two channels, 64-byte records, `work_iters` of work per
/// record in every stage.
fn run_pipeline<F: Flavor>(spec: &Spec) -> Result<Sample> {
    type Rec = [u64; 8];
    let (mut tx1, mut rx1) = F::make::<Rec>();
    let (mut tx2, mut rx2) = F::make::<Rec>();
    let work = spec.work_iters;
    let limit = spec.limit;
    let slot = CachePadded::new(AtomicU64::new(0));
    let stop = AtomicBool::new(false);
    let barrier = Barrier::new(4);
    let hw = HwCounters::open();
    let (slot, stop, barrier) = (&slot, &stop, &barrier);
    let (wall, ru, ops, sent, mid, sink) = std::thread::scope(|s| {
        let source = s.spawn(move || {
            let mut seq = 0u64;
            barrier.wait();
            while !stop.load(Ordering::Relaxed) {
                if work > 0 {
                    busy(work);
                }
                let mut r = Rec::make(seq);
                r[1] = seq.wrapping_mul(3);
                tx1.send(r);
                seq += 1;
                if limit > 0 && seq.is_multiple_of(64) {
                    let backoff = Backoff::new();
                    // Relaxed: flow control only.
                    while seq.saturating_sub(slot.load(Ordering::Relaxed)) > limit
                        && !stop.load(Ordering::Relaxed)
                    {
                        backoff.snooze();
                    }
                }
            }
            drop(tx1);
            seq
        });
        let middle = s.spawn(move || {
            let mut n = 0u64;
            barrier.wait();
            while let Some(mut r) = rx1.recv() {
                if work > 0 {
                    busy(work);
                }
                r[2] = r[1] ^ 0x5555_5555_5555_5555;
                tx2.send(r);
                n += 1;
            }
            drop(tx2);
            n
        });
        let sink = s.spawn(move || {
            let mut seen = Seen::new(1);
            barrier.wait();
            while let Some(r) = rx2.recv() {
                if work > 0 {
                    busy(work);
                }
                seen.see(&r);
                if r[1] != r[0].wrapping_mul(3) || r[2] != r[1] ^ 0x5555_5555_5555_5555 {
                    seen.error(format!("record {} altered on the way", r[0]));
                }
                // Relaxed: a count for the window and the source's flow control.
                slot.store(seen.total, Ordering::Relaxed);
            }
            seen
        });
        let (wall, ru, ops) = window(barrier, stop, spec.duration_ns, &hw, || {
            slot.load(Ordering::Relaxed)
        });
        (wall, ru, ops, source.join(), middle.join(), sink.join())
    });
    let sent = sent.map_err(|_| panicked(spec))?;
    let mid = mid.map_err(|_| panicked(spec))?;
    let seen = sink.map_err(|_| panicked(spec))?;
    if mid != sent {
        return Err(Error::new(format!(
            "{}: the middle stage passed {mid} of {sent} records",
            spec.channel
        )));
    }
    verify(&spec.channel, &[sent], std::slice::from_ref(&seen))?;
    Ok(sample(
        spec,
        ops as f64 / wall / 1e6,
        ops,
        wall,
        ru,
        &hw,
        vec![sent, mid, seen.total],
    ))
}

/// Resident memory after a burst: queue `spec.burst` 8-byte elements on one thread, drain them
/// all, and compare the process's resident memory with what it was with the channel idle.
/// Runs in a child process of its own (resident memory is the whole process's).
fn run_memory<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let rss = || {
        crate::alloc::resident_kib()
            .map(|k| k as f64)
            .ok_or_else(|| Error::new("cannot read /proc/self/statm"))
    };
    let (mut tx, mut rx) = F::make::<[u64; 1]>();
    // One element through, so that the idle channel holds whatever it keeps when idle.
    if !tx.send([0]) || rx.try_recv().is_none() {
        return Err(Error::new(format!(
            "{}: the first element did not come through",
            spec.channel
        )));
    }
    let idle = rss()?;
    let t0 = Instant::now();
    for i in 0..spec.burst {
        if !tx.send([i]) {
            return Err(Error::new(format!(
                "{}: send {i} of the burst failed",
                spec.channel
            )));
        }
    }
    let peak = rss()?;
    let mut sum = 0u64;
    for i in 0..spec.burst {
        match rx.try_recv() {
            Some([v]) if v == i => sum = sum.wrapping_add(v),
            Some([v]) => {
                return Err(Error::new(format!(
                    "{}: element {i} of the burst came out as {v}",
                    spec.channel
                )));
            }
            None => {
                return Err(Error::new(format!(
                    "{}: element {i} of the burst is missing",
                    spec.channel
                )));
            }
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    if rx.try_recv().is_some() {
        return Err(Error::new(format!(
            "{}: an element came out twice",
            spec.channel
        )));
    }
    let drained = rss()?;
    // Allocators that purge on a timer (mimalloc) get a moment to do it.
    std::thread::sleep(Duration::from_millis(200));
    let settled = rss()?;
    drop((tx, rx));
    Ok(Sample {
        variant: spec.channel.clone(),
        value: drained / idle,
        ops: spec.burst,
        wall_s: wall,
        extra: BTreeMap::from([
            ("idle_kib".to_string(), idle),
            ("peak_kib".to_string(), peak),
            ("drained_kib".to_string(), drained),
            ("settled_kib".to_string(), settled),
            ("settled_ratio".to_string(), settled / idle),
            ("checksum".to_string(), sum as f64),
        ]),
        ..Default::default()
    })
}

/// Splits W10's `+tx`/`+rx` suffixes off a channel name.
fn split_ablation(name: &str) -> (&str, bool, bool) {
    let base = name.split('+').next().unwrap_or(name);
    let tx = name.split('+').skip(1).any(|s| s == "tx");
    let rx = name.split('+').skip(1).any(|s| s == "rx");
    (base, tx, rx)
}

fn run_flavor<F: Flavor>(spec: &Spec) -> Result<Sample> {
    let (_, extra_tx, extra_rx) = split_ablation(&spec.channel);
    if let Some(how) = spec.first {
        first::run_first::<F>(spec, how)
    } else if spec.burst > 0 {
        run_memory::<F>(spec)
    } else if spec.latency {
        run_latency::<F>(spec)
    } else if spec.pipeline {
        run_pipeline::<F>(spec)
    } else if spec.pairwise {
        run_pairwise::<F>(spec)
    } else {
        match spec.bytes {
            8 => run_flow::<F, [u64; 1]>(spec, extra_tx, extra_rx),
            64 => run_flow::<F, [u64; 8]>(spec, extra_tx, extra_rx),
            256 => run_flow::<F, [u64; 32]>(spec, extra_tx, extra_rx),
            b => Err(Error::new(format!("element size {b} B: use 8, 64 or 256"))),
        }
    }
}

/// Runs one measurement of `spec` in this process.
pub fn run_spec(spec: &Spec) -> Result<Sample> {
    let (name, allocator) = split_allocator(&spec.channel);
    if let Some(a) = allocator
        && a != crate::alloc::current()
    {
        return Err(Error::new(format!(
            "{}: this process runs on the {} allocator (set {}={a} in its environment)",
            spec.channel,
            crate::alloc::current(),
            crate::alloc::ALLOCATOR_VAR
        )));
    }
    let (base, extra_tx, extra_rx) = split_ablation(name);
    let e = channel_entry(base)?;
    if (extra_tx || extra_rx) && !e.ours {
        return Err(Error::new(format!(
            "{}: extra handles are for our channel only",
            spec.channel
        )));
    }
    let run = match spec.capacity {
        _ if spec.select > 0 => select::run_select,
        Some(cap) => small_runner(base, cap)?,
        None => e.run,
    };
    let mut s = run(spec)?;
    s.variant = spec.channel.clone();
    Ok(s)
}

// ---------------------------------------------------------------------------------------------
// Options and plan.

/// Options of `welltempered channel` (lists are comma-separated).
#[derive(Args, Clone, Debug, Default)]
pub struct ChannelArgs {
    /// Workloads [default: all; quick: w1,w9,w10,small,onecore,memory,first with fewer cells].
    #[arg(long, value_delimiter = ',', value_enum)]
    pub workloads: Option<Vec<Workload>>,
    /// Channels [default: all; quick: a subset]. Unknown names list the valid ones.
    #[arg(long, value_delimiter = ',')]
    pub channels: Option<Vec<String>>,
    /// Measured window of each run, e.g. 200ms, 1.5s or 1m [default: 200ms; quick: 100ms].
    #[arg(long, value_parser = parse_duration)]
    pub duration: Option<Duration>,
    /// Repetitions (each runs every channel once) [default: 5; quick: 3].
    #[arg(long, value_parser = parse_positive)]
    pub reps: Option<usize>,
    /// Run every measurement in a child process.
    #[arg(long)]
    pub isolate: bool,
    /// Allocators for the workloads whose elements go through the heap (W1, W11, memory):
    /// system, mimalloc, jemalloc. A channel under a non-system allocator runs in a child process
    /// as `<channel>@<allocator>` [default: system,mimalloc,jemalloc; quick: system].
    #[arg(long, value_delimiter = ',')]
    pub allocators: Option<Vec<String>>,
    /// Foreign load beside the measurements, one or more levels: N (N busy processes spinning,
    /// not pinned; 0: none) or mixed (one process starting and joining short-lived threads that
    /// do a little work each, as a parallel build does). Every group runs once per level, the
    /// load processes started before its measurement and stopped after it [default: 0; quick:
    /// 0,2 for small, 0 for the other workloads].
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_load)]
    pub load: Option<Vec<Load>>,
}

/// The options in effect after defaults.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// Channels in table order.
    pub channels: Vec<String>,
    /// Workloads in report order.
    pub workloads: Vec<Workload>,
    /// Quick mode: fewer cells per workload.
    pub quick: bool,
    /// Window per run, nanoseconds.
    pub duration_ns: u64,
    /// Repetitions.
    pub reps: usize,
    /// Whether runs go to child processes.
    pub isolate: bool,
    /// Calibrated busy-loop iterations per nanosecond.
    pub busy_iters_per_ns: f64,
    /// Allocators of the heap-bound workloads; `system` first.
    #[serde(default)]
    pub allocators: Vec<String>,
    /// Load levels of every workload but `small`, in order.
    #[serde(default = "quiet_only")]
    pub load: Vec<Load>,
    /// Load levels of the `small` workload, in order.
    #[serde(default = "quiet_only")]
    pub load_small: Vec<Load>,
}

fn quiet_only() -> Vec<Load> {
    vec![Load::QUIET]
}

impl Plan {
    /// The load levels the workload called `workload` runs under, in order.
    pub fn loads(&self, workload: &str) -> &[Load] {
        if workload == Workload::Small.name() {
            &self.load_small
        } else {
            &self.load
        }
    }
}

impl ChannelArgs {
    /// Applies the defaults (quick or full) and validates the names.
    pub fn plan(&self, quick: bool) -> Result<Plan> {
        let channels: Vec<String> = match &self.channels {
            Some(l) => {
                let mut out: Vec<String> = Vec::new();
                for given in l.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
                    let name = channel_entry(given)?.name;
                    if !out.iter().any(|o| o == name) {
                        out.push(name.to_string());
                    }
                }
                if out.is_empty() {
                    return Err(Error::new("--channels names no channel"));
                }
                out
            }
            None if quick => QUICK_CHANNELS.iter().map(|n| n.to_string()).collect(),
            None => channels().iter().map(|e| e.name.to_string()).collect(),
        };
        let mut workloads = self.workloads.clone().unwrap_or_else(|| {
            if quick {
                vec![
                    Workload::W1,
                    Workload::W9,
                    Workload::W10,
                    Workload::Small,
                    Workload::Onecore,
                    Workload::Memory,
                    Workload::First,
                ]
            } else {
                Workload::ALL.to_vec()
            }
        });
        workloads.sort_by_key(|w| Workload::ALL.iter().position(|a| a == w));
        workloads.dedup();
        let duration =
            self.duration
                .unwrap_or(Duration::from_millis(if quick { 100 } else { 200 }));
        if duration.is_zero() {
            return Err(Error::new("--duration must be more than 0"));
        }
        let mut allocators = vec!["system".to_string()];
        let chosen: Vec<String> = match &self.allocators {
            Some(a) => a.iter().map(|s| s.trim().to_string()).collect(),
            None if quick => Vec::new(),
            None => crate::alloc::ALLOCATORS
                .iter()
                .map(|s| s.to_string())
                .collect(),
        };
        for a in chosen.into_iter().filter(|a| !a.is_empty()) {
            if !crate::alloc::ALLOCATORS.contains(&a.as_str()) {
                return Err(Error::new(format!(
                    "unknown allocator {a:?}; valid allocators: {}",
                    crate::alloc::ALLOCATORS.join(", ")
                )));
            }
            if !allocators.contains(&a) {
                allocators.push(a);
            }
        }
        let (load, load_small) = match &self.load {
            Some(levels) => {
                let mut out: Vec<Load> = Vec::new();
                for &l in levels {
                    if !out.contains(&l) {
                        out.push(l);
                    }
                }
                if out.is_empty() {
                    return Err(Error::new("--load names no load level"));
                }
                (out.clone(), out)
            }
            None if quick => (quiet_only(), vec![Load::QUIET, Load::Busy(2)]),
            None => (quiet_only(), quiet_only()),
        };
        Ok(Plan {
            allocators,
            channels,
            load,
            load_small,
            workloads,
            quick,
            duration_ns: duration.as_nanos() as u64,
            reps: self.reps.unwrap_or(if quick { 3 } else { 5 }),
            isolate: self.isolate,
            busy_iters_per_ns: busy_iters_per_ns(),
        })
    }
}

fn fmt_ns(ns: u64) -> String {
    match ns {
        0 => "0".to_string(),
        n if n % 1_000_000 == 0 => format!("{}ms", n / 1_000_000),
        n if n % 1000 == 0 => format!("{}us", n / 1000),
        n => format!("{n}ns"),
    }
}

/// One group of the plan, not yet run.
#[derive(Clone, Debug)]
pub struct Cell {
    /// The group (no repetitions yet).
    pub group: Group,
    /// The measurement, less its channel.
    pub spec: Spec,
    /// The foreign load beside the measurement.
    pub load: Load,
}

/// The section's groups, not yet run. Channels that cannot take a cell's topology (several
/// senders or receivers) are left out of it; a cell with no channel left is dropped.
pub fn groups(plan: &Plan) -> Vec<Cell> {
    let q = plan.quick;
    let iters = |ns: u64| {
        if ns == 0 {
            0
        } else {
            ((ns as f64 * plan.busy_iters_per_ns).round() as u64).max(1)
        }
    };
    let base = Spec {
        channel: String::new(),
        workload: String::new(),
        bytes: 8,
        producers: 1,
        consumers: 1,
        batch: 1,
        limit: IN_FLIGHT,
        duration_ns: plan.duration_ns,
        ..Spec::default()
    };
    let throughput = Metric {
        unit: "M/s".into(),
        higher_is_better: true,
        op: "elem".into(),
    };
    let mut out = Vec::new();
    let mut push = |w: Workload,
                    id: String,
                    title: String,
                    x: Option<serde_json::Value>,
                    mut params: BTreeMap<String, serde_json::Value>,
                    metric: &Metric,
                    spec: Spec,
                    variants: Vec<String>| {
        if variants.is_empty() {
            return;
        }
        params.insert("workload".into(), serde_json::json!(w.name()));
        if let Some(x) = x {
            params.insert("x".into(), x);
        }
        out.push(Cell {
            group: Group {
                id,
                title,
                params,
                metric: metric.clone(),
                variants,
                reps: Vec::new(),
            },
            spec: Spec {
                workload: w.name().into(),
                ..spec
            },
            load: Load::QUIET,
        });
    };
    let fit = |multi_tx: bool, multi_rx: bool| -> Vec<String> {
        plan.channels
            .iter()
            .filter(|c| {
                channel_entry(c)
                    .map(|e| (e.multi_tx || !multi_tx) && (e.multi_rx || !multi_rx))
                    .unwrap_or(false)
            })
            .cloned()
            .collect()
    };
    for &w in &plan.workloads {
        match w {
            Workload::W1 => {
                let sizes: &[usize] = if q { &[8, 64] } else { &[8, 64, 256] };
                for &b in sizes {
                    push(
                        w,
                        format!("w1/{b}B"),
                        format!("W1 SPSC hand-over, {b}-byte elements"),
                        Some(serde_json::json!(b)),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            bytes: b,
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W2 => {
                let rates: &[u64] = if q {
                    &[100_000]
                } else {
                    &[10_000, 100_000, 1_000_000]
                };
                let metric = Metric {
                    unit: "ns".into(),
                    higher_is_better: false,
                    op: "elem".into(),
                };
                for &r in rates {
                    push(
                        w,
                        format!("w2/rate={r}"),
                        format!("W2 latency from due time (median; p99 in extra), {r}/s"),
                        Some(serde_json::json!(r)),
                        BTreeMap::new(),
                        &metric,
                        Spec {
                            rate: r,
                            latency: true,
                            limit: 0,
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W3 => {
                let grains: &[u64] = if q {
                    &[0, 10_000]
                } else {
                    &[0, 1_000, 10_000, 100_000, 1_000_000]
                };
                for &g in grains {
                    push(
                        w,
                        format!("w3/grain={}", fmt_ns(g)),
                        format!(
                            "W3 three-stage pipeline, 64-byte records, {} per stage",
                            fmt_ns(g)
                        ),
                        Some(serde_json::json!(g)),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            bytes: 64,
                            pipeline: true,
                            work_iters: iters(g),
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W7 => {
                let ks: &[usize] = if q {
                    &[1, 64]
                } else {
                    &[1, 4, 16, 64, 256, 1024]
                };
                for &k in ks {
                    push(
                        w,
                        format!("w7/k={k}"),
                        format!("W7 batching, {k} elements per send and per receive"),
                        Some(serde_json::json!(k)),
                        BTreeMap::new(),
                        &throughput,
                        Spec {
                            batch: k,
                            limit: IN_FLIGHT.max(4 * k as u64),
                            ..base.clone()
                        },
                        fit(false, false),
                    );
                }
            }
            Workload::W9 => {
                let shapes: &[(usize, usize)] = if q {
                    &[(2, 1), (2, 2)]
                } else {
                    &[(2, 1), (1, 2), (2, 2), (4, 4)]
                };
                for &(p, c) in shapes {
                    push(
                        w,
                        format!("w9/{p}:{c}"),
                        format!("W9 {p} producers, {c} consumers"),
                        None,
                        BTreeMap::from([(
                            "shape".to_string(),
                            serde_json::json!(format!("{p}:{c}")),
                        )]),
                        &throughput,
                        Spec {
                            producers: p,
                            consumers: c,
                            ..base.clone()
                        },
                        fit(p > 1, c > 1),
                    );
                }
                if !q {
                    push(
                        w,
                        "w9/pairwise-4".into(),
                        "W9 pairwise: 4 threads each send one, then receive one".into(),
                        None,
                        BTreeMap::from([("shape".to_string(), serde_json::json!("pairwise-4"))]),
                        &throughput,
                        Spec {
                            producers: 4,
                            consumers: 4,
                            pairwise: true,
                            limit: 0,
                            ..base.clone()
                        },
                        fit(true, true),
                    );
                }
            }
            Workload::W10 => {
                if plan.channels.iter().any(|c| c == "ours") {
                    let mut variants: Vec<String> =
                        ABLATION.iter().map(|s| s.to_string()).collect();
                    if plan.channels.iter().any(|c| c == "crossbeam") {
                        variants.push("crossbeam".into());
                    }
                    push(
                        w,
                        "w10".into(),
                        "W10 ablation, 1:1: plain, shared producer side (+tx), shared consumer \
                         side (+rx), both"
                            .into(),
                        None,
                        BTreeMap::new(),
                        &throughput,
                        base.clone(),
                        variants,
                    );
                }
            }
            Workload::W11 => {
                let workers: &[usize] = if q { &[2] } else { &[1, 2, 4, 8] };
                let tasks: &[u64] = if q { &[100] } else { &[0, 100, 1000] };
                for &t in tasks {
                    for &n in workers {
                        push(
                            w,
                            format!("w11/task={}/workers={n}", fmt_ns(t)),
                            format!(
                                "W11 thread pool, 1 submitter, {n} workers, {} tasks",
                                fmt_ns(t)
                            ),
                            Some(serde_json::json!(n)),
                            BTreeMap::from([("task_ns".to_string(), serde_json::json!(t))]),
                            &throughput,
                            Spec {
                                consumers: n,
                                work_iters: iters(t),
                                limit: POOL_IN_FLIGHT,
                                ..base.clone()
                            },
                            fit(false, n > 1),
                        );
                    }
                }
            }
            Workload::Small => {
                for cap in SMALL_CAPACITIES {
                    let kind = if cap == 0 {
                        "rendezvous bounded(0)".to_string()
                    } else {
                        format!("bounded({cap})")
                    };
                    for senders in [1usize, 8] {
                        let variants = fit(senders > 1, false)
                            .into_iter()
                            .filter(|c| small_channels().any(|s| s == c.as_str()))
                            .collect();
                        push(
                            w,
                            format!("small/cap={cap}/{senders}:1"),
                            format!(
                                "small: {kind}, {senders} sender{} : 1 receiver",
                                if senders == 1 { "" } else { "s" }
                            ),
                            Some(serde_json::json!(senders)),
                            BTreeMap::from([("capacity".to_string(), serde_json::json!(cap))]),
                            &throughput,
                            Spec {
                                producers: senders,
                                consumers: 1,
                                capacity: Some(cap),
                                limit: 0,
                                ..base.clone()
                            },
                            variants,
                        );
                    }
                }
            }
            Workload::Select => {
                for k in SELECT_WIDTHS {
                    for per_channel in [1usize, 2] {
                        let variants = plan
                            .channels
                            .iter()
                            .filter(|c| SELECT_CHANNELS.contains(&c.as_str()))
                            .cloned()
                            .collect();
                        push(
                            w,
                            format!("select/{k}ch/{per_channel}p"),
                            format!(
                                "select! over {k} bounded({BOUND}) channels, {per_channel} \
                                 producer{} each : 1 selecting consumer",
                                if per_channel == 1 { "" } else { "s" }
                            ),
                            Some(serde_json::json!(per_channel)),
                            BTreeMap::from([("channels".to_string(), serde_json::json!(k))]),
                            &throughput,
                            Spec {
                                producers: per_channel,
                                consumers: 1,
                                select: k,
                                limit: 0,
                                ..base.clone()
                            },
                            variants,
                        );
                    }
                }
            }
            Workload::Memory => {
                let metric = Metric {
                    unit: "x idle".into(),
                    higher_is_better: false,
                    op: "burst".into(),
                };
                push(
                    w,
                    "memory/burst=1e6".into(),
                    "memory: resident memory after 10^6 queued 8-byte elements are drained, over \
                     the idle channel's (whole process)"
                        .into(),
                    None,
                    BTreeMap::new(),
                    &metric,
                    Spec {
                        burst: 1_000_000,
                        ..base.clone()
                    },
                    plan.channels
                        .iter()
                        .filter(|c| HEAP_CHANNELS.contains(&c.as_str()))
                        .cloned()
                        .collect(),
                );
            }
            Workload::First => {
                let metric = Metric {
                    unit: "us".into(),
                    higher_is_better: false,
                    op: "channel".into(),
                };
                for how in FirstUse::ALL {
                    push(
                        w,
                        format!("first/{}", how.name()),
                        how.title(),
                        None,
                        BTreeMap::from([("first".to_string(), serde_json::json!(how.name()))]),
                        &metric,
                        Spec {
                            first: Some(how),
                            limit: 0,
                            ..base.clone()
                        },
                        plan.channels
                            .iter()
                            .filter(|c| {
                                how == FirstUse::OneThread
                                    || channel_entry(c).is_ok_and(|e| e.blocks)
                            })
                            .cloned()
                            .collect(),
                    );
                }
            }
            Workload::Onecore => {
                push(
                    w,
                    "onecore/8B".into(),
                    "one core: W1 at 8 bytes, both ends pinned to one CPU".into(),
                    None,
                    BTreeMap::new(),
                    &throughput,
                    Spec {
                        pin: true,
                        ..base.clone()
                    },
                    fit(false, false),
                );
            }
        }
    }
    // The allocator factor: the heap-bound channels again under each other allocator.
    for cell in &mut out {
        if !matches!(cell.spec.workload.as_str(), "w1" | "w11" | "memory") {
            continue;
        }
        let heap: Vec<String> = cell
            .group
            .variants
            .iter()
            .filter(|v| HEAP_CHANNELS.contains(&v.as_str()))
            .cloned()
            .collect();
        for a in plan.allocators.iter().filter(|a| *a != "system") {
            for v in &heap {
                cell.group.variants.push(format!("{v}@{a}"));
            }
        }
    }
    // The load factor: each cell once per load level of its workload, its levels one after the
    // other. The quiet group keeps the cell's id.
    let mut loaded = Vec::with_capacity(out.len());
    for cell in out {
        let levels = plan.loads(&cell.spec.workload);
        let marked = levels.iter().any(|l| !l.is_quiet());
        for &load in levels {
            let mut c = cell.clone();
            c.group
                .params
                .insert("load".into(), serde_json::json!(load.to_string()));
            if !load.is_quiet() {
                c.group.id.push_str(&format!("/load={load}"));
            }
            if marked {
                c.group.title.push_str(&format!(", {}", load.describe()));
            }
            c.load = load;
            loaded.push(c);
        }
    }
    loaded
}

/// The channels whose elements or segments go through the heap as they flow (unbounded lists
/// and deques): the allocator factor and the memory workload apply to them.
pub const HEAP_CHANNELS: &[&str] = &[
    "ours",
    "crossbeam",
    "std",
    "flume",
    "kanal",
    "crossbeam-queue",
];

/// Splits an `@allocator` suffix off a variant name.
pub fn split_allocator(name: &str) -> (&str, Option<&str>) {
    match name.split_once('@') {
        Some((c, a)) => (c, Some(a)),
        None => (name, None),
    }
}

/// Runs every group of the plan.
pub fn run_plan(plan: &Plan, progress: &Progress) -> Result<Section> {
    let cells = groups(plan);
    progress.add_steps(
        cells
            .iter()
            .map(|c| (plan.reps * c.group.variants.len()) as u64)
            .sum(),
    );
    let mut done = Vec::with_capacity(cells.len());
    for Cell {
        mut group,
        spec,
        load,
    } in cells
    {
        progress.stage(&group.id);
        // Started before the group's measurement; dropping it (after the group, on an error or
        // a panic) kills and reaps the load processes.
        let load_guard = LoadGuard::start(load)?;
        group.reps = harness::run_paired(&group.variants, plan.reps, progress, |ch| {
            progress.message(&format!("{} {ch}", group.id));
            let spec = Spec {
                channel: ch.to_string(),
                ..spec.clone()
            };
            let (_, allocator) = split_allocator(ch);
            if plan.isolate || allocator.is_some() || spec.burst > 0 || spec.first.is_some() {
                harness::run_in_child_env(
                    "channel",
                    &serde_json::to_value(&spec).unwrap_or_default(),
                    &[(crate::alloc::ALLOCATOR_VAR, allocator.unwrap_or("system"))],
                )
            } else {
                run_spec(&spec)
            }
        })?;
        drop(load_guard);
        done.push(group);
    }
    Ok(Section {
        name: "channel".into(),
        title: "WTC channel workloads".into(),
        baselines: RATIO_BASELINES
            .iter()
            .filter(|b| plan.channels.iter().any(|c| c == *b))
            .map(|b| b.to_string())
            .collect(),
        sweep: Some("x".into()),
        config: serde_json::to_value(plan).unwrap_or_default(),
        groups: done,
    })
}

/// The channel section.
#[derive(Clone, Copy, Debug)]
pub struct ChannelBench;

impl Suite for ChannelBench {
    fn name(&self) -> &'static str {
        "channel"
    }

    fn help_after(&self) -> String {
        let names: Vec<&str> = channels().iter().map(|e| e.name).collect();
        let time = |quick| {
            let plan = ChannelArgs::default().plan(quick).ok()?;
            let ns: u64 = groups(&plan)
                .iter()
                .map(|c| (plan.reps * c.group.variants.len()) as u64 * c.spec.duration_ns)
                .sum();
            Some(Duration::from_nanos(ns))
        };
        format!(
            "{}\n\n{}",
            super::names_paragraph("Channels (--channels)", &names),
            super::run_time_paragraph(time(false), time(true))
        )
    }

    fn about(&self) -> &'static str {
        "WTC channel workloads: SPSC hand-over, latency, pipeline, batching, many threads, \
         ablation, thread pool, small bounded channels, one core; against crossbeam, std, flume, \
         kanal, rtrb, ringbuf; optionally under foreign load (--load)"
    }

    fn args(&self, cmd: clap::Command) -> clap::Command {
        ChannelArgs::augment_args(cmd)
    }

    fn run(&self, args: &ArgMatches, ctx: &Ctx<'_>) -> Result<Section> {
        let a = ChannelArgs::from_arg_matches(args).map_err(|e| Error::usage(e.to_string()))?;
        run_plan(&a.plan(ctx.quick).map_err(Error::into_usage)?, ctx.progress)
    }

    fn run_child(&self, spec: &serde_json::Value) -> Result<Sample> {
        let spec: Spec = serde_json::from_value(spec.clone())
            .map_err(|e| Error::new(format!("bad channel spec: {e}")))?;
        run_spec(&spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> std::result::Result<ChannelArgs, clap::Error> {
        let cmd = ChannelBench.args(clap::Command::new("channel"));
        let m = cmd.try_get_matches_from(std::iter::once("channel").chain(args.iter().copied()))?;
        ChannelArgs::from_arg_matches(&m)
    }

    /// A window short enough for tests (and for Miri).
    fn tiny_ns() -> u64 {
        if cfg!(miri) { 50_000 } else { 2_000_000 }
    }

    #[test]
    fn cli_accepts_the_documented_form() {
        let a = parse(&[
            "--workloads",
            "w10,w1,w9",
            "--channels",
            "ours,crossbeam,rtrb",
            "--duration",
            "150ms",
            "--reps",
            "4",
        ])
        .unwrap();
        let p = a.plan(false).unwrap();
        assert_eq!(p.channels, ["ours", "crossbeam", "rtrb"]);
        // Report order, whatever the command line's order.
        assert_eq!(p.workloads, [Workload::W1, Workload::W9, Workload::W10]);
        assert_eq!(p.duration_ns, 150_000_000);
        assert_eq!(p.reps, 4);
        assert!(!p.quick);
    }

    #[test]
    fn cli_rejects_bad_values() {
        assert!(parse(&["--workloads", "w4"]).is_err());
        assert!(parse(&["--reps", "0"]).is_err());
        assert!(parse(&["--reps", "x"]).is_err());
        assert!(parse(&["--duration", "100"]).is_err());
        assert!(parse(&["--bogus"]).is_err());
        let err = parse(&["--channels", "ours,nosuch"])
            .unwrap()
            .plan(false)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("nosuch") && err.contains("valid channels: ours"),
            "{err}"
        );
        assert!(parse(&["--channels", ","]).unwrap().plan(false).is_err());
        assert!(parse(&["--duration", "0"]).unwrap().plan(false).is_err());
    }

    #[test]
    fn quick_defaults_are_a_subset_and_ids_are_unique() {
        let quick = ChannelArgs::default().plan(true).unwrap();
        let full = ChannelArgs::default().plan(false).unwrap();
        assert!(quick.channels.iter().all(|c| full.channels.contains(c)));
        assert_eq!(full.workloads, Workload::ALL);
        let (gq, gf) = (groups(&quick), groups(&full));
        assert!(gq.len() < gf.len());
        for g in [&gq, &gf] {
            let mut ids: Vec<&str> = g.iter().map(|c| c.group.id.as_str()).collect();
            ids.sort_unstable();
            ids.dedup();
            assert_eq!(ids.len(), g.len());
        }
        // Every workload has a group in the full plan.
        for w in Workload::ALL {
            assert!(gf.iter().any(|c| c.spec.workload == w.name()), "{w:?}");
        }
    }

    #[test]
    fn cells_hold_only_channels_that_fit() {
        let full = ChannelArgs::default().plan(false).unwrap();
        let g = groups(&full);
        let cell = |id: &str| g.iter().find(|c| c.group.id == id).unwrap();
        // std's receiver cannot be cloned; rtrb has one producer and one consumer.
        let two_one = &cell("w9/2:1").group.variants;
        assert!(two_one.contains(&"std".to_string()));
        assert!(!two_one.contains(&"rtrb".to_string()));
        let one_two = &cell("w9/1:2").group.variants;
        assert!(!one_two.contains(&"std".to_string()));
        assert!(one_two.contains(&"kanal".to_string()));
        assert!(cell("w1/8B").group.variants.contains(&"rtrb".to_string()));
        assert_eq!(
            cell("w10").group.variants,
            ["ours", "ours+tx", "ours+rx", "ours+tx+rx", "crossbeam"]
        );
        assert!(cell("onecore/8B").spec.pin);
    }

    #[test]
    fn cli_accepts_load_levels() {
        let p = parse(&["--load", "0,2,mixed", "--workloads", "w1,small"])
            .unwrap()
            .plan(false)
            .unwrap();
        let levels = [Load::QUIET, Load::Busy(2), Load::Mixed];
        assert_eq!(p.load, levels);
        assert_eq!(p.load_small, levels);
        let g = groups(&p);
        let ids: Vec<&str> = g.iter().map(|c| c.group.id.as_str()).collect();
        // A cell's levels follow one another; the quiet group keeps the cell's id.
        assert_eq!(ids[..3], ["w1/8B", "w1/8B/load=2", "w1/8B/load=mixed"]);
        assert!(ids.contains(&"small/cap=0/8:1/load=mixed"), "{ids:?}");
        assert_eq!(g.len() % levels.len(), 0);
        for (c, l) in g.iter().zip(levels.iter().cycle()) {
            assert_eq!(c.load, *l, "{}", c.group.id);
            assert_eq!(c.group.params["load"], serde_json::json!(l.to_string()));
            assert!(c.group.title.ends_with(&l.describe()), "{}", c.group.title);
        }
        // Duplicates go; levels given explicitly hold for every workload in quick mode too.
        let p = parse(&["--load", "2,0,2"]).unwrap().plan(true).unwrap();
        assert_eq!(p.load, [Load::Busy(2), Load::QUIET]);
        assert_eq!(p.load_small, p.load);
    }

    #[test]
    fn cli_rejects_bad_load_levels() {
        for bad in ["lots", "2.5", "0,busy", "-1", "0,,2"] {
            let err = parse(&[&format!("--load={bad}")]).unwrap_err().to_string();
            assert!(
                err.contains("number N of busy processes") && err.contains("`mixed`"),
                "{bad}: {err}"
            );
        }
        let err = parse(&["--load", "5000"]).unwrap_err().to_string();
        assert!(err.contains("at most 1024"), "{err}");
    }

    #[test]
    fn load_is_quiet_by_default_and_quick_mode_loads_small_only() {
        let full = ChannelArgs::default().plan(false).unwrap();
        assert_eq!(full.load, [Load::QUIET]);
        assert_eq!(full.load_small, [Load::QUIET]);
        for c in groups(&full) {
            assert!(c.load.is_quiet() && !c.group.id.contains("load="));
            assert_eq!(c.group.params["load"], "0");
            assert!(!c.group.title.contains("load"), "{}", c.group.title);
        }
        let quick = ChannelArgs::default().plan(true).unwrap();
        assert_eq!(quick.load, [Load::QUIET]);
        assert_eq!(quick.load_small, [Load::QUIET, Load::Busy(2)]);
        let g = groups(&quick);
        assert!(
            g.iter()
                .filter(|c| c.spec.workload != "small")
                .all(|c| c.load.is_quiet())
        );
        let small: Vec<(&str, &str)> = g
            .iter()
            .filter(|c| c.spec.workload == "small")
            .map(|c| (c.group.id.as_str(), c.group.title.as_str()))
            .collect();
        assert_eq!(
            small.iter().map(|s| s.0).collect::<Vec<_>>(),
            [
                "small/cap=0/1:1",
                "small/cap=0/1:1/load=2",
                "small/cap=0/8:1",
                "small/cap=0/8:1/load=2",
                "small/cap=1/1:1",
                "small/cap=1/1:1/load=2",
                "small/cap=1/8:1",
                "small/cap=1/8:1/load=2",
            ]
        );
        assert_eq!(
            small[3].1,
            "small: rendezvous bounded(0), 8 senders : 1 receiver, load: 2 busy processes"
        );
        assert_eq!(
            small[4].1,
            "small: bounded(1), 1 sender : 1 receiver, no load"
        );
    }

    #[test]
    fn small_cells_run_the_bounded_forms_beside_crossbeam() {
        let full = ChannelArgs::default().plan(false).unwrap();
        let g = groups(&full);
        let small: Vec<&Cell> = g.iter().filter(|c| c.spec.workload == "small").collect();
        assert_eq!(small.len(), 4);
        for c in small {
            // Every channel with a bounded form, and the ratio baseline among them.
            assert_eq!(c.group.variants, ["ours", "crossbeam", "std", "flume"]);
            assert_eq!(RATIO_BASELINES[0], "crossbeam");
            let cap = c.group.params["capacity"].as_u64().unwrap() as usize;
            assert_eq!(c.spec.capacity, Some(cap));
            assert_eq!(c.group.params["x"], serde_json::json!(c.spec.producers));
            assert_eq!(c.spec.consumers, 1);
        }
        // The two sweeps over the sender count, one per capacity.
        let section = Section {
            name: "channel".into(),
            title: "t".into(),
            baselines: vec!["crossbeam".into()],
            sweep: Some("x".into()),
            config: serde_json::Value::Null,
            groups: g.into_iter().map(|c| c.group).collect(),
        };
        let sweeps: Vec<String> = crate::output::sweeps(&section)
            .into_iter()
            .map(|s| s.label)
            .filter(|l| l.contains("workload=small"))
            .collect();
        assert_eq!(
            sweeps,
            [
                "capacity=0, load=0, workload=small",
                "capacity=1, load=0, workload=small"
            ]
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)] // up to nine threads per run
    fn select_runs_deliver_over_two_and_four_channels() {
        for ch in SELECT_CHANNELS {
            for k in SELECT_WIDTHS {
                let s = run_spec(&Spec {
                    channel: ch.into(),
                    workload: "select".into(),
                    bytes: 8,
                    producers: 2,
                    consumers: 1,
                    select: k,
                    duration_ns: tiny_ns(),
                    ..Spec::default()
                })
                .unwrap();
                assert_eq!(s.variant, ch);
                assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {k}");
            }
        }
        let spec = |channel: &str, k| Spec {
            channel: channel.into(),
            workload: "select".into(),
            select: k,
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let err = run_spec(&spec("ours", 3)).unwrap_err().to_string();
        assert!(err.contains("use 2 or 4"), "{err}");
        let err = run_spec(&spec("flume", 2)).unwrap_err().to_string();
        assert!(err.contains("runs ours and crossbeam"), "{err}");
    }

    #[test]
    #[cfg_attr(miri, ignore)] // eight threads per run
    fn small_runs_deliver_at_both_capacities() {
        for ch in small_channels() {
            for cap in SMALL_CAPACITIES {
                for producers in [1, 8] {
                    let s = run_spec(&Spec {
                        channel: ch.into(),
                        workload: "small".into(),
                        bytes: 8,
                        producers,
                        consumers: 1,
                        batch: 1,
                        capacity: Some(cap),
                        duration_ns: tiny_ns(),
                        ..Spec::default()
                    })
                    .unwrap();
                    assert_eq!(s.variant, ch);
                    assert_eq!(s.per_thread.len(), 1);
                    assert!(s.ops as f64 <= s.extra["sent_total"], "{ch} {cap}");
                }
            }
        }
        let spec = |channel: &str, cap| Spec {
            channel: channel.into(),
            bytes: 8,
            capacity: Some(cap),
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let err = run_spec(&spec("ours", 2)).unwrap_err().to_string();
        assert!(
            err.contains("bounded(2)") && err.contains("capacities: 0, 1"),
            "{err}"
        );
        let err = run_spec(&spec("kanal", 0)).unwrap_err().to_string();
        assert!(
            err.contains("channels: ours, crossbeam, flume, std"),
            "{err}"
        );
    }

    #[test]
    fn ablation_names_split() {
        assert_eq!(split_ablation("ours"), ("ours", false, false));
        assert_eq!(split_ablation("ours+tx"), ("ours", true, false));
        assert_eq!(split_ablation("ours+rx"), ("ours", false, true));
        assert_eq!(split_ablation("ours+tx+rx"), ("ours", true, true));
        let err = run_spec(&Spec {
            channel: "crossbeam+tx".into(),
            bytes: 8,
            duration_ns: tiny_ns(),
            ..Spec::default()
        })
        .unwrap_err();
        assert!(err.to_string().contains("our channel only"), "{err}");
    }

    #[test]
    fn quantiles_by_nearest_rank() {
        let v: Vec<u64> = (1..=100).collect();
        assert_eq!(quantile(&v, 0.5), 50.0);
        assert_eq!(quantile(&v, 0.99), 99.0);
        assert_eq!(quantile(&v, 1.0), 100.0);
        assert_eq!(quantile(&[7], 0.0), 7.0);
        assert!(quantile(&[], 0.5).is_nan());
    }

    #[test]
    fn delivery_check_catches_loss_duplicates_disorder_and_corruption() {
        let mut ok = Seen::new(2);
        for seq in 0..3u64 {
            ok.see(&[seq]);
            ok.see(&[(1 << SEQ_BITS) | seq]);
        }
        assert!(verify("t", &[3, 3], std::slice::from_ref(&ok)).is_ok());
        // A lost element.
        assert!(verify("t", &[4, 3], std::slice::from_ref(&ok)).is_err());
        // A duplicate.
        let mut dup = Seen::new(1);
        for seq in [0u64, 1, 1] {
            dup.see(&[seq]);
        }
        assert!(
            verify("t", &[3], &[dup])
                .unwrap_err()
                .to_string()
                .contains("duplicated")
        );
        // Out of order.
        let mut swapped = Seen::new(1);
        for seq in [1u64, 0] {
            swapped.see(&[seq]);
        }
        assert!(verify("t", &[2], &[swapped]).is_err());
        // Lost and duplicated at once, counts equal but sums not (across two consumers).
        let (mut a, mut b) = (Seen::new(1), Seen::new(1));
        a.see(&[0u64]);
        a.see(&[1u64]);
        b.see(&[1u64]);
        assert!(verify("t", &[3], &[a, b]).is_err());
        // A payload that does not match its tag, and an unknown producer.
        let mut bad = Seen::new(1);
        let mut e = <[u64; 8]>::make(0);
        e[7] = 0;
        bad.see(&e);
        assert!(
            verify("t", &[1], &[bad])
                .unwrap_err()
                .to_string()
                .contains("corrupt")
        );
        let mut stranger = Seen::new(1);
        stranger.see(&[5u64 << SEQ_BITS]);
        assert!(verify("t", &[0], &[stranger]).is_err());
    }

    #[test]
    #[cfg_attr(miri, ignore)] // dozens of threads per cell and sched_setaffinity
    fn every_workload_runs_on_every_channel_and_delivers() {
        // Every workload but `memory`, `first` and the other allocators, which run in child
        // processes of the `welltempered` binary (this test binary cannot be one); they are
        // checked in process below, in `first`'s tests and in tests/smoke.rs.
        let plan = ChannelArgs {
            duration: Some(Duration::from_millis(2)),
            reps: Some(1),
            allocators: Some(vec!["system".into()]),
            workloads: Some(
                Workload::ALL
                    .into_iter()
                    .filter(|w| !matches!(w, Workload::Memory | Workload::First))
                    .collect(),
            ),
            ..ChannelArgs::default()
        }
        .plan(false)
        .unwrap();
        let section = run_plan(&plan, &Progress::hidden()).unwrap();
        assert_eq!(section.name, "channel");
        assert_eq!(section.baselines, RATIO_BASELINES);
        assert_eq!(section.groups.len(), groups(&plan).len());
        for g in &section.groups {
            assert_eq!(g.reps.len(), 1, "{}", g.id);
            let rep = &g.reps[0];
            assert_eq!(rep.samples.len(), g.variants.len(), "{}", g.id);
            for s in &rep.samples {
                assert!(g.variants.contains(&s.variant), "{}", g.id);
                assert!(s.wall_s > 0.0 && s.value >= 0.0, "{} {}", g.id, s.variant);
                if let Some(&sent) = s.extra.get("sent_total") {
                    // The window's count cannot exceed what was sent in all.
                    assert!(s.ops as f64 <= sent, "{} {}", g.id, s.variant);
                }
                if g.id.starts_with("w2/") {
                    assert!(
                        s.extra["p99_ns"] >= s.value || s.ops == 0,
                        "{} {:?}",
                        s.variant,
                        s
                    );
                }
            }
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // reads /proc
    fn the_memory_workload_checks_every_element_of_the_burst() {
        for ch in HEAP_CHANNELS {
            let s = run_spec(&Spec {
                channel: ch.to_string(),
                burst: 20_000,
                ..Spec::default()
            })
            .unwrap();
            assert_eq!(s.ops, 20_000, "{ch}");
            assert_eq!(
                s.extra["checksum"],
                (0..20_000u64).sum::<u64>() as f64,
                "{ch}"
            );
            assert!(s.value > 0.0 && s.extra["peak_kib"] > 0.0, "{ch}");
        }
    }

    #[test]
    fn allocator_variants_are_named_checked_and_added_to_heap_workloads() {
        assert_eq!(split_allocator("ours@mimalloc"), ("ours", Some("mimalloc")));
        assert_eq!(split_allocator("ours+tx"), ("ours+tx", None));
        let err = ChannelArgs {
            allocators: Some(vec!["tcmalloc".into()]),
            ..ChannelArgs::default()
        }
        .plan(true)
        .unwrap_err()
        .to_string();
        assert!(err.contains("jemalloc"), "{err}");
        let plan = ChannelArgs {
            allocators: Some(vec!["jemalloc".into()]),
            channels: Some(vec!["ours".into(), "rtrb".into()]),
            ..ChannelArgs::default()
        }
        .plan(true)
        .unwrap();
        assert_eq!(plan.allocators, ["system", "jemalloc"]);
        for cell in groups(&plan) {
            let v = &cell.group.variants;
            match cell.spec.workload.as_str() {
                "w1" => assert_eq!(v, &["ours", "rtrb", "ours@jemalloc"]),
                "memory" => assert_eq!(v, &["ours", "ours@jemalloc"]),
                _ => assert!(v.iter().all(|x| !x.contains('@')), "{v:?}"),
            }
        }
        // A child asked for an allocator it does not run on refuses, rather than mislabel.
        let err = run_spec(&Spec {
            channel: "ours@jemalloc".into(),
            burst: 10,
            ..Spec::default()
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("WELLTEMPERED_ALLOCATOR=jemalloc"), "{err}");
    }

    #[test]
    fn a_small_spsc_run_delivers() {
        // The one run Miri checks: our channel's both disciplines, 1:1, plain and shared.
        for ch in ["ours", "ours+tx+rx", "ours-spsc"] {
            let s = run_spec(&Spec {
                channel: ch.into(),
                workload: "w1".into(),
                bytes: 64,
                producers: 1,
                consumers: 1,
                batch: 1,
                limit: 64,
                duration_ns: tiny_ns(),
                ..Spec::default()
            })
            .unwrap();
            assert_eq!(s.variant, ch);
            assert_eq!(s.per_thread.len(), 1);
            assert!(s.ops as f64 <= s.extra["sent_total"]);
        }
    }

    #[test]
    #[cfg_attr(miri, ignore)] // serde_json round trip is not unsafe code
    fn child_specs_round_trip() {
        let spec = Spec {
            channel: "crossbeam".into(),
            workload: "w7".into(),
            bytes: 8,
            producers: 1,
            consumers: 1,
            batch: 16,
            limit: IN_FLIGHT,
            duration_ns: tiny_ns(),
            ..Spec::default()
        };
        let s = ChannelBench
            .run_child(&serde_json::to_value(&spec).unwrap())
            .unwrap();
        assert_eq!(s.variant, "crossbeam");
        assert!(
            ChannelBench
                .run_child(&serde_json::json!({"x": 1}))
                .is_err()
        );
    }
}
