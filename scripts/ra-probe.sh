#!/usr/bin/env bash
# The analysis's two front end candidates, measured on the same corpora (README of
# crates/analyze, "Front ends measured"): the syn walker that `cargo welltempered check` runs,
# and rust-analyzer's libraries (crates/analyze/ra-probe, a probe that finds every channel
# constructor by name resolution and answers the type questions the flow rules need). For each
# reach corpus it prints, per crate: the audited channels the probe finds, both front ends'
# times, the probe's peak memory and how many method calls it resolved; then the totals and the
# audited channels it did not find.
#
# Opt-in: it builds rust-analyzer's libraries (about 5 minutes on 2 cores), needs the standard
# library's sources (rust-src, of the default toolchain or of nightly), fetches the corpora's
# crates and their dependencies' manifests (cargo metadata, per crate), and runs a few minutes
# per corpus. Measure on a quiet machine: nothing else running.
#
# Usage: scripts/ra-probe.sh [tuning|validation ...]   (default: both)
#   RA_PROBE_DIR=DIR    work directory (default: target/ra-probe; builds and crate copies reused)
#   RA_PROBE_ARGS=ARGS  more arguments for the probe: --all-features, --target TRIPLE
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${RA_PROBE_DIR:-$root/target/ra-probe}
mkdir -p "$work"
work=$(cd "$work" && pwd)
corpora=("$@")
[ ${#corpora[@]} -gt 0 ] || corpora=(tuning validation)

echo "building the probe and the syn walker (release)" >&2
(cd "$root/crates/analyze/ra-probe" && CARGO_TARGET_DIR=$work/target cargo build --release --quiet)
(cd "$root" && cargo build --release --quiet -p welltempered-analyze --bin cargo-welltempered)
# The standard library's sources, for the probe to resolve std's names: the default
# toolchain's, else nightly's.
src=
for toolchain in "" +nightly; do
    # shellcheck disable=SC2086
    sysroot=$(rustc $toolchain --print sysroot 2>/dev/null) || continue
    if [ -d "$sysroot/lib/rustlib/src/rust/library" ]; then
        src=$sysroot/lib/rustlib/src/rust/library
        break
    fi
done
[ -n "$src" ] || { echo "no rust-src for any toolchain: rustup component add rust-src" >&2; exit 1; }
for corpus in "${corpora[@]}"; do
    case $corpus in
        tuning) dir=$root/crates/analyze/reach ;;
        validation) dir=$root/crates/analyze/reach/validation ;;
        *) echo "unknown corpus '$corpus' (tuning or validation)" >&2; exit 2 ;;
    esac
    echo "== $corpus corpus" >&2
    # The syn walker's table (this fetches the corpus's crates into the cargo registry).
    "$root/target/release/cargo-welltempered" welltempered reach --corpus "$corpus" >"$work/syn-$corpus.txt"
    # shellcheck disable=SC2086
    python3 "$root/scripts/ra-probe/run.py" "$work/target/release/wt-ra-probe" "$work/$corpus" \
        "$dir" "$work/syn-$corpus.txt" --sysroot-src "$src" ${RA_PROBE_ARGS:-}
done
