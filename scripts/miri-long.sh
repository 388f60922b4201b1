#!/usr/bin/env bash
# Opt-in: the Miri runs that CI leaves out for time (about 20 minutes on 2 cores):
# - the ported crossbeam-channel suites (`crossbeam_*`, about 7 minutes under Miri). They order
#   threads by sleeps alone (no happens-before), so with weak-memory emulation a load may return
#   a value older than the sleep: they run without it (data races and UB are still checked).
#   CI runs them natively and under ThreadSanitizer.
# - the par team's tests, the user-code tests of the lock, channel and team, the lock's
#   release-then-free tests and the channel's rendezvous tests under 8 more schedules
#   (`-Zmiri-many-seeds=1..9`); CI runs them under seed 0, and all but the team's tests under
#   seeds 1 to 4 (the user-code tests of the channel and team under 1 and 2).
# Needs the nightly toolchain with miri and rust-src.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR=target/miri
cargo +nightly miri setup >/dev/null
MIRIFLAGS="-Zmiri-disable-weak-memory-emulation ${MIRIFLAGS:-}" \
    cargo +nightly miri test -p welltempered-channel --test 'crossbeam_*'
MIRIFLAGS="-Zmiri-many-seeds=1..9 ${MIRIFLAGS:-}" \
    cargo +nightly miri test -p welltempered-par --test user_code --test team
MIRIFLAGS="-Zmiri-many-seeds=1..9 ${MIRIFLAGS:-}" \
    cargo +nightly miri test -p welltempered-channel --test user_code
MIRIFLAGS="-Zmiri-many-seeds=1..9 ${MIRIFLAGS:-}" \
    cargo +nightly miri test -p welltempered-lock --test release_then_free --test user_code
MIRIFLAGS="-Zmiri-many-seeds=1..9 ${MIRIFLAGS:-}" \
    cargo +nightly miri test -p welltempered-channel --lib -- rendezvous last_receiver
