#!/bin/sh
# Reproduce the figures in docs/performance.md: instruction counts under callgrind.
# Instructions, not seconds: callgrind is repeatable on a shared machine, and every
# figure is a difference of two loops measured in the same run.
# usage: bench/run.sh [iterations]   (from the project root; builds into build-bench/)
set -eu
n=${1:-1000000}
root=$(cd "$(dirname "$0")/.." && pwd)
bld=$root/build-bench
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
cmake -S "$root" -B "$bld" -DCMAKE_BUILD_TYPE=Release -DMPITEV_BUILD_TESTS=OFF -DMPITEV_BUILD_EXAMPLES=OFF >/dev/null
cmake --build "$bld" -j2 >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# self_ir FILE FUNCTION: instructions executed in FUNCTION itself (exclusive).
# --threshold=100: list every function, not only those making up 99% of the total.
self_ir() {
  callgrind_annotate --threshold=100 "$1" 2>/dev/null | awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") { gsub(",", "", $1); print $1; exit }'
}
# incl_ir FILE FUNCTION: instructions in FUNCTION and everything it calls.
incl_ir() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") { gsub(",", "", $1); print $1; exit }'
}
per() { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (a - b) / n }'; }

printf '%-46s %s\n' "measurement ($n iterations)" "instructions"
valgrind --tool=callgrind --callgrind-out-file="$out/raise" "$bld/bench/raise/bench_raise" "$n" >/dev/null 2>&1
base=$(self_ir "$out/raise" bench_loop_baseline)
printf '%-46s %s\n' "disabled raise (nobody listens)" "$(per "$(self_ir "$out/raise" bench_loop_raise)" "$base" "$n")"
enabled=$(incl_ir "$out/raise" bench_loop_raise_enabled)
clock=$(incl_ir "$out/raise" bench_clock_now)
cb=$(incl_ir "$out/raise" bench_callback)
printf '%-46s %s\n' "immediate raise, 1 registration, excl. clock+cb" \
  "$(awk -v e="$enabled" -v b="$base" -v c="$clock" -v k="$cb" -v n="$n" 'BEGIN { printf "%.2f", (e - b - c - k) / n }')"
printf '%-46s %s\n' "  clock read (CLOCK_MONOTONIC, vDSO hidden)" "$(per "$clock" 0 "$n")"
printf '%-46s %s\n' "  empty callback" "$(per "$cb" 0 "$n")"

# Further measurements: each bench/<area>/measure.sh is sourced here and prints its
# table rows using $bld, $out, $n and the helpers above (self_ir, incl_ir, per).
for m in "$root"/bench/*/measure.sh; do
  [ -f "$m" ] || continue
  . "$m"
done
