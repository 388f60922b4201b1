//! Tests for the zero channel flavor, ported to `welltempered_channel::bounded(0)` (a
//! rendezvous channel).
//!
//! Source: crossbeam-channel 0.5.17, `tests/zero.rs`
//! (<https://github.com/crossbeam-rs/crossbeam>, `crossbeam-channel/tests/zero.rs`).
//! Copyright (c) The Crossbeam Project Developers.
//! Licensed under the Apache License, Version 2.0 or the MIT license, at your option
//! (crossbeam-channel is MIT OR Apache-2.0; so is this project).
//!
//! Under Miri these suites run with `-Zmiri-disable-weak-memory-emulation` (see `.ci/run`):
//! like crossbeam's, many of their tests order threads by sleeps alone, which create no
//! happens-before, and Miri's weak-memory emulation may then let a load return a value older
//! than the sleep (which the memory model allows, and hardware does not do for a second). Data
//! races and undefined behaviour are still checked; the crate's own tests (`user_code.rs`,
//! `stress.rs`, the unit tests) run with the emulation on.
//!
//! Changes from the original:
//!
//! - Imports: `welltempered_channel` instead of `crossbeam_channel`; `fastrand::usize(a..b)`
//!   instead of `rand::thread_rng().gen_range(a..b)` (fastrand is already in Cargo.lock).
//! - Our `Sender`/`Receiver` are `Send` but not `Sync`: where the original's closures borrowed
//!   `s`/`r` from spawned threads, each thread gets its own clone (marked at each place). The
//!   originals stay alive until the scope ends, as in crossbeam.
//! - Under Miri only, `drops` makes 5 runs instead of crossbeam's 20, to keep the file within
//!   CI's Miri budget of about two minutes (marked there). Native runs keep crossbeam's counts.
//! - Timing: no test of the original asserts elapsed time, so no assertion was dropped. The
//!   tests that order their threads with sleeps (margins of 500 ms) are kept as they are.
//! - `#![cfg(not(loom))]`, as the crate's other non-loom tests.
//! - `fairness`, `fairness_duplicates` and `recv_in_send` use `welltempered_channel::select!`
//!   (they were left out until it existed); they are taken from the crossbeam repository at
//!   commit 7de845aa (crossbeam-channel 0.5.16 by its `Cargo.toml`), with a clone per spawned
//!   thread as above. One change (marked there): in `recv_in_send` the two helper threads'
//!   sleeps are swapped (the sender sleeps 100 ms, the receiver 500 ms). Crossbeam evaluates
//!   the send's message `r.recv().unwrap()` once the send is chosen, when the receiver thread
//!   already waits; ours evaluates a rendezvous send's message before the selection, so in the original order the main
//!   thread and the receiver thread would both wait in `r.recv()` for the one element sent,
//!   and which one gets it is up to the wake-up order: the loser would wait forever. Swapped,
//!   the main thread receives the sender thread's element, and its `select!` then sends to the
//!   receiver thread (margins of 400 ms). `#![allow(clippy::drop_non_drop)]` is for the
//!   expansion of `select!` (see there).
#![cfg(not(loom))]
// `select!` drops each case it did not choose with `mem::drop`, which clippy's `drop_non_drop`
// flags where the case owns nothing with drop glue (an issue of the macro's expansion).
#![allow(clippy::drop_non_drop)]

use std::any::Any;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering;
use std::thread;
use std::time::Duration;

use crossbeam_utils::thread::scope;
use welltempered_channel::{Receiver, bounded, select};
use welltempered_channel::{RecvError, RecvTimeoutError, TryRecvError};
use welltempered_channel::{SendError, SendTimeoutError, TrySendError};

fn ms(ms: u64) -> Duration {
    Duration::from_millis(ms)
}

#[test]
fn smoke() {
    let (s, r) = bounded(0);
    assert_eq!(s.try_send(7), Err(TrySendError::Full(7)));
    assert_eq!(r.try_recv(), Err(TryRecvError::Empty));
}

#[test]
fn capacity() {
    let (s, r) = bounded::<()>(0);
    assert_eq!(s.capacity(), Some(0));
    assert_eq!(r.capacity(), Some(0));
}

