#!/usr/bin/env bash
# Opt-in: the loom models with a deeper preemption bound than CI's (3 instead of 2). Expect tens
# of minutes to hours on 2 cores; set LOOM_MAX_PREEMPTIONS to go deeper still.
set -euo pipefail
cd "$(dirname "$0")/.."
RUSTFLAGS="--cfg loom" LOOM_MAX_PREEMPTIONS="${LOOM_MAX_PREEMPTIONS:-3}" CARGO_TARGET_DIR=target/loom \
    cargo test --release -p welltempered-lock -p welltempered-channel --test 'loom*' -- --test-threads=1
