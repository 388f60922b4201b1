//! Unit tests of the channel: delivery, disconnection, waiting, rendezvous, batches, the
//! borrowing receive, memory, remarks and the discipline switches.

use super::*;
use crate::error::{
    RecvError, RecvTimeoutError, SendError, SendTimeoutError, TryRecvError, TrySendError,
};
use crate::queue::FREE_CAP;
use crate::{bounded, spsc, unbounded};
use std::sync::Arc as StdArc;
use std::sync::atomic::AtomicUsize as StdAtomicUsize;
use std::thread;
use std::time::Duration;

/// Elements per test, scaled down under Miri.
const N: usize = if cfg!(miri) { 200 } else { 20_000 };

/// Counts its drops.
#[derive(Debug)]
struct Tracked(StdArc<StdAtomicUsize>, #[allow(dead_code)] usize);
impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn assert_send<T: Send>() {}

#[test]
fn handles_are_send() {
    assert_send::<Sender<u8>>();
    assert_send::<Receiver<String>>();
    assert_send::<spsc::Sender<u8>>();
}

#[test]
fn fifo_across_segments() {
    let (tx, rx) = unbounded();
    for i in 0..N {
        tx.send(i).unwrap();
    }
    assert_eq!(rx.len(), N);
    assert_eq!(tx.len(), N);
    for i in 0..N {
        assert_eq!(rx.try_recv(), Ok(i));
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert!(rx.is_empty());
    assert_eq!(rx.capacity(), None);
}

#[test]
fn interleaved_send_and_receive() {
    let (tx, rx) = unbounded();
    let mut next = 0;
    for i in 0..N {
        tx.send(i).unwrap();
        if i % 3 == 0 {
            assert_eq!(rx.recv(), Ok(next));
            next += 1;
        }
    }
    drop(tx);
    let rest: Vec<usize> = rx.iter().collect();
    assert_eq!(rest, (next..N).collect::<Vec<_>>());
}

#[test]
fn bounded_is_bounded() {
    let (tx, rx) = bounded(3);
    assert_eq!(tx.capacity(), Some(3));
    for i in 0..3 {
        tx.try_send(i).unwrap();
    }
    assert!(tx.is_full());
    assert_eq!(tx.try_send(9), Err(TrySendError::Full(9)));
    assert_eq!(rx.recv(), Ok(0));
    tx.try_send(3).unwrap();
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2, 3]);
    // Shared producers respect the bound too.
    let tx2 = tx.clone();
    for i in 0..3 {
        tx2.try_send(i).unwrap();
    }
    assert!(tx.try_send(7).unwrap_err().is_full());
    assert_eq!(rx.len(), 3);
}

#[test]
fn bounded_threads_block_and_deliver_all() {
    for cap in [1, 2, 7, 300] {
        let (tx, rx) = bounded(cap);
        let h = thread::spawn(move || {
            for i in 0..N {
                tx.send(i).unwrap();
            }
        });
        for i in 0..N {
            assert_eq!(rx.recv(), Ok(i));
        }
        h.join().unwrap();
        assert_eq!(rx.recv(), Err(RecvError));
    }
}

#[test]
fn disconnection_of_senders_drains_then_fails() {
    let (tx, rx) = unbounded();
    let tx2 = tx.clone();
    tx.send(1).unwrap();
    drop(tx);
    tx2.send(2).unwrap();
    drop(tx2);
    assert_eq!(rx.recv(), Ok(1));
    assert_eq!(rx.try_recv(), Ok(2));
    assert_eq!(rx.try_recv(), Err(TryRecvError::Disconnected));
    assert_eq!(rx.recv(), Err(RecvError));
    assert_eq!(
        rx.recv_timeout(Duration::from_millis(1)),
        Err(RecvTimeoutError::Disconnected)
    );
}

#[test]
fn disconnection_of_receivers_hands_values_back() {
    let (tx, rx) = bounded::<String>(1);
    let rx2 = rx.clone();
    drop(rx);
    tx.send("a".into()).unwrap();
    drop(rx2);
    assert_eq!(tx.send("b".into()), Err(SendError("b".to_string())));
    assert_eq!(
        tx.try_send("c".into()),
        Err(TrySendError::Disconnected("c".to_string()))
    );
    assert_eq!(
        tx.send_timeout("d".into(), Duration::from_millis(1)),
        Err(SendTimeoutError::Disconnected("d".to_string()))
    );
}

