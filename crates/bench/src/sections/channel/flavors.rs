//! The channels, behind one interface (monomorphized per channel and element type): each
//! flavor's ends, the registry of names, and the small bounded channels.

use super::*;

/// The sending end as the workloads drive it.
pub(super) trait TxEnd<T>: Send + Sized {
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
pub(super) trait RxEnd<T>: Send + Sized {
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
pub(super) trait Flavor: 'static {
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
pub(super) fn spin_push<T>(mut v: T, mut push: impl FnMut(T) -> std::result::Result<(), T>) {
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
pub(super) fn spin_pop<T>(
    open: impl Fn() -> bool,
    mut pop: impl FnMut() -> Option<T>,
) -> Option<T> {
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
pub(super) struct RingTx<P> {
    inner: P,
    closed: Arc<AtomicBool>,
}

/// The consumer end of an SPSC ring.
pub(super) struct RingRx<C> {
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
pub(super) trait SpinQueue<T>: Send + Sync + 'static {
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
pub(super) struct QueueShared<Q> {
    queue: Q,
    senders: AtomicUsize,
}

/// A sending handle on a [`SpinQueue`].
pub(super) struct QueueTx<Q>(Arc<QueueShared<Q>>);

/// A receiving handle on a [`SpinQueue`].
pub(super) struct QueueRx<Q>(Arc<QueueShared<Q>>);

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

pub(super) struct Ours;
pub(super) struct OursBounded;
pub(super) struct OursSpsc;
pub(super) struct OursShared;
pub(super) struct Crossbeam;
pub(super) struct CrossbeamBounded;
pub(super) struct StdMpsc;
pub(super) struct Flume;
pub(super) struct Kanal;
pub(super) struct Rtrb;
pub(super) struct Ringbuf;
pub(super) struct SegQueue;
pub(super) struct ArrayQueue;

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
pub(super) struct OursCap<const N: usize>;
/// crossbeam-channel's `bounded(N)`.
pub(super) struct CrossbeamCap<const N: usize>;
/// flume's `bounded(N)`.
pub(super) struct FlumeCap<const N: usize>;
/// std's `sync_channel(N)`.
pub(super) struct StdSync<const N: usize>;

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

pub(super) fn make_queue<T: Send + 'static, Q: SpinQueue<T>>() -> (QueueTx<Q>, QueueRx<Q>) {
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
    pub(super) run: fn(&Spec) -> Result<Sample>,
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
pub(super) type Runner = fn(&Spec) -> Result<Sample>;

/// The capacities of the `small` workload: a rendezvous channel and a one-slot channel.
pub const SMALL_CAPACITIES: [usize; 2] = [0, 1];

/// The channels of the `small` workload, each in its bounded form at every capacity of
/// [`SMALL_CAPACITIES`], in that order: ours (`bounded`), crossbeam-channel (`bounded`), flume
/// (`bounded`) and std (`sync_channel`).
pub(super) const SMALL: &[(&str, [Runner; SMALL_CAPACITIES.len()])] = &[
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
pub(super) fn small_runner(name: &str, cap: usize) -> Result<Runner> {
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
