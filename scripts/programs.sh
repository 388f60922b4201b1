#!/usr/bin/env bash
# Real Rust programs, unmodified, on welltempered: each is built twice from its published
# crate, as published and with `[patch.crates-io]` pointing its channel or lock dependency at
# compat/; then `welltempered programs` (the harness's section) runs both builds on the same
# input, alternately, and compares them: output (identical or not), and wall time, CPU time and
# peak RSS as paired ratios. Opt-in (README.md): it builds each program twice in release.
#
# Programs (pinned):
#   fd   fd-find 10.5.0, a parallel file walker: its walker threads send batches of paths over a
#        crossbeam-channel `bounded(2 * threads)` to one receiver that prints them. Input: a tree
#        of FD_FILES files (default 200000) in directories of 100. Output compared sorted (the
#        walk order differs between runs of either build).
#
#   logger  slog-async 2.8.0 (with slog 2.8.2), an asynchronous logger: logging threads send
#        records over a crossbeam-channel `bounded` to one writing thread. The workload is
#        scripts/programs/logger.rs: 2 threads log 5 * 10^6 records each (LOG_THREADS, LOG_LINES),
#        blocking when the channel is full, so nothing is dropped. Output compared sorted.
#   pool  rusty_pool 1.0.0, a thread pool whose workers share a crossbeam-channel `unbounded`:
#        scripts/programs/pool.rs submits 10^6 small jobs (POOL_JOBS) to 2 workers
#        (POOL_WORKERS) and prints their count and checksum.
#   runtime  tokio 1.54.1's multi-thread runtime with its `parking_lot` feature, its internal
#        mutexes and condition variables parking_lot's, patched to compat/parking_lot:
#        scripts/programs/runtime.rs spawns 10^6 tasks (RT_TASKS) and 10^5 blocking jobs
#        (RT_BLOCKING) from outside the runtime, in batches of 1000, on 2 workers (RT_WORKERS).
# The workloads of logger, pool and runtime are small programs of ours around the published crates,
# built twice the same way (as resolved, and with the patch).
#
# Usage: scripts/programs.sh [fd|logger|pool|runtime ...]   (default: every program)
#   PROGRAMS_DIR=DIR  work directory (default: target/programs, where `welltempered programs`
#                     looks); builds are reused (the patched ones rebuilt when compat/ changed).
#   REPS=N            alternating pairs of runs (default 10).
#   BUILD_ONLY=1      build (and make fd's tree), measure nothing.
#   REMARKS=1         also show, per program, the channels its patched build made (run-time
#                     remarks) beside cargo welltempered check's verdicts on the crate.
# Needs network for the first fetch of each program (cargo, from crates.io) and python3 (which
# makes fd's tree).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${PROGRAMS_DIR:-$root/target/programs}
reps=${REPS:-10}
mkdir -p "$work"
work=$(cd "$work" && pwd)
cargo_home=${CARGO_HOME:-$HOME/.cargo}

# The published source of crate NAME at VERSION in cargo's registry cache (once a build has
# fetched it).
registry_source() {
    ls -d "$cargo_home"/registry/src/*/"$1-$2" | head -1
}

# Builds crate NAME at VERSION as published into $work/NAME/base, and from a copy of its source
# with `[patch.crates-io] PATCHED = compat/PATCHED` into $work/NAME/ours.
build_both() {
    local name=$1 version=$2 patched=$3 dir=$work/$1
    mkdir -p "$dir"
    if [ ! -x "$dir/base/bin/$4" ]; then
        echo "building $name $version as published" >&2
        CARGO_TARGET_DIR=$dir/target-base cargo install --quiet --locked "$name" \
            --version "=$version" --root "$dir/base"
    fi
    if [ ! -f "$dir/src/Cargo.lock" ] || ! grep -q "welltempered-channel\|welltempered-lock" "$dir/src/Cargo.lock"; then
        # `cargo install` unpacked the published source into cargo's registry cache.
        rm -rf "$dir/src"
        cp -r "$(registry_source "$name" "$version")" "$dir/src"
        printf '\n[patch.crates-io]\n%s = { path = "%s" }\n[workspace]\n' \
            "$patched" "$root/compat/$patched" >>"$dir/src/Cargo.toml"
        # A lock entry of an older $patched keeps the patch unused: move that one entry to
        # the patch (the rest of the published lock is kept).
        cargo update --quiet --manifest-path "$dir/src/Cargo.toml" -p "$patched"
        if ! grep -q "welltempered-channel" "$dir/src/Cargo.lock"; then
            echo "the patch did not take: $dir/src/Cargo.lock has no welltempered-channel" >&2
            exit 1
        fi
    fi
    # Built every time (cargo rebuilds only what changed), so that a change to compat/ is in.
    echo "building $name $version with $patched patched to compat/$patched" >&2
    CARGO_TARGET_DIR=$dir/target-ours cargo build --quiet --release \
        --manifest-path "$dir/src/Cargo.toml" --bin "$4"
    mkdir -p "$dir/ours"
    cp "$dir/target-ours/release/$4" "$dir/ours/$4"
}

# Runs BASE and OURS alternately ($reps pairs); each command's stdout, sorted, must be the same
# for every run. Prints the paired ratios (median and range) of wall time, CPU time and peak RSS.

fd() {
    local files=${FD_FILES:-200000} tree=$work/fd-tree
    build_both fd-find 10.5.0 crossbeam-channel fd
    if [ ! -f "$tree/.files-$files" ]; then
        rm -rf "$tree"
        python3 - "$tree" "$files" <<'EOF'
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
exts = ("rs", "txt", "md", "c", "json")
for i in range(n):
    d = os.path.join(root, f"d{i // 10000:03}", f"e{(i // 100) % 100:02}")
    if i % 100 == 0:
        os.makedirs(d, exist_ok=True)
    open(os.path.join(d, f"f{i % 100:02}.{exts[i % 5]}"), "w").close()
open(os.path.join(root, f".files-{n}"), "w").close()
EOF
    fi
    remarks "$(registry_source fd-find 10.5.0)" "$work/fd-find/ours/fd" --hidden . "$tree"
}

# With REMARKS=1: the channels the patched program made, from its run-time remarks
# (WELLTEMPERED_REMARKS=1, once, on the arguments given), beside `cargo welltempered check`'s
# static verdicts on CRATE_DIR, the published crate that makes them.
remarks() {
    local crate_dir=$1
    shift
    [ "${REMARKS:-0}" = 1 ] || return 0
    local analyzer=$root/target/release/cargo-welltempered
    cargo build --quiet --release --manifest-path "$root/Cargo.toml" -p welltempered-analyze \
        --bin cargo-welltempered
    echo "  run-time remarks of the patched build:"
    WELLTEMPERED_REMARKS=1 "$@" 2>&1 >/dev/null | grep '^remark:' | awk '!seen[$0]++' |
        sed "s|$cargo_home/registry/src/[^/]*/||g; s/^/    /"
    echo "  static verdicts, cargo welltempered check on $(basename "$crate_dir"):"
    "$analyzer" welltempered check "$crate_dir" 2>&1 | sed "s|$cargo_home/registry/src/[^/]*/||g; s/^/    /"
}