#[test]
fn blocked_receiver_wakes_on_disconnect() {
    for wait in [Wait::Park, Wait::Spin, Wait::default()] {
        let (tx, rx) = Builder::new().wait(wait).unbounded::<u8>();
        let h = thread::spawn(move || rx.recv());
        thread::sleep(Duration::from_millis(5));
        drop(tx);
        assert_eq!(h.join().unwrap(), Err(RecvError));
    }
}

#[test]
fn blocked_sender_wakes_on_disconnect() {
    let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u8>(1);
    tx.send(0).unwrap();
    let h = thread::spawn(move || tx.send(1));
    thread::sleep(Duration::from_millis(5));
    drop(rx);
    assert_eq!(h.join().unwrap(), Err(SendError(1)));
}

#[test]
fn every_element_dropped_exactly_once() {
    let drops = StdArc::new(StdAtomicUsize::new(0));
    {
        let (tx, rx) = unbounded();
        for i in 0..N {
            tx.send(Tracked(drops.clone(), i)).unwrap();
        }
        for _ in 0..N / 3 {
            drop(rx.recv().unwrap());
        }
        let rx2 = rx.clone();
        for _ in 0..N / 3 {
            drop(rx2.recv().unwrap());
        }
        assert_eq!(drops.load(Ordering::SeqCst), 2 * (N / 3));
        // The rest are dropped with the channel.
    }
    assert_eq!(drops.load(Ordering::SeqCst), N);
    // Values handed back on a failed send are the caller's, not dropped by the channel.
    let (tx, rx) = unbounded();
    drop(rx);
    let back = tx.send(Tracked(drops.clone(), 0)).unwrap_err().into_inner();
    assert_eq!(drops.load(Ordering::SeqCst), N);
    drop(back);
    assert_eq!(drops.load(Ordering::SeqCst), N + 1);
}

#[test]
fn timeouts() {
    let (tx, rx) = bounded::<u32>(1);
    assert_eq!(
        rx.recv_timeout(Duration::from_millis(2)),
        Err(RecvTimeoutError::Timeout)
    );
    assert_eq!(
        rx.recv_deadline(Instant::now()),
        Err(RecvTimeoutError::Timeout)
    );
    tx.send(1).unwrap();
    assert_eq!(
        tx.send_timeout(2, Duration::from_millis(2)),
        Err(SendTimeoutError::Timeout(2))
    );
    assert_eq!(rx.recv_timeout(Duration::from_secs(5)), Ok(1));
    assert_eq!(tx.send_timeout(3, Duration::from_secs(5)), Ok(()));
    for wait in [Wait::Spin, Wait::Park] {
        let (_tx, rx) = Builder::new().wait(wait).unbounded::<u32>();
        assert!(
            rx.recv_timeout(Duration::from_millis(2))
                .unwrap_err()
                .is_timeout()
        );
    }
}

#[test]
fn rendezvous() {
    let (tx, rx) = bounded::<usize>(0);
    assert_eq!(tx.capacity(), Some(0));
    assert_eq!(tx.try_send(1), Err(TrySendError::Full(1)));
    let n = N / 10;
    let h = thread::spawn(move || {
        for i in 0..n {
            tx.send(i).unwrap();
            // `send` returned: the element was taken, so at most nothing is buffered.
            assert!(tx.len() <= 1);
        }
    });
    for i in 0..n {
        assert_eq!(rx.recv(), Ok(i));
    }
    h.join().unwrap();
    assert_eq!(rx.recv(), Err(RecvError));
}