#[test]
fn len_empty_full() {
    let (s, r) = bounded(0);

    assert_eq!(s.len(), 0);
    assert!(s.is_empty());
    assert!(s.is_full());
    assert_eq!(r.len(), 0);
    assert!(r.is_empty());
    assert!(r.is_full());

    scope(|scope| {
        // welltempered: handles are not Sync; each thread gets its own clone
        let s = s.clone();
        scope.spawn(move |_| s.send(0).unwrap());
        // welltempered: handles are not Sync; each thread gets its own clone
        let r = r.clone();
        scope.spawn(move |_| r.recv().unwrap());
    })
    .unwrap();

    assert_eq!(s.len(), 0);
    assert!(s.is_empty());
    assert!(s.is_full());
    assert_eq!(r.len(), 0);
    assert!(r.is_empty());
    assert!(r.is_full());
}

#[test]
fn try_recv() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(r.try_recv(), Err(TryRecvError::Empty));
            thread::sleep(ms(1500));
            assert_eq!(r.try_recv(), Ok(7));
            thread::sleep(ms(500));
            assert_eq!(r.try_recv(), Err(TryRecvError::Disconnected));
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1000));
            s.send(7).unwrap();
        });
    })
    .unwrap();
}

#[test]
fn recv() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(r.recv(), Ok(7));
            thread::sleep(ms(1000));
            assert_eq!(r.recv(), Ok(8));
            thread::sleep(ms(1000));
            assert_eq!(r.recv(), Ok(9));
            assert_eq!(r.recv(), Err(RecvError));
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1500));
            s.send(7).unwrap();
            s.send(8).unwrap();
            s.send(9).unwrap();
        });
    })
    .unwrap();
}

#[test]
fn recv_timeout() {
    let (s, r) = bounded::<i32>(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(r.recv_timeout(ms(1000)), Err(RecvTimeoutError::Timeout));
            assert_eq!(r.recv_timeout(ms(1000)), Ok(7));
            assert_eq!(
                r.recv_timeout(ms(1000)),
                Err(RecvTimeoutError::Disconnected)
            );
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1500));
            s.send(7).unwrap();
        });
    })
    .unwrap();
}

#[test]
fn try_send() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(s.try_send(7), Err(TrySendError::Full(7)));
            thread::sleep(ms(1500));
            assert_eq!(s.try_send(8), Ok(()));
            thread::sleep(ms(500));
            assert_eq!(s.try_send(9), Err(TrySendError::Disconnected(9)));
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1000));
            assert_eq!(r.recv(), Ok(8));
        });
    })
    .unwrap();
}

#[test]
fn send() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            s.send(7).unwrap();
            thread::sleep(ms(1000));
            s.send(8).unwrap();
            thread::sleep(ms(1000));
            s.send(9).unwrap();
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1500));
            assert_eq!(r.recv(), Ok(7));
            assert_eq!(r.recv(), Ok(8));
            assert_eq!(r.recv(), Ok(9));
        });
    })
    .unwrap();
}

#[test]
fn send_timeout() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(
                s.send_timeout(7, ms(1000)),
                Err(SendTimeoutError::Timeout(7))
            );
            assert_eq!(s.send_timeout(8, ms(1000)), Ok(()));
            assert_eq!(
                s.send_timeout(9, ms(1000)),
                Err(SendTimeoutError::Disconnected(9))
            );
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1500));
            assert_eq!(r.recv(), Ok(8));
        });
    })
    .unwrap();
}

#[test]
fn len() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 25_000;

    let (s, r) = bounded(0);

    assert_eq!(s.len(), 0);
    assert_eq!(r.len(), 0);

    scope(|scope| {
        // welltempered: handles are not Sync; each thread gets its own clone
        let r = r.clone();
        scope.spawn(move |_| {
            for i in 0..COUNT {
                assert_eq!(r.recv(), Ok(i));
                assert_eq!(r.len(), 0);
            }
        });

        // welltempered: handles are not Sync; each thread gets its own clone
        let s = s.clone();
        scope.spawn(move |_| {
            for i in 0..COUNT {
                s.send(i).unwrap();
                assert_eq!(s.len(), 0);
            }
        });
    })
    .unwrap();

    assert_eq!(s.len(), 0);
    assert_eq!(r.len(), 0);
}

#[test]
fn disconnect_wakes_sender() {
    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(s.send(()), Err(SendError(())));
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1000));
            drop(r);
        });
    })
    .unwrap();
}

#[test]
fn disconnect_wakes_receiver() {
    let (s, r) = bounded::<()>(0);

    scope(|scope| {
        scope.spawn(move |_| {
            assert_eq!(r.recv(), Err(RecvError));
        });
        scope.spawn(move |_| {
            thread::sleep(ms(1000));
            drop(s);
        });
    })
    .unwrap();
}

