#!/usr/bin/env bash
# Opt-in (long: it builds and tests every crate, an hour or more on 2 cores for both corpora):
# `cargo welltempered check --fix` on a copy of each crate of the reach corpora, with
# welltempered as a path dependency on this checkout. For each crate:
#   0. nothing is built when `check`'s summary says --fix would rewrite no channel (every
#      channel's handle types are named in the crate, so it keeps them all);
#   1. the copy must build as it is (`cargo check --all-targets`), else it is left out
#      ("does not build as published": a dependency that moved on, a missing system library);
#   2. `check --fix` rewrites its channels, checks every target and runs the crate's tests
#      (the default when it has any), rolling back on any failure;
#   3. when the tests failed after the rewrite, every test runs (--no-fail-fast) twice on the
#      restored original and once on the rewrite (kept this once, without --fix's own test run,
#      then restored), and the failures are compared: the line names the tests that fail only
#      after the rewrite (or says there are none, how many fail either way, and how many failed
#      in one run of the original only: tests that are not deterministic here).
# One line per crate: rewritten (how many, tests run or not), nothing to rewrite, rolled back
# (why), or left out (why). Logs of every step stay in the work directory.
#
# Usage: scripts/fix-corpus.sh [tuning|validation|both] [NAME-VERSION ...]
#   FIX_CORPUS_DIR=DIR  work directory (default: a new temporary one); its target/ is shared.
# Needs network once (the corpora and the crates' dependencies) and a C toolchain; crates that
# need a system library this machine lacks are left out, named.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
which=${1:-both}
shift || true
only=("$@")
work=${FIX_CORPUS_DIR:-$(mktemp -d -t welltempered-fix-XXXXXX)}
mkdir -p "$work"
export CARGO_TARGET_DIR=$work/target
cargo build --quiet --release --manifest-path "$root/Cargo.toml" \
    -p welltempered-analyze --bin cargo-welltempered || exit 1
bin=$CARGO_TARGET_DIR/release/cargo-welltempered

corpora=()
case $which in
    tuning) corpora=(tuning) ;;
    validation) corpora=(validation) ;;
    both) corpora=(tuning validation) ;;
    *) echo "usage: $0 [tuning|validation|both] [NAME-VERSION ...]" >&2; exit 2 ;;
esac

# The crates of a corpus, as NAME-VERSION, from its corpus.toml.
crates_of() {
    local dir=$root/crates/analyze/reach
    [ "$1" = validation ] && dir=$dir/validation
    awk -F'"' '/^name *=/ {n=$2} /^version *=/ {print n "-" $2}' "$dir/corpus.toml"
}

registry=${CARGO_HOME:-$HOME/.cargo}/registry/src