#[test]
fn rendezvous_try_send_meets_a_blocked_receiver() {
    let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
    let h = thread::spawn(move || rx.recv());
    let mut v = 7;
    loop {
        match tx.try_send(v) {
            Ok(()) => break,
            Err(TrySendError::Full(back)) => {
                v = back;
                thread::yield_now();
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(h.join().unwrap(), Ok(7));
}

#[test]
fn wait_strategies_deliver_everything() {
    for wait in [
        Wait::Spin,
        Wait::Park,
        Wait::SpinThenPark { spins: 3 },
        Wait::default(),
    ] {
        let (tx, rx) = Builder::new().wait(wait).unbounded();
        let h = thread::spawn(move || {
            for i in 0..N {
                tx.send(i).unwrap();
            }
        });
        let mut sum = 0;
        for v in rx {
            sum += v;
        }
        h.join().unwrap();
        assert_eq!(sum, N * (N - 1) / 2);
    }
}

/// Both ends pinned to one CPU: every strategy must hand the processor over (yield or
/// park) rather than spin out its time slice. Checks delivery only; rates are the
/// harness's business.
#[cfg(all(target_os = "linux", not(miri)))]
#[test]
fn both_ends_on_one_core() {
    fn pin_to_cpu0() {
        // SAFETY: `set` is a plain bit set that lives across the call; pid 0 is this thread.
        unsafe {
            let mut set: libc::cpu_set_t = core::mem::zeroed();
            libc::CPU_SET(0, &mut set);
            libc::sched_setaffinity(0, core::mem::size_of::<libc::cpu_set_t>(), &set);
        }
    }
    for wait in [Wait::Spin, Wait::Park, Wait::default()] {
        let (tx, rx) = Builder::new().wait(wait).bounded(64);
        let h = thread::spawn(move || {
            pin_to_cpu0();
            for i in 0..N {
                tx.send(i).unwrap();
            }
        });
        let c = thread::spawn(move || {
            pin_to_cpu0();
            rx.iter().sum::<usize>()
        });
        h.join().unwrap();
        assert_eq!(c.join().unwrap(), N * (N - 1) / 2);
    }
}

#[test]
fn switching_disciplines_keeps_order() {
    let (tx, rx) = unbounded();
    let mut expect = 0;
    let mut next = 0;
    for round in 0..N / 100 {
        let tx2 = tx.clone();
        let rx2 = rx.clone();
        for _ in 0..50 {
            if round % 2 == 0 {
                tx2.send(next).unwrap();
            } else {
                tx.send(next).unwrap();
            }
            next += 1;
        }
        for _ in 0..25 {
            assert_eq!(rx2.recv(), Ok(expect));
            expect += 1;
        }
        drop(tx2);
        drop(rx2);
        for _ in 0..50 {
            tx.send(next).unwrap();
            next += 1;
        }
        for _ in 0..75 {
            assert_eq!(rx.recv(), Ok(expect));
            expect += 1;
        }
    }
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

/// A bounded channel keeps the segments its capacity spans, so a steady stream through it
/// stops calling the allocator once they exist (as a ring buffer never does); an
/// unbounded one keeps a single spare.
#[test]
fn bounded_stream_keeps_its_segments() {
    let seg = crate::queue::SEG;
    let cap = 3 * (seg - 1);
    let (tx, rx) = bounded(cap);
    for round in 0..4u64 {
        for i in 0..cap as u64 {
            tx.send(round * 1000 + i).unwrap();
        }
        let peak = rx.allocated_segments();
        for i in 0..cap as u64 {
            assert_eq!(rx.recv(), Ok(round * 1000 + i));
        }
        assert_eq!(
            rx.allocated_segments(),
            peak,
            "a drained bounded channel keeps its segments"
        );
        assert!(peak <= cap.div_ceil(seg - 1) + 2, "{peak} segments");
    }
}

#[test]
fn batches() {
    let (tx, rx) = bounded(5);
    let h = thread::spawn(move || tx.send_iter(0..N).unwrap());
    let mut buf = Vec::new();
    while buf.len() < N {
        let got = rx.recv_many(&mut buf, 64).unwrap();
        assert!((1..=64).contains(&got));
    }
    assert_eq!(h.join().unwrap(), N);
    assert_eq!(buf, (0..N).collect::<Vec<_>>());
    assert_eq!(rx.recv_many(&mut buf, 0), Ok(0));
    assert_eq!(rx.recv_many(&mut buf, 4), Err(RecvError));
    let (tx, rx) = unbounded();
    assert_eq!(tx.send_batch(vec![1, 2, 3]), Ok(3));
    let mut buf = Vec::new();
    assert_eq!(rx.try_recv_many(&mut buf, 2), 2);
    assert_eq!(buf, vec![1, 2]);
    drop(rx);
    assert_eq!(tx.send_iter([4, 5]), Err(SendError(4)));
}

#[test]
fn a_panicking_batch_publishes_what_it_sent() {
    let (tx, rx) = unbounded::<usize>();
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        tx.send_iter((0..600).map(|i| if i == 555 { panic!("boom") } else { i }))
    }));
    assert!(r.is_err());
    tx.send(1000).unwrap();
    let mut buf = Vec::new();
    while buf.len() < 556 {
        rx.recv_many(&mut buf, 100).unwrap();
    }
    let mut want: Vec<usize> = (0..555).collect();
    want.push(1000);
    assert_eq!(buf, want);
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn borrowing_receive() {
    let drops = StdArc::new(StdAtomicUsize::new(0));
    let (tx, mut rx) = unbounded();
    for i in 0..N {
        tx.send((i, Tracked(drops.clone(), i))).unwrap();
    }
    for i in 0..N / 2 {
        let g = rx.recv_ref().unwrap();
        assert_eq!(g.0, i);
    }
    assert_eq!(drops.load(Ordering::SeqCst), N / 2);
    // Shared receivers lend in place too.
    let rx2 = rx.clone();
    let mut i = N / 2;
    while i < N - 1 {
        {
            let mut g = rx.try_recv_ref().unwrap();
            assert_eq!(g.0, i);
            g.0 = usize::MAX;
        }
        let (j, t) = rx2.recv().unwrap();
        assert_eq!(j, i + 1);
        drop(t);
        i += 2;
    }
    drop(rx2);
    while let Ok(g) = rx.try_recv_ref() {
        let (j, t) = g.take();
        assert_eq!(j, i);
        drop(t);
        i += 1;
    }
    assert_eq!(i, N);
    assert_eq!(drops.load(Ordering::SeqCst), N);
    drop(tx);
    assert_eq!(rx.try_recv_ref().unwrap_err(), TryRecvError::Disconnected);
    assert!(rx.recv_ref().is_err());
}

#[test]
fn memory_goes_back_after_a_burst() {
    let burst = if cfg!(miri) { 2_000 } else { 1_000_000 };
    let (tx, rx) = unbounded::<u64>();
    let idle = rx.allocated_segments();
    for i in 0..burst as u64 {
        tx.send(i).unwrap();
    }
    let peak = rx.allocated_segments();
    assert!(peak >= burst / crate::queue::SEG);
    let mut sum = 0;
    for _ in 0..burst {
        sum += rx.recv().unwrap();
    }
    assert_eq!(sum, (burst as u64) * (burst as u64 - 1) / 2);
    let after = rx.allocated_segments();
    // Within twice the idle channel's memory: the current segment and one spare.
    assert_eq!(idle, 1);
    assert!(
        after <= idle + FREE_CAP,
        "{after} segments held after the burst"
    );
    assert!(after <= 2 * idle);
    // Shared receivers give memory back too (through the segments' reader counts).
    let rx2 = rx.clone();
    for i in 0..burst as u64 {
        tx.send(i).unwrap();
    }
    for i in 0..burst {
        let r = if i % 2 == 0 { &rx } else { &rx2 };
        r.recv().unwrap();
    }
    assert!(rx.allocated_segments() <= 2 * idle);
    drop(rx2);
    tx.send(0).unwrap();
    rx.recv().unwrap();
    assert!(rx.allocated_segments() <= 2 * idle);
}

#[test]
fn iterators() {
    let (tx, rx) = unbounded();
    tx.send_iter(0..10).unwrap();
    assert_eq!(rx.try_iter().take(3).collect::<Vec<_>>(), vec![0, 1, 2]);
    drop(tx);
    let v: Vec<i32> = (&rx).into_iter().collect();
    assert_eq!(v, (3..10).collect::<Vec<_>>());
    assert_eq!(rx.into_iter().next(), None);
}

/// The spinning budget halves when waits sleep (to the spinning rounds plus a couple of
/// yields, never below) and doubles back when waits end while yielding.
#[test]
fn spin_budget_adapts_to_how_waits_end() {
    let (tx, _rx) = Builder::new()
        .wait(Wait::SpinThenPark { spins: 100 })
        .bounded::<u8>(1);
    let chan = &*tx.chan;
    let budget = || chan.spin_budget.load(Ordering::Relaxed);
    assert_eq!(budget(), 100);
    chan.adapt_budget(100, true);
    assert_eq!(budget(), 50);
    for _ in 0..10 {
        chan.adapt_budget(budget(), true);
    }
    assert_eq!(budget(), SPIN_ROUNDS + MIN_YIELDS);
    chan.adapt_budget(3, false); // ended while spinning: no change
    assert_eq!(budget(), SPIN_ROUNDS + MIN_YIELDS);
    chan.adapt_budget(SPIN_ROUNDS + 1, false); // ended while yielding
    assert_eq!(budget(), 2 * (SPIN_ROUNDS + MIN_YIELDS));
    for _ in 0..10 {
        chan.adapt_budget(SPIN_ROUNDS + 1, false);
    }
    assert_eq!(budget(), 100, "never above the strategy's spins");
}

#[test]
fn iterators_are_fused_and_debug() {
    fn fused<I: core::iter::FusedIterator>(_: &I) {}
    let (tx, rx) = unbounded::<u8>();
    tx.send(1).unwrap();
    drop(tx);
    let mut it = rx.iter();
    fused(&it);
    assert!(format!("{it:?}").starts_with("Iter"));
    assert_eq!(it.next(), Some(1));
    assert_eq!(it.next(), None);
    assert_eq!(it.next(), None, "stays ended");
    assert!(format!("{:?}", rx.try_iter()).starts_with("TryIter"));
    let it = rx.into_iter();
    fused(&it);
    assert!(format!("{it:?}").starts_with("IntoIter"));
}

#[test]
fn counts_and_identity() {
    let (tx, rx) = unbounded::<()>();
    let tx2 = tx.clone();
    assert!(tx.same_channel(&tx2));
    assert_eq!(tx.sender_count(), 2);
    let rx2 = rx.clone();
    assert!(rx.same_channel(&rx2));
    assert_eq!(rx2.receiver_count(), 2);
    assert_eq!((tx.receiver_count(), rx.sender_count()), (2, 2));
    drop(tx2);
    assert_eq!(tx.sender_count(), 1);
    assert_eq!(rx2.sender_count(), 1);
    drop(rx2);
    assert_eq!(tx.receiver_count(), 1);
    let (other, _r) = unbounded::<()>();
    assert!(!tx.same_channel(&other));
}

#[test]
fn progress_constants() {
    use crate::progress::{Progress, ProgressGuarantee, require_lock_free};
    assert_eq!(
        <Sender<u8> as ProgressGuarantee>::PROGRESS,
        Progress::Blocking
    );
    assert!(<spsc::Receiver<u8> as ProgressGuarantee>::PROGRESS.is_lock_free());
    require_lock_free::<spsc::Sender<u8>>();
}

#[test]
fn remarks_name_sites_and_implementations() {
    let (tx, rx) = bounded::<u8>(4);
    let line = line!() - 1;
    assert_eq!(tx.chan.site.line(), line);
    assert!(tx.chan.site.file().ends_with("tests.rs"));
    let tx2 = tx.clone();
    assert_eq!(tx2.made_at.line(), line + 4);
    let l = tx.chan.change_line("clone", tx2.made_at);
    assert!(l.contains(": mpsc, bounded(4) (senders: 2, receivers: 1) after clone at "));
    assert!(l.ends_with(&format!(":{}:{}", line + 4, tx2.made_at.column())));
    let rx2 = rx.clone();
    drop(tx2);
    let l = rx
        .chan
        .change_line("drop of the receiver made", rx2.made_at);
    assert!(l.contains("spmc, bounded(4) (senders: 1, receivers: 2)"));
    let (z, _r) = bounded::<u8>(0);
    assert_eq!(z.chan.kind(1, 1), "spsc, rendezvous");
    let (u, _r) = unbounded::<u8>();
    assert_eq!(u.chan.kind(1, 1), "spsc");
}

#[test]
fn spsc_handles_work() {
    let (tx, mut rx) = spsc::channel();
    let h = thread::spawn(move || {
        for i in 0..N {
            tx.send(i).unwrap();
        }
    });
    for i in 0..N {
        assert_eq!(*rx.recv_ref().unwrap(), i);
    }
    h.join().unwrap();
    assert_eq!(rx.recv(), Err(RecvError));
    let (tx, rx) = spsc::bounded(2);
    tx.try_send(1).unwrap();
    tx.try_send(2).unwrap();
    assert!(tx.try_send(3).unwrap_err().is_full());
    assert_eq!(rx.try_iter().collect::<Vec<_>>(), vec![1, 2]);
}

#[test]
fn spin_waiters_never_park() {
    // A spinning channel's senders never notify: a waiter that went to sleep after some
    // (large) number of rounds would never wake.
    for round in [0, 100, u32::MAX - 1, u32::MAX] {
        assert!(!parks_after(Wait::Spin, round, 0));
        assert!(parks_after(Wait::Park, round, u32::MAX));
    }
    assert!(!parks_after(Wait::SpinThenPark { spins: 3 }, 2, 100));
    assert!(parks_after(Wait::SpinThenPark { spins: 3 }, 3, 100));
    assert!(parks_after(Wait::SpinThenPark { spins: 100 }, 20, 20));
}

#[test]
fn rendezvous_send_fails_when_the_receiver_leaves_without_taking() {
    for wait in [Wait::Park, Wait::Spin, Wait::default()] {
        let (tx, rx) = Builder::new().wait(wait).bounded::<String>(0);
        let h = thread::spawn(move || tx.send("kept".to_string()));
        // Wait until the element is offered, then leave without taking it.
        while rx.chan.queue.len() == 0 {
            thread::yield_now();
        }
        drop(rx);
        assert_eq!(h.join().unwrap(), Err(SendError("kept".to_string())));
    }
}

#[test]
fn rendezvous_send_timeout_hands_the_value_back() {
    let (tx, rx) = bounded::<u32>(0);
    assert_eq!(
        tx.send_timeout(1, Duration::from_millis(5)),
        Err(SendTimeoutError::Timeout(1))
    );
    assert_eq!(
        tx.send_deadline(2, Instant::now()),
        Err(SendTimeoutError::Timeout(2))
    );
    // Nothing stayed buffered for a later receive.
    assert_eq!(rx.try_recv(), Err(TryRecvError::Empty));
    assert_eq!(rx.chan.queue.len(), 0);
    // And with a receiver waiting, the element is delivered.
    let h = thread::spawn(move || rx.recv());
    assert_eq!(tx.send_timeout(3, Duration::from_secs(60)), Ok(()));
    assert_eq!(h.join().unwrap(), Ok(3));
}

#[test]
fn rendezvous_reports_no_room_and_no_length() {
    let (tx, rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
    assert!(tx.is_full() && tx.is_empty());
    assert_eq!((tx.len(), rx.len()), (0, 0));
    let h = thread::spawn(move || tx.send(7));
    while rx.chan.queue.len() == 0 {
        thread::yield_now();
    }
    // A sender blocked with its element offered: still nothing "in" the channel.
    assert_eq!(rx.len(), 0);
    assert!(rx.is_empty());
    assert_eq!(rx.recv(), Ok(7));
    assert_eq!(h.join().unwrap(), Ok(()));
}

#[test]
fn bounded_len_never_exceeds_capacity() {
    let (tx, rx) = bounded::<usize>(2);
    let rx2 = rx.clone();
    let h = thread::spawn(move || {
        for i in 0..N {
            tx.send(i).unwrap();
            assert!(tx.len() <= 2);
        }
    });
    let mut n = 0;
    while n < N {
        let r = if n % 2 == 0 { &rx } else { &rx2 };
        assert!(r.len() <= 2);
        if r.try_recv().is_ok() {
            n += 1;
        }
    }
    h.join().unwrap();
}

#[test]
fn last_receiver_drops_what_is_left() {
    let drops = StdArc::new(StdAtomicUsize::new(0));
    for cap in [None, Some(100)] {
        drops.store(0, Ordering::SeqCst);
        let (tx, rx) = match cap {
            None => unbounded(),
            Some(c) => bounded(c),
        };
        let rx2 = rx.clone();
        for i in 0..10 {
            tx.send(Tracked(drops.clone(), i)).unwrap();
        }
        drop(rx);
        assert_eq!(drops.load(Ordering::SeqCst), 0, "another receiver remains");
        drop(rx2);
        assert_eq!(
            drops.load(Ordering::SeqCst),
            10,
            "dropped with the last receiver"
        );
        assert!(tx.send(Tracked(drops.clone(), 10)).is_err());
        assert_eq!(drops.load(Ordering::SeqCst), 11);
    }
}

#[test]
fn rendezvous_try_send_meets_a_borrowing_receiver() {
    let (tx, mut rx) = Builder::new().wait(Wait::Park).bounded::<u32>(0);
    let h = thread::spawn(move || *rx.recv_ref().unwrap());
    let mut v = 7;
    loop {
        match tx.try_send(v) {
            Ok(()) => break,
            Err(TrySendError::Full(back)) => {
                v = back;
                thread::yield_now();
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(h.join().unwrap(), 7);
}

#[test]
fn rendezvous_try_send_ok_means_delivered() {
    // A receiver with a short timeout: `try_send` either fails (the receiver left) or the
    // receiver got the element; never `Ok` with the element left behind.
    let rounds = if cfg!(miri) { 5 } else { 200 };
    for _ in 0..rounds {
        let (tx, rx) = bounded::<u32>(0);
        let h = thread::spawn(move || rx.recv_timeout(Duration::from_micros(50)).ok());
        let mut sent = false;
        while !h.is_finished() {
            if tx.try_send(1).is_ok() {
                sent = true;
                break;
            }
        }
        let got = h.join().unwrap();
        assert_eq!(sent, got.is_some(), "sent {sent}, received {got:?}");
    }
}
