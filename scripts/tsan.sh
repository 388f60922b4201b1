#!/usr/bin/env bash
# Opt-in: ThreadSanitizer (nightly, -Zsanitizer=thread with a rebuilt standard library) over the
# lock, channel and par crates' tests, stress tests included. About 15 minutes on 2 cores; needs
# the nightly toolchain with rust-src (`rustup toolchain install nightly --component rust-src`).
# Tests that spin 64 threads on 2 cores run slowly under TSan; they pass, slowly.
set -euo pipefail
cd "$(dirname "$0")/.."
# `welltempered_tsan` lets a test that measures fairness by timing step aside here, as
# crossbeam's own do under its `crossbeam_sanitize` (the sanitizer slows threads unevenly).
export RUSTFLAGS="-Zsanitizer=thread --cfg welltempered_tsan"
export RUSTDOCFLAGS="-Zsanitizer=thread"
export CARGO_TARGET_DIR=target/tsan
# Any report fails the run (TSan's default exit code 66 for a reported race).
export TSAN_OPTIONS="${TSAN_OPTIONS:-halt_on_error=1}"
cargo +nightly test -Zbuild-std --target "$(rustc -vV | sed -n 's/^host: //p')" \
    -p welltempered-lock -p welltempered-channel -p welltempered-par --tests "$@"
