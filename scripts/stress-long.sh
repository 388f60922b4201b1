#!/usr/bin/env bash
# Opt-in: the long stress runs. 10^8 messages through the channel under clone/drop storms
# (WELLTEMPERED_STRESS_MESSAGES overrides), then the lock and preload stress tests in release.
set -euo pipefail
cd "$(dirname "$0")/.."
WELLTEMPERED_STRESS_MESSAGES="${WELLTEMPERED_STRESS_MESSAGES:-100000000}" \
    cargo test --release -p welltempered-channel --test stress -- --test-threads=1 --nocapture
cargo test --release -p welltempered-lock --test stress_queue --test mutex --test kind
cargo test --release -p welltempered-preload