# The tests a `cargo test --no-fail-fast` log says failed, one per line, sorted: each failed
# test by name, and each test target that failed to build or run as a whole.
failed_tests() {
    {
        # A terminal UI's escape codes may come first on the line.
        sed -n 's/^.*test \([^ ]*\) \.\.\. FAILED$/\1/p' "$1"
        grep -o 'to rerun pass `[^`]*`' "$1" | sed 's/^to rerun pass /target /'
        grep -o '^error: could not compile `[^`]*`.*' "$1"
    } | sort -u
}
printf '%-30s %s\n' crate outcome
for corpus in "${corpora[@]}"; do
    # Fetch the corpus (and say so if that fails; the crates already there still run).
    "$bin" welltempered reach --corpus "$corpus" >/dev/null 2>"$work/fetch-$corpus.log" \
        || echo "note: fetching the $corpus corpus failed: $(tail -1 "$work/fetch-$corpus.log")"
    for c in $(crates_of "$corpus"); do
        if [ ${#only[@]} -gt 0 ] && ! printf '%s\n' "${only[@]}" | grep -qx "$c"; then
            continue
        fi
        src=$(ls -d "$registry"/*/"$c" 2>/dev/null | head -1)
        if [ -z "$src" ]; then
            printf '%-30s %s\n' "$c" "left out: not in the cargo registry"
            continue
        fi
        dst=$work/crates/$c
        rm -rf "$dst"
        mkdir -p "$work/crates"
        cp -r "$src" "$dst" && chmod -R u+w "$dst"
        log=$work/$c
        # What --fix would do, from the summary line: nothing to build when it rewrites nothing.
        plan=$("$bin" welltempered check "$dst" 2>&1 >/dev/null | grep -o -- '--fix would rewrite [^;]*')
        if [ -z "$plan" ]; then
            printf '%-30s %s\n' "$c" "left out: the analysis failed: $("$bin" welltempered check "$dst" 2>&1 >/dev/null | tail -1)"
            continue
        fi
        if [[ $plan == "--fix would rewrite 0 "* ]]; then
            printf '%-30s %s\n' "$c" "nothing to rewrite (${plan#--fix would rewrite 0 (0 to spsc), }: handle types named)"
            continue
        fi
        if ! cargo check --quiet --all-targets --manifest-path "$dst/Cargo.toml" \
            >"$log.before.log" 2>&1; then
            why=$(grep -m1 -E '^error' "$log.before.log" || tail -1 "$log.before.log")
            printf '%-30s %s\n' "$c" "left out: does not build as published: $why"
            continue
        fi
        "$bin" welltempered check "$dst" --fix --welltempered-path "$root/crates/welltempered" \
            >"$log.fix.log" 2>&1
        rc=$?
        n=$(grep -c ': rewritten to ' "$log.fix.log")
        tested=no
        grep -q "the crate's tests passed" "$log.fix.log" && tested=yes
        if [ $rc -eq 0 ] && [ "$n" -gt 0 ]; then
            printf '%-30s %s\n' "$c" "rewritten: $n channels; compiles; tests run and pass: $tested"
        elif grep -q "tests failed after the rewrite" "$log.fix.log"; then
            cargo test --no-fail-fast --manifest-path "$dst/Cargo.toml" >"$log.original-tests.log" 2>&1
            cargo test --no-fail-fast --manifest-path "$dst/Cargo.toml" >"$log.original-tests-2.log" 2>&1
            if ! "$bin" welltempered check "$dst" --fix --no-verify-tests \
                --welltempered-path "$root/crates/welltempered" >"$log.fix-untested.log" 2>&1; then
                printf '%-30s %s\n' "$c" "rolled back: $(grep -m1 'tests failed' "$log.fix.log") (the rewrite could not be kept to compare: $(tail -1 "$log.fix-untested.log"))"
                continue
            fi
            cargo test --no-fail-fast --manifest-path "$dst/Cargo.toml" >"$log.rewritten-tests.log" 2>&1
            rm -rf "$dst" && cp -r "$src" "$dst" && chmod -R u+w "$dst"
            one=$(failed_tests "$log.original-tests.log")
            two=$(failed_tests "$log.original-tests-2.log")
            before=$(printf '%s\n%s\n' "$one" "$two" | grep . | sort -u)
            flaky=$(comm -3 <(echo "$one") <(echo "$two") | grep -c .)
            new=$(comm -13 <(echo "$before") <(failed_tests "$log.rewritten-tests.log") | paste -sd, -)
            if [ -n "$new" ]; then
                printf '%-30s %s\n' "$c" "rolled back: the rewrite broke tests that pass without it: $new ($flaky of the original's failures differ between two runs)"
            else
                printf '%-30s %s\n' "$c" "rolled back: its tests fail without the rewrite too, and no other test fails after it ($(echo "$before" | grep -c .) fail without it, $flaky of them in one run only: $(echo "$before" | head -3 | paste -sd, -))"
            fi
        else
            printf '%-30s %s\n' "$c" "rolled back: $(grep -m1 -E '^error' "$log.fix.log" || tail -1 "$log.fix.log")"
        fi
    done
done
echo "logs: $work"
