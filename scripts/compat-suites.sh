#!/usr/bin/env bash
# The peer crates' own test suites, run against the drop-in crates of compat/ (README.md,
# "Drop-in crates"). For each peer, at the version its compat crate pins:
#   1. cargo fetches the peer's published crate from crates.io (its package ships its tests);
#   2. its tests (tests/, and for parking_lot the `#[cfg(test)]` modules of src/, which use
#      only its public API) are copied into a scratch package whose `crossbeam_channel` (say)
#      is compat/crossbeam-channel, with the peer's dev-dependencies;
#   3. `cargo test` runs them, skipping only the tests listed below, each with its reason.
# Nothing fetched is kept in the repository; the scratch packages live in a temporary
# directory (COMPAT_SUITES_DIR to choose it; its target/ is reused between runs).
# CI runs this (.ci/run). Needs network for the first fetch of each peer.
#
# Usage: scripts/compat-suites.sh [crossbeam-channel|parking_lot ...]   (default: every peer)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${COMPAT_SUITES_DIR:-$(mktemp -d -t welltempered-compat-XXXXXX)}
mkdir -p "$work"
work=$(cd "$work" && pwd)
export CARGO_TARGET_DIR=$work/target

# The published source of NAME at VERSION, fetched by cargo; prints its directory.
peer_source() {
    local name=$1 version=$2 probe=$work/fetch-$1
    mkdir -p "$probe/src"
    touch "$probe/src/lib.rs"
    cat >"$probe/Cargo.toml" <<EOF
[package]
name = "fetch-$name"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
$name = "=$version"
[workspace]
EOF
    cargo fetch --quiet --manifest-path "$probe/Cargo.toml" >&2
    cargo metadata --quiet --format-version 1 --manifest-path "$probe/Cargo.toml" |
        python3 -c 'import json,sys,os
m=json.load(sys.stdin)
print(next(os.path.dirname(p["manifest_path"]) for p in m["packages"]
           if p["name"]==sys.argv[1] and p["version"]==sys.argv[2]))' "$name" "$version"
}