#[test]
fn spsc() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 100_000;

    let (s, r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            for i in 0..COUNT {
                assert_eq!(r.recv(), Ok(i));
            }
            assert_eq!(r.recv(), Err(RecvError));
        });
        scope.spawn(move |_| {
            for i in 0..COUNT {
                s.send(i).unwrap();
            }
        });
    })
    .unwrap();
}

#[test]
fn mpmc() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 25_000;
    const THREADS: usize = 4;

    let (s, r) = bounded::<usize>(0);
    let v = (0..COUNT).map(|_| AtomicUsize::new(0)).collect::<Vec<_>>();
    let v = &v;

    scope(|scope| {
        for _ in 0..THREADS {
            // welltempered: handles are not Sync; each thread gets its own clone
            let r = r.clone();
            scope.spawn(move |_| {
                for _ in 0..COUNT {
                    let n = r.recv().unwrap();
                    v[n].fetch_add(1, Ordering::SeqCst);
                }
            });
        }
        for _ in 0..THREADS {
            // welltempered: handles are not Sync; each thread gets its own clone
            let s = s.clone();
            scope.spawn(move |_| {
                for i in 0..COUNT {
                    s.send(i).unwrap();
                }
            });
        }
    })
    .unwrap();

    for c in v {
        assert_eq!(c.load(Ordering::SeqCst), THREADS);
    }
}

#[test]
fn stress_oneshot() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 10_000;

    for _ in 0..COUNT {
        let (s, r) = bounded(0);

        scope(|scope| {
            // welltempered: handles are not Sync; each thread gets its own clone
            let r = r.clone();
            scope.spawn(move |_| r.recv().unwrap());
            // welltempered: handles are not Sync; each thread gets its own clone
            let s = s.clone();
            scope.spawn(move |_| s.send(0).unwrap());
        })
        .unwrap();
    }
}

#[test]
fn stress_iter() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 1000;

    let (request_s, request_r) = bounded(0);
    let (response_s, response_r) = bounded(0);

    scope(|scope| {
        scope.spawn(move |_| {
            let mut count = 0;
            loop {
                for x in response_r.try_iter() {
                    count += x;
                    if count == COUNT {
                        return;
                    }
                }
                let _ = request_s.try_send(());
            }
        });

        for _ in request_r.iter() {
            if response_s.send(1).is_err() {
                break;
            }
        }
    })
    .unwrap();
}

#[test]
fn stress_timeout_two_threads() {
    const COUNT: usize = 100;

    let (s, r) = bounded(0);

    scope(|scope| {
        // welltempered: handles are not Sync; each thread gets its own clone
        let s = s.clone();
        scope.spawn(move |_| {
            for i in 0..COUNT {
                if i % 2 == 0 {
                    thread::sleep(ms(50));
                }
                loop {
                    if let Ok(()) = s.send_timeout(i, ms(10)) {
                        break;
                    }
                }
            }
        });

        // welltempered: handles are not Sync; each thread gets its own clone
        let r = r.clone();
        scope.spawn(move |_| {
            for i in 0..COUNT {
                if i % 2 == 0 {
                    thread::sleep(ms(50));
                }
                loop {
                    if let Ok(x) = r.recv_timeout(ms(10)) {
                        assert_eq!(x, i);
                        break;
                    }
                }
            }
        });
    })
    .unwrap();
}

#[test]
fn drops() {
    // welltempered: 5 runs under Miri (20 in crossbeam), to keep this file within CI's Miri
    // budget of about two minutes (each rendezvous is slow under Miri).
    #[cfg(miri)]
    const RUNS: usize = 5;
    #[cfg(not(miri))]
    const RUNS: usize = 100;
    #[cfg(miri)]
    const STEPS: usize = 100;
    #[cfg(not(miri))]
    const STEPS: usize = 10_000;

    static DROPS: AtomicUsize = AtomicUsize::new(0);

    #[derive(Debug, PartialEq)]
    struct DropCounter;

    impl Drop for DropCounter {
        fn drop(&mut self) {
            DROPS.fetch_add(1, Ordering::SeqCst);
        }
    }

    for _ in 0..RUNS {
        let steps = fastrand::usize(0..STEPS);

        DROPS.store(0, Ordering::SeqCst);
        let (s, r) = bounded::<DropCounter>(0);

        scope(|scope| {
            // welltempered: handles are not Sync; each thread gets its own clone
            let r = r.clone();
            scope.spawn(move |_| {
                for _ in 0..steps {
                    r.recv().unwrap();
                }
            });

            // welltempered: handles are not Sync; each thread gets its own clone
            let s = s.clone();
            scope.spawn(move |_| {
                for _ in 0..steps {
                    s.send(DropCounter).unwrap();
                }
            });
        })
        .unwrap();

        assert_eq!(DROPS.load(Ordering::SeqCst), steps);
        drop(s);
        drop(r);
        assert_eq!(DROPS.load(Ordering::SeqCst), steps);
    }
}

