#!/usr/bin/env bash
# Opt-in: instructions retired by one uncontended lock + unlock pair of every lock of
# `welltempered mutex` (ours and the baselines), counted by valgrind's callgrind, which needs no
# hardware counters. Each lock runs N1 and N2 pairs in a fresh process; (Ir(N2) - Ir(N1)) /
# (N2 - N1) is the cost of one pair, start-up cancelled out. The empty critical section (one
# increment) and the loop are included, the same for every lock, so differences between locks
# are exact; the last column is the difference from Hemlock's count.
#
#   scripts/instructions.sh [LOCK...]      (default: every lock)
#
# Needs valgrind (Debian: apt-get install valgrind). Takes about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null; then
    echo "scripts/instructions.sh: valgrind is not installed (apt-get install valgrind); nothing counted" >&2
    exit 1
fi
cargo build --release -q -p welltempered-bench --example uncontended
bin=target/release/examples/uncontended
N1=${N1:-20000}
N2=${N2:-120000}
if [ $# -gt 0 ]; then
    locks=("$@")
else
    # Every lock the example knows (its usage line lists them).
    mapfile -t locks < <("$bin" 2>&1 | sed -n 's/.*(LOCK: \(.*\))/\1/p' | tr ',' '\n' | tr -d ' ')
fi
count() { # lock pairs -> instructions collected
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" 2>&1 |
        sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}
declare -A per
for l in "${locks[@]}"; do
    a=$(count "$l" "$N1")
    b=$(count "$l" "$N2")
    per[$l]=$(awk -v a="$a" -v b="$b" -v n1="$N1" -v n2="$N2" 'BEGIN { printf "%.1f", (b - a) / (n2 - n1) }')
done
ref=${per[hemlock]:-}
echo "| lock | instructions per uncontended lock + unlock | vs hemlock |"
echo "|---|---:|---:|"
for l in "${locks[@]}"; do
    if [ -n "$ref" ]; then
        d=$(awk -v x="${per[$l]}" -v r="$ref" 'BEGIN { printf "%+.1f", x - r }')
    else
        d="n/a"
    fi
    echo "| $l | ${per[$l]} | $d |"
done
echo
echo "valgrind $(valgrind --version | sed 's/valgrind-//'), $(rustc --version), N1=$N1, N2=$N2, $(date -u +%Y-%m-%dT%H:%MZ)"