# Runs each test file of the scratch package SUITE on its own, with cargo's extra arguments
# CARGO_ARGS (a string) and the per-file skip lists of the associative array named SKIPS;
# the per-file lists of the associative array named ALONE (optional) are left out of their
# file's run and then run each in a process of its own. LABEL names the peer in the messages.
# Fails if any file fails.
run_test_files() {
    local label=$1 suite=$2 cargo_args=$3
    local -n skip_lists=$4
    local -A no_alone=()
    if [ -n "${5:-}" ]; then local -n alone_lists=$5; else local -n alone_lists=no_alone; fi
    local files=0 failed=() t name args single
    echo "$label: its own tests ($(ls "$suite/tests" | wc -l) files) against compat/" >&2
    # shellcheck disable=SC2086
    (cd "$suite" && cargo test --quiet $cargo_args --tests --no-run)
    for t in "$suite"/tests/*.rs; do
        name=$(basename "$t" .rs)
        args=(--exact)
        for skipped in ${skip_lists[$name]:-} ${alone_lists[$name]:-}; do
            args+=(--skip "$skipped")
        done
        echo "== tests/$name.rs${skip_lists[$name]:+ (skipped: ${skip_lists[$name]})}${alone_lists[$name]:+ (run alone after: ${alone_lists[$name]})}" >&2
        files=$((files + 1))
        # A hang fails the file (after 10 minutes) rather than stalling the run.
        # shellcheck disable=SC2086
        (cd "$suite" && timeout 600 cargo test --quiet $cargo_args --test "$name" -- "${args[@]}") ||
            failed+=("$name")
        for single in ${alone_lists[$name]:-}; do
            echo "== tests/$name.rs: $single, alone" >&2
            # shellcheck disable=SC2086
            (cd "$suite" && timeout 600 cargo test --quiet $cargo_args --test "$name" -- --exact "$single") ||
                failed+=("$name::$single")
        done
    done
    if [ ${#failed[@]} -gt 0 ]; then
        echo "$label: failed in ${failed[*]} (of $files test files)" >&2
        return 1
    fi
    echo "$label: every test file passed ($files files)" >&2
}

# crossbeam-channel: its tests/ against compat/crossbeam-channel.
crossbeam_channel() {
    local version src suite
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/compat/crossbeam-channel/Cargo.toml" | head -1)
    src=$(peer_source crossbeam-channel "$version")
    suite=$work/crossbeam-channel-suite
    rm -rf "$suite"
    mkdir -p "$suite/src"
    cp -r "$src/tests" "$suite/tests"
    cp "$src/LICENSE-MIT" "$src/LICENSE-APACHE" "$suite/"
    touch "$suite/src/lib.rs"
    # crossbeam-channel's dev-dependencies at the versions its manifest names, and
    # crossbeam-utils (a normal dependency of it that its tests use).
    cat >"$suite/Cargo.toml" <<EOF
[package]
name = "crossbeam-channel-suite"
version = "$version"
edition = "2021"
publish = false
license = "MIT OR Apache-2.0"
[dev-dependencies]
crossbeam-channel = { path = "$root/compat/crossbeam-channel" }
crossbeam-utils = "0.8.18"
num_cpus = "1.13.0"
rand = "0.8"
signal-hook = "0.3"
[workspace]
EOF
    # Skipped, per test file, each for a stated difference of the channel (documented in
    # compat/crossbeam-channel/src/lib.rs):
    #   E: a `select!` with a rendezvous send evaluates every send's message before the
    #      selection (crossbeam: only the chosen case's, with its receiver already committed),
    #      so zero.rs's `recv_in_send`, whose message receives on the same channel, leaves two
    #      threads waiting for one element.
    local -A skips=(
        [zero]="recv_in_send"                                   # E
    )
    # Run alone, in a process of their own: golang.rs's `select2::main` checks that the bytes
    # live in its process grew by less than a bound, with a counting global allocator that it
    # zeroes first. Other tests of the file, running beside it in the same process, free
    # memory allocated before the zeroing, so the count wraps below zero and the check fails
    # without any leak (crossbeam-channel 0.5.17 itself fails it that way on 2 cores, about one
    # run in six).
    local -A alone=(
        [golang]="select2::main"
    )
    run_test_files "crossbeam-channel $version" "$suite" "" skips alone
}

# parking_lot: the test modules of its src/ files, and its tests/, against compat/parking_lot.
parking_lot() {
    local version src suite
    version=$(sed -n 's/^version = "\(.*\)"/\1/p' "$root/compat/parking_lot/Cargo.toml" | head -1)
    src=$(peer_source parking_lot "$version")
    suite=$work/parking_lot-suite
    rm -rf "$suite"
    mkdir -p "$suite/src" "$suite/tests"
    cp "$src"/tests/*.rs "$suite/tests/"
    cp "$src/LICENSE-MIT" "$src/LICENSE-APACHE" "$suite/"
    touch "$suite/src/lib.rs"
    # What is removed or rewritten, and why, is in the helper's documentation.
    python3 "$root/scripts/compat-suites/parking_lot_tests.py" "$src/src" "$suite/tests"
    # parking_lot's dev-dependencies at the versions its manifest names, and the features its
    # tests are written for.
    cat >"$suite/Cargo.toml" <<EOF
[package]
name = "parking_lot-suite"
version = "$version"
edition = "2021"
publish = false
license = "MIT OR Apache-2.0"
[features]
serde = ["parking_lot/serde"]
arc_lock = ["parking_lot/arc_lock"]
[dev-dependencies]
parking_lot = { path = "$root/compat/parking_lot" }
bincode = "1.3.3"
rand = "0.8.3"
[workspace]
EOF
    local -A none=()
    run_test_files "parking_lot $version" "$suite" "--features serde,arc_lock" none
}

peers=("$@")
[ ${#peers[@]} -gt 0 ] || peers=(crossbeam-channel parking_lot)
for peer in "${peers[@]}"; do
    case $peer in
        crossbeam-channel) crossbeam_channel ;;
        parking_lot) parking_lot ;;
        *) echo "unknown peer: $peer (known: crossbeam-channel parking_lot)" >&2; exit 2 ;;
    esac
done
