//! The remarks that `WELLTEMPERED_REMARKS=1` prints, read from a child process (the flag is
//! read once per process): the first line, the changes, and the last line's peak handle counts.

use std::process::Command;

/// Run by `remarks_name_every_change_and_the_peaks` in a child process with remarks on.
#[test]
#[ignore = "a child of remarks_name_every_change_and_the_peaks, run with WELLTEMPERED_REMARKS=1"]
fn child_makes_channels() {
    // Three senders at once, then back to one; one receiver.
    let (tx, rx) = welltempered_channel::unbounded::<u32>();
    let (tx2, tx3) = (tx.clone(), tx.clone());
    drop((tx2, tx3));
    tx.send(1).unwrap();
    drop((tx, rx));
    // Shared handles from the start, never cloned.
    let (tx, rx) = welltempered_channel::shared::bounded::<u32>(4);
    tx.send(2).unwrap();
    assert_eq!(rx.recv(), Ok(2));
    drop((tx, rx));
    // Shared handles, a second receiver.
    let (tx, rx) = welltempered_channel::shared::unbounded::<u32>();
    let rx2 = rx.clone();
    drop((tx, rx, rx2));
}

#[test]
fn remarks_name_every_change_and_the_peaks() {
    let out = Command::new(std::env::current_exe().unwrap())
        .args([
            "--ignored",
            "--exact",
            "child_makes_channels",
            "--test-threads=1",
        ])
        .env("WELLTEMPERED_REMARKS", "1")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let err = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = err.lines().filter(|l| l.starts_with("remark:")).collect();
    let tail = |i: usize| {
        lines[i]
            .split_once(": ")
            .unwrap()
            .1
            .split_once(": ")
            .unwrap()
            .1
    };
    assert_eq!(lines.len(), 13, "{err}");
    assert_eq!(tail(0), "spsc (senders: 1, receivers: 1)");
    assert!(tail(1).starts_with("mpsc (senders: 2, receivers: 1) after clone at "));
    assert!(tail(2).starts_with("spsc (senders: 1, receivers: 1) after drop of the sender made"));
    assert_eq!(
        tail(3),
        "dropped; at most 3 senders and 1 receivers at once (mpsc by its handles)"
    );
    assert_eq!(tail(4), "spsc, bounded(4) (senders: 1, receivers: 1)");
    assert!(tail(5).starts_with("mpsc, bounded(4) (senders: 1, receivers: 1) after into_shared"));
    assert!(tail(6).starts_with("mpmc, bounded(4) (senders: 1, receivers: 1) after into_shared"));
    assert_eq!(
        tail(7),
        "dropped; at most 1 senders and 1 receivers at once (spsc by its handles)"
    );
    assert!(tail(11).starts_with("mpmc (senders: 1, receivers: 2) after clone at "));
    assert_eq!(
        tail(12),
        "dropped; at most 1 senders and 2 receivers at once (spmc by its handles)"
    );
}