#[test]
fn fairness() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 10_000;

    let (s1, r1) = bounded::<()>(0);
    let (s2, r2) = bounded::<()>(0);

    scope(|scope| {
        // welltempered: handles are not Sync; each thread gets its own clone
        let (r1, r2) = (r1.clone(), r2.clone());
        scope.spawn(move |_| {
            let mut hits = [0usize; 2];
            for _ in 0..COUNT {
                select! {
                    recv(r1) -> _ => hits[0] += 1,
                    recv(r2) -> _ => hits[1] += 1,
                }
            }
            assert!(hits.iter().all(|x| *x >= COUNT / hits.len() / 2));
        });

        let mut hits = [0usize; 2];
        for _ in 0..COUNT {
            select! {
                send(s1, ()) -> _ => hits[0] += 1,
                send(s2, ()) -> _ => hits[1] += 1,
            }
        }
        assert!(hits.iter().all(|x| *x >= COUNT / hits.len() / 2));
    })
    .unwrap();
}

#[test]
fn fairness_duplicates() {
    #[cfg(miri)]
    const COUNT: usize = 100;
    #[cfg(not(miri))]
    const COUNT: usize = 10_000;

    let (s, r) = bounded::<()>(0);

    scope(|scope| {
        // welltempered: handles are not Sync; each thread gets its own clone
        let r = r.clone();
        scope.spawn(move |_| {
            let mut hits = [0usize; 5];
            for _ in 0..COUNT {
                select! {
                    recv(r) -> _ => hits[0] += 1,
                    recv(r) -> _ => hits[1] += 1,
                    recv(r) -> _ => hits[2] += 1,
                    recv(r) -> _ => hits[3] += 1,
                    recv(r) -> _ => hits[4] += 1,
                }
            }
            assert!(hits.iter().all(|x| *x >= COUNT / hits.len() / 2));
        });

        let mut hits = [0usize; 5];
        for _ in 0..COUNT {
            select! {
                send(s, ()) -> _ => hits[0] += 1,
                send(s, ()) -> _ => hits[1] += 1,
                send(s, ()) -> _ => hits[2] += 1,
                send(s, ()) -> _ => hits[3] += 1,
                send(s, ()) -> _ => hits[4] += 1,
            }
        }
        assert!(hits.iter().all(|x| *x >= COUNT / hits.len() / 2));
    })
    .unwrap();
}

#[test]
fn recv_in_send() {
    let (s, r) = bounded(0);

    // welltempered: crossbeam's `select!` evaluates the message `r.recv().unwrap()` once the
    // send is chosen, that is once the first thread (after 100 ms) waits in `r.recv()`; ours
    // evaluates a rendezvous send's message before the selection, so this thread would wait in `r.recv()` beside the
    // first thread for the second thread's element, and the one that lost it would wait
    // forever. The two sleeps are swapped: the second thread sends at 100 ms, to this thread's
    // message, and the first thread receives at 500 ms, what the select sends.
    scope(|scope| {
        {
            // welltempered: handles are not Sync; each thread gets its own clone
            let r = r.clone();
            scope.spawn(move |_| {
                thread::sleep(ms(500));
                r.recv()
            });
        }

        {
            // welltempered: handles are not Sync; each thread gets its own clone
            let s = s.clone();
            scope.spawn(move |_| {
                thread::sleep(ms(100));
                s.send(()).unwrap();
            });
        }

        select! {
            send(s, r.recv().unwrap()) -> _ => {}
        }
    })
    .unwrap();
}

#[test]
fn channel_through_channel() {
    #[cfg(miri)]
    const COUNT: usize = 50;
    #[cfg(not(miri))]
    const COUNT: usize = 1000;

    type T = Box<dyn Any + Send>;

    let (s, r) = bounded::<T>(0);

    scope(|scope| {
        scope.spawn(move |_| {
            let mut s = s;

            for _ in 0..COUNT {
                let (new_s, new_r) = bounded(0);
                let new_r: T = Box::new(Some(new_r));

                s.send(new_r).unwrap();
                s = new_s;
            }
        });

        scope.spawn(move |_| {
            let mut r = r;

            for _ in 0..COUNT {
                r = r
                    .recv()
                    .unwrap()
                    .downcast_mut::<Option<Receiver<T>>>()
                    .unwrap()
                    .take()
                    .unwrap()
            }
        });
    })
    .unwrap();
}