# Builds the workload scripts/programs/NAME.rs against the crates DEP... ("name = \"=version\""),
# as resolved into $work/NAME/base and, with the same lock but PATCHED (crossbeam-channel or
# parking_lot) patched to compat/PATCHED, into $work/NAME/ours.
build_workload() {
    local name=$1 patched=$2 dir=$work/$1 variant marker
    shift 2
    case $patched in
        crossbeam-channel) marker=welltempered-channel ;;
        parking_lot) marker=welltempered-lock ;;
        *) echo "no compat crate for $patched" >&2; exit 2 ;;
    esac
    for variant in base ours; do
        mkdir -p "$dir/$variant/src"
        cp "$root/scripts/programs/$name.rs" "$dir/$variant/src/main.rs"
        {
            printf '[package]\nname = "%s"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n' "$name"
            printf '[dependencies]\n'
            printf '%s\n' "$@"
            printf '[profile.release]\nlto = true\ncodegen-units = 1\n'
            if [ "$variant" = ours ]; then
                printf '[patch.crates-io]\n%s = { path = "%s" }\n' "$patched" \
                    "$root/compat/$patched"
            fi
            printf '[workspace]\n'
        } >"$dir/$variant/Cargo.toml"
        if [ "$variant" = ours ]; then
            cp "$dir/base/Cargo.lock" "$dir/ours/Cargo.lock"
            cargo update --quiet --manifest-path "$dir/ours/Cargo.toml" -p "$patched"
            if ! grep -q "$marker" "$dir/ours/Cargo.lock"; then
                echo "the patch did not take: $dir/ours/Cargo.lock has no $marker" >&2
                exit 1
            fi
        fi
        echo "building the $name workload ($variant)" >&2
        CARGO_TARGET_DIR=$dir/target-$variant cargo build --quiet --release \
            --manifest-path "$dir/$variant/Cargo.toml"
        cp "$dir/target-$variant/release/$name" "$dir/$variant/$name"
    done
}

logger() {
    build_workload logger crossbeam-channel 'slog = "=2.8.2"' 'slog-async = "=2.8.0"'
    remarks "$(registry_source slog-async 2.8.0)" env LOG_LINES=1000 "$work/logger/ours/logger"
}

pool() {
    build_workload pool crossbeam-channel 'rusty_pool = { version = "=1.0.0", default-features = false }'
    remarks "$(registry_source rusty_pool 1.0.0)" env POOL_JOBS=1000 "$work/pool/ours/pool"
}

runtime() {
    build_workload runtime parking_lot \
        'tokio = { version = "=1.54.1", features = ["rt-multi-thread", "parking_lot"] }'
}

programs=("$@")
[ ${#programs[@]} -gt 0 ] || programs=(fd logger pool runtime)
for p in "${programs[@]}"; do
    case $p in
        fd | logger | pool | runtime) ;;
        *) echo "unknown program: $p (known: fd, logger, pool, runtime)" >&2; exit 2 ;;
    esac
done
for p in "${programs[@]}"; do
    "$p"
done
[ "${BUILD_ONLY:-0}" = 1 ] && exit 0
# The measurement: the harness's programs section, on what was just built.
list=$(IFS=,; echo "${programs[*]}")
cargo run --quiet --release --manifest-path "$root/Cargo.toml" -p welltempered-bench -- \
    programs --no-build --dir "$work" --reps "$reps" --programs "$list" \
    --json "$work/programs.json" --out "$work/report"
