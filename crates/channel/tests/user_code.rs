//! User code inside the channel's operations.
//!
//! Wherever an operation calls code it does not control, that code may panic or re-enter the
//! same channel, and the operation must have published (or rolled back) its state first. The
//! places, and the tests below that cover each:
//!
//! | where user code runs | panics | re-enters |
//! |---|---|---|
//! | `send_iter`'s iterator (`Iterator::next`) | `send_iter_iterator_panics` | `send_iter_iterator_sends_on_the_same_sender`, `..._clones_the_sender_to_another_thread`, `..._drains_and_recycles_the_segment`, `..._waits_for_the_receiver`, `..._drops_the_receiver` |
//! | an element's `Drop` in a borrowing receive (`RecvGuard`) | `recv_guard_drop_panics` | `recv_guard_drop_reenters` |
//! | an element's `Drop` when the last receiver goes | `discard_on_last_receiver_drop_panics` | `discard_reenters_the_channel`, `discard_drops_the_last_sender` |
//! | an element's `Drop` when the channel itself is dropped | `queue::tests::drop_panics` (unit test) | `queue::tests::drop_reenters` |
//! | the allocator, growing `recv_many`'s buffer | - (a global allocator must not unwind: `GlobalAlloc`'s contract) | `allocator_reenters_recv_many` |
//! | the allocator, when a send needs a new segment | - | `allocator_reenters_send` |
//! | the allocator, when a receive frees a drained segment | - | `allocator_reenters_receive_when_a_segment_is_freed` |
//! | a forgotten guard (`mem::forget` is safe) | - | `forgotten_recv_guard` |
//!
//! Run under Miri (`cargo +nightly miri test -p welltempered-channel --test user_code`), where
//! a double drop or a write into a freed segment is reported as undefined behaviour; natively
//! the drop counts catch double drops and losses.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use welltempered_channel::{
    Builder, Receiver, SendError, Sender, TryRecvError, Wait, bounded, unbounded,
};

/// Counts its drops in a counter; panics in `drop` when asked to. The counter is a static of
/// the test, so that elements the tests leak on purpose hold no heap memory (Miri reports
/// leaks).
#[derive(Debug)]
struct Counted {
    drops: &'static AtomicUsize,
    id: usize,
    panic_on_drop: bool,
}

impl Counted {
    fn new(drops: &'static AtomicUsize, id: usize) -> Self {
        Counted {
            drops,
            id,
            panic_on_drop: false,
        }
    }

    fn panicking(drops: &'static AtomicUsize, id: usize) -> Self {
        Counted {
            drops,
            id,
            panic_on_drop: true,
        }
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
        if self.panic_on_drop {
            panic!("drop of element {} panics", self.id);
        }
    }
}

/// Channel shapes to run each test on: unbounded, bounded with room, and (where it makes
/// sense) more receivers or senders.
fn shapes<T>() -> Vec<(&'static str, Sender<T>, Receiver<T>)> {
    let (a, b) = unbounded();
    // Room for everything a test sends before it receives.
    let (c, d) = bounded(4 * RUN);
    let (e, f) = Builder::new().wait(Wait::Park).unbounded();
    vec![
        ("unbounded", a, b),
        ("bounded", c, d),
        ("unbounded, park", e, f),
    ]
}

/// Long enough to cross several segments (4 offsets each under Miri, 256 natively).
const RUN: usize = if cfg!(miri) { 40 } else { 2_000 };

#[test]
fn send_iter_iterator_sends_on_the_same_sender() {
    for (shape, tx, rx) in shapes::<u32>() {
        let inner = &tx;
        let sent = tx
            .send_iter([1, 2, 3].into_iter().inspect(|&x| {
                if x == 2 {
                    inner.send(100).unwrap();
                }
            }))
            .unwrap();
        assert_eq!(sent, 3, "{shape}");
        let got: Vec<u32> = rx.try_iter().collect();
        assert_eq!(got, [1, 100, 2, 3], "{shape}");
    }
}

