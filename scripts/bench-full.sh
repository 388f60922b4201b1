#!/usr/bin/env bash
# Opt-in: the full benchmark campaign (every section, every lock, every thread count), written to
# results/full/ (report.json with every raw sample, report.md, SVG plots). Run it on a quiet
# machine: nothing else should be building or running. Takes about an hour on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p welltempered-bench -p welltempered-preload
cargo run --release -p welltempered-bench -- report --out results/full "$@"
