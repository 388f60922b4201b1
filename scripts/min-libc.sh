#!/usr/bin/env bash
# Checks that the `welltempered` library builds with the oldest libc its manifests accept (the
# workspace's `libc = "0.2.N"`): a user whose lock file pins an older libc than ours (0.2.112
# has no `malloc_trim`, which the channel uses) must get a resolution error, not a build error.
# A scratch crate depends on crates/welltempered by path with libc pinned to that minimum, and
# `cargo check` builds it. Needs the registry (the pinned libc). CI runs this (.ci/run).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
min=$(sed -n 's/^libc = "\(0\.2\.[0-9]*\)"$/\1/p' "$root/Cargo.toml")
[ -n "$min" ] || { echo "no libc = \"0.2.N\" in $root/Cargo.toml" >&2; exit 1; }
work=$(mktemp -d -t welltempered-min-libc-XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src"
echo 'fn main() { let (tx, rx) = welltempered::channel::unbounded(); tx.send(1u8).unwrap(); rx.recv().unwrap(); }' >"$work/src/main.rs"
cat >"$work/Cargo.toml" <<TOML
[package]
name = "min-libc"
version = "0.0.0"
edition = "2021"
publish = false
[dependencies]
welltempered = { path = "$root/crates/welltempered" }
[workspace]
TOML
cd "$work"
cargo generate-lockfile --quiet
cargo update --quiet -p libc --precise "$min"
echo "welltempered against libc $min:" >&2
CARGO_TARGET_DIR=$root/target/min-libc cargo check --quiet
echo "builds" >&2