#[test]
fn send_iter_iterator_clones_the_sender_to_another_thread() {
    // In the middle of the batch, the iterator clones the sender and lets another thread send
    // a run through the clone (and waits for it): that thread must append after what the
    // batch already sent, and the batch after it.
    for (shape, tx, rx) in shapes::<usize>() {
        let outer = &tx;
        let sent = tx
            .send_iter((0..RUN).inspect(|&i| {
                if i == RUN / 3 {
                    let tx2 = outer.clone();
                    thread::spawn(move || {
                        for j in 0..RUN {
                            tx2.send(RUN + j).unwrap();
                        }
                    })
                    .join()
                    .unwrap();
                }
            }))
            .unwrap();
        assert_eq!(sent, RUN, "{shape}");
        let got: Vec<usize> = rx.try_iter().collect();
        let want: Vec<usize> = (0..RUN / 3)
            .chain(RUN..2 * RUN)
            .chain(RUN / 3..RUN)
            .collect();
        assert!(
            got == want,
            "{shape}: lost, duplicated or reordered elements"
        );
    }
}

#[test]
fn send_iter_iterator_drains_and_recycles_the_segment() {
    // In the middle of the batch, the iterator sends a run long enough to fill the segment
    // the batch is writing and the next, then receives everything, so that those segments
    // are recycled or freed: the batch must not go on writing into them.
    let k = if cfg!(miri) { 12 } else { 600 };
    for (shape, tx, rx) in shapes::<Counted>() {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        let drops = &DROPS;
        drops.store(0, Ordering::SeqCst);
        let (outer, rx_ref) = (&tx, &rx);
        let sent = tx
            .send_iter((0..RUN).map(|i| {
                if i == 2 {
                    for j in 0..k {
                        outer.send(Counted::new(drops, RUN + j)).unwrap();
                    }
                    let early: Vec<usize> = rx_ref.try_iter().map(|c| c.id).collect();
                    let want: Vec<usize> = [0, 1].into_iter().chain(RUN..RUN + k).collect();
                    assert!(early == want, "{shape}: the iterator's receive");
                }
                Counted::new(drops, i)
            }))
            .unwrap();
        assert_eq!(sent, RUN);
        let rest: Vec<usize> = rx.try_iter().map(|c| c.id).collect();
        assert!(rest == (2..RUN).collect::<Vec<_>>(), "{shape}: the rest");
        drop((tx, rx));
        assert_eq!(drops.load(Ordering::SeqCst), RUN + k, "{shape}: drops");
    }
}

#[test]
fn send_iter_iterator_panics() {
    for (shape, tx, rx) in shapes::<usize>() {
        let r = catch_unwind(AssertUnwindSafe(|| {
            tx.send_iter((0..RUN).map(|i| if i == RUN / 2 { panic!("boom") } else { i }))
        }));
        assert!(r.is_err(), "{shape}");
        // What was sent before the panic is there, in order; the channel goes on working.
        tx.send(usize::MAX).unwrap();
        let got: Vec<usize> = rx.try_iter().collect();
        let mut want: Vec<usize> = (0..RUN / 2).collect();
        want.push(usize::MAX);
        assert_eq!(got, want, "{shape}");
    }
}

#[test]
fn send_iter_iterator_waits_for_the_receiver() {
    // Each element is produced only after the receiver has taken the previous one: a batch
    // that holds elements back until the iterator ends (or wakes nobody) deadlocks here.
    for wait in [Wait::Park, Wait::default(), Wait::Spin] {
        let (tx, rx) = Builder::new().wait(wait).unbounded::<usize>();
        let (ack_tx, ack_rx) = std::sync::mpsc::channel::<usize>();
        let consumer = thread::spawn(move || {
            for i in 0..20 {
                assert_eq!(rx.recv(), Ok(i));
                ack_tx.send(i).unwrap();
            }
        });
        let sent = tx
            .send_iter((0..20).inspect(|&i| {
                if i > 0 {
                    assert_eq!(ack_rx.recv(), Ok(i - 1));
                }
            }))
            .unwrap();
        assert_eq!(sent, 20);
        consumer.join().unwrap();
    }
}

#[test]
fn send_iter_iterator_drops_the_receiver() {
    // The receiver goes away in the middle of an endless iterator: the batch must notice
    // and hand back the next element rather than grow forever.
    for (shape, tx, rx) in shapes::<usize>() {
        let mut rx = Some(rx);
        let r = tx.send_iter((0..).inspect(|&i| {
            if i == 5 {
                drop(rx.take());
            }
        }));
        assert_eq!(r, Err(SendError(5)), "{shape}");
    }
}

#[test]
fn send_iter_on_a_rendezvous_channel() {
    let (tx, rx) = bounded::<usize>(0);
    let consumer = thread::spawn(move || rx.iter().collect::<Vec<_>>());
    let inner = &tx;
    let sent = tx
        .send_iter((0..10).inspect(|&i| {
            if i == 5 {
                inner.send(100).unwrap();
            }
        }))
        .unwrap();
    assert_eq!(sent, 10);
    drop(tx);
    let got = consumer.join().unwrap();
    assert_eq!(got, [0, 1, 2, 3, 4, 100, 5, 6, 7, 8, 9]);
}

#[test]
fn recv_guard_drop_panics() {
    for shared in [false, true] {
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        let drops = &DROPS;
        drops.store(0, Ordering::SeqCst);
        let (tx, mut rx) = unbounded();
        let _other = shared.then(|| rx.clone());
        tx.send(Counted::panicking(drops, 0)).unwrap();
        tx.send(Counted::new(drops, 1)).unwrap();
        let r = catch_unwind(AssertUnwindSafe(|| {
            let g = rx.recv_ref().unwrap();
            assert_eq!(g.id, 0);
        }));
        assert!(r.is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        // The panicking element is gone for good: the next receive sees the one after it.
        let next = rx.recv_ref().unwrap();
        assert_eq!(next.id, 1, "shared: {shared}");
        drop(next);
        assert_eq!(rx.try_recv_ref().unwrap_err(), TryRecvError::Empty);
        assert_eq!(drops.load(Ordering::SeqCst), 2);
    }
}

/// Runs a closure from its `Drop`.
struct OnDrop<F: FnMut()>(F);

impl<F: FnMut()> Drop for OnDrop<F> {
    fn drop(&mut self) {
        (self.0)();
    }
}

#[test]
fn recv_guard_drop_reenters() {
    // The element's drop sends on the same channel and drops a sender clone.
    type Msg = (usize, Option<OnDrop<Box<dyn FnMut() + Send>>>);
    let (tx, mut rx) = unbounded::<Msg>();
    for i in 0..RUN {
        let tx2 = tx.clone();
        let hook: Box<dyn FnMut() + Send> = Box::new(move || {
            tx2.send((RUN + i, None)).unwrap();
        });
        tx.send((i, Some(OnDrop(hook)))).unwrap();
    }
    let mut seen = Vec::new();
    while let Ok(g) = rx.try_recv_ref() {
        seen.push(g.0);
    }
    let mut want: Vec<usize> = (0..RUN).collect();
    // The first RUN elements each sent one more, after everything already queued.
    want.extend(RUN..2 * RUN);
    assert_eq!(seen, want);
}

#[test]
fn forgotten_recv_guard() {
    // `mem::forget` is safe: a forgotten guard must not lead to a double drop. With one
    // receiver the element stays at the head (it was only lent); with several it is leaked,
    // and so is its segment (its read count never completes), which Miri would report as a
    // leak: that case runs natively only (leaking is what `mem::forget` is allowed to do).
    for shared in [false, true] {
        if shared && cfg!(miri) {
            continue;
        }
        static DROPS: AtomicUsize = AtomicUsize::new(0);
        let drops = &DROPS;
        drops.store(0, Ordering::SeqCst);
        let (tx, mut rx) = unbounded();
        let other = shared.then(|| rx.clone());
        for i in 0..3 {
            tx.send(Counted::new(drops, i)).unwrap();
        }
        std::mem::forget(rx.recv_ref().unwrap());
        let rest: Vec<usize> = rx.try_iter().map(|c| c.id).collect();
        if shared {
            assert_eq!(rest, [1, 2]);
        } else {
            assert_eq!(rest, [0, 1, 2]);
        }
        drop((tx, rx, other));
        assert_eq!(drops.load(Ordering::SeqCst), if shared { 2 } else { 3 });
    }
}

#[test]
fn discard_on_last_receiver_drop_panics() {
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let drops = &DROPS;
    drops.store(0, Ordering::SeqCst);
    let (tx, rx) = bounded(8);
    tx.send(Counted::new(drops, 0)).unwrap();
    tx.send(Counted::panicking(drops, 1)).unwrap();
    tx.send(Counted::new(drops, 2)).unwrap();
    // The last receiver drops what is left; the panic comes out of its drop, and the
    // elements after the panicking one are leaked (as crossbeam does), not dropped during
    // the unwind (a second panic would abort).
    let r = catch_unwind(AssertUnwindSafe(move || drop(rx)));
    assert!(r.is_err());
    assert_eq!(drops.load(Ordering::SeqCst), 2);
    assert!(tx.send(Counted::new(drops, 3)).is_err());
    drop(tx);
    assert_eq!(
        drops.load(Ordering::SeqCst),
        3,
        "only the refused element more"
    );
}

#[test]
fn discard_reenters_the_channel() {
    // Dropping an element, during the last receiver's drop, sends on the channel and drops
    // the last sender: the channel is freed only after.
    let (tx, rx) = unbounded::<(usize, Option<OnDrop<Box<dyn FnMut() + Send>>>)>();
    let mut last = Some(tx.clone());
    let hook: Box<dyn FnMut() + Send> = Box::new(move || {
        if let Some(t) = last.take() {
            assert!(t.send((2, None)).is_err(), "no receiver left");
        }
    });
    tx.send((0, Some(OnDrop(hook)))).unwrap();
    tx.send((1, None)).unwrap();
    drop(tx);
    drop(rx);
}

#[test]
fn discard_drops_the_last_sender() {
    // The channel's last sender travels inside an element: dropping the last receiver drops
    // the element, which drops that sender (disconnecting the other side) in the middle of
    // the receiver's own teardown.
    struct Msg(Counted, #[allow(dead_code)] Option<Sender<Msg>>);
    static DROPS: AtomicUsize = AtomicUsize::new(0);
    let drops = &DROPS;
    drops.store(0, Ordering::SeqCst);
    let (tx, rx) = unbounded::<Msg>();
    tx.send(Msg(Counted::new(drops, 0), None)).unwrap();
    tx.send(Msg(Counted::new(drops, 1), Some(tx.clone())))
        .unwrap();
    tx.send(Msg(Counted::new(drops, 2), None)).unwrap();
    drop(tx);
    assert_eq!(rx.recv().unwrap().0.id, 0);
    drop(rx);
    assert_eq!(drops.load(Ordering::SeqCst), 3);
}

// ---- The allocator as user code: a global allocator that can run a hook. ----

mod hooked_alloc {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    /// The system allocator, which first runs this thread's hook when one is set (not
    /// recursively), on every allocation and deallocation.
    pub struct Hooked;

    /// Runs this thread's hook, if one is set and not running.
    fn run_hook() {
        if let Ok(Some(f)) = HOOK.try_with(|h| h.take()) {
            struct Restore(*mut dyn FnMut());
            impl Drop for Restore {
                fn drop(&mut self) {
                    let _ = HOOK.try_with(|h| h.set(Some(self.0)));
                }
            }
            let _restore = Restore(f);
            // SAFETY: set by `with_hook`, whose `hook` outlives the setting; taken out of the
            // cell while it runs, so never re-entered.
            unsafe { (*f)() };
        }
    }

    thread_local! {
        static HOOK: Cell<Option<*mut dyn FnMut()>> = const { Cell::new(None) };
    }

    /// Runs `body` with `hook` called at every allocation of this thread.
    pub fn with_hook<R>(hook: &mut dyn FnMut(), body: impl FnOnce() -> R) -> R {
        let ptr: *mut (dyn FnMut() + '_) = hook;
        // SAFETY: only the lifetime is erased; the pointer is removed from the cell below
        // (on unwind too) before `hook` goes away.
        let ptr: *mut dyn FnMut() = unsafe { std::mem::transmute(ptr) };
        struct Unset;
        impl Drop for Unset {
            fn drop(&mut self) {
                HOOK.with(|h| h.set(None));
            }
        }
        HOOK.with(|h| h.set(Some(ptr)));
        let _unset = Unset;
        body()
    }

    // SAFETY: every block comes from `System` with the caller's layout.
    unsafe impl GlobalAlloc for Hooked {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            run_hook();
            // SAFETY: forwarded.
            unsafe { System.alloc(layout) }
        }
        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            // SAFETY: forwarded.
            unsafe { System.dealloc(ptr, layout) };
            run_hook();
        }
    }
}

#[global_allocator]
static ALLOC: hooked_alloc::Hooked = hooked_alloc::Hooked;

#[test]
fn allocator_reenters_recv_many() {
    // Growing the buffer calls the allocator, whose hook receives on the same receiver.
    for (shape, tx, rx) in shapes::<usize>() {
        for i in 0..RUN {
            tx.send(i).unwrap();
        }
        let stolen = std::cell::RefCell::new(Vec::new());
        let mut buf = Vec::new();
        let mut hook = || {
            if let Ok(v) = rx.try_recv() {
                stolen.borrow_mut().push(v);
            }
        };
        let mut got = 0;
        hooked_alloc::with_hook(&mut hook, || {
            while got + stolen.borrow().len() < RUN {
                got += rx.recv_many(&mut buf, RUN).unwrap();
            }
        });
        let mut all = buf.clone();
        all.extend(stolen.borrow().iter().copied());
        all.sort_unstable();
        assert_eq!(
            all,
            (0..RUN).collect::<Vec<_>>(),
            "{shape}: lost or duplicated"
        );
        assert!(!stolen.borrow().is_empty(), "{shape}: the hook never ran");
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }
}

#[test]
fn allocator_reenters_send() {
    // A send that needs a new segment calls the allocator, whose hook sends on the same
    // sender (and the first time, clones it for another thread that sends a run): the push
    // must not be half done then.
    const MARK: usize = 1 << 40;
    for (shape, tx, rx) in shapes::<usize>() {
        let hooked = std::cell::Cell::new(0usize);
        let inner = &tx;
        let mut hook = || {
            let k = hooked.get();
            hooked.set(k + 1);
            inner.send(MARK + k).unwrap();
            if k == 0 {
                let tx2 = inner.clone();
                thread::spawn(move || {
                    for j in 0..RUN / 4 {
                        tx2.send(2 * MARK + j).unwrap();
                    }
                })
                .join()
                .unwrap();
            }
        };
        hooked_alloc::with_hook(&mut hook, || {
            for i in 0..RUN {
                tx.send(i).unwrap();
            }
        });
        let got: Vec<usize> = rx.try_iter().collect();
        let mine: Vec<usize> = got.iter().copied().filter(|&v| v < MARK).collect();
        let marks: Vec<usize> = got
            .iter()
            .copied()
            .filter(|&v| (MARK..2 * MARK).contains(&v))
            .collect();
        let theirs: Vec<usize> = got.iter().copied().filter(|&v| v >= 2 * MARK).collect();
        assert!(hooked.get() > 0, "{shape}: the hook never ran");
        assert!(mine == (0..RUN).collect::<Vec<_>>(), "{shape}: the sends");
        assert!(
            marks == (MARK..MARK + hooked.get()).collect::<Vec<_>>(),
            "{shape}: the hook's"
        );
        assert!(
            theirs == (2 * MARK..2 * MARK + RUN / 4).collect::<Vec<_>>(),
            "{shape}: the clone's"
        );
    }
}

#[test]
fn allocator_reenters_receive_when_a_segment_is_freed() {
    // Receiving runs frees drained segments (beyond the one kept spare), which calls the
    // allocator, whose hook receives on the same receiver: the run must not go on from a
    // head that moved under it.
    for (shape, tx, rx) in shapes::<usize>() {
        let total = 3 * RUN;
        for i in 0..total {
            tx.send(i).unwrap();
        }
        let stolen = std::cell::RefCell::new(Vec::with_capacity(total));
        // Room for everything: growing `buf` calls the allocator too, which is tested above.
        let mut buf = Vec::with_capacity(total);
        let mut hook = || {
            if let Ok(v) = rx.try_recv() {
                stolen.borrow_mut().push(v);
            }
        };
        hooked_alloc::with_hook(&mut hook, || {
            while buf.len() + stolen.borrow().len() < total {
                rx.recv_many(&mut buf, total).unwrap();
            }
        });
        let stolen = stolen.into_inner();
        assert!(!stolen.is_empty(), "{shape}: the hook never received");
        assert!(buf.is_sorted() && stolen.is_sorted(), "{shape}: order");
        let mut all = buf;
        all.extend(stolen);
        all.sort_unstable();
        assert!(
            all == (0..total).collect::<Vec<_>>(),
            "{shape}: lost or duplicated"
        );
        assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    }
}
