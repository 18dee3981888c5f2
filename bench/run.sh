#!/bin/sh
# Reproduce the figures in docs/performance.md: instruction counts under callgrind, and
# a few wall-time ratios. Instructions, not seconds, for everything that can be counted:
# callgrind is repeatable on a shared machine, and every figure is a difference of two
# loops (or two runs) measured the same way.
#
# usage: bench/run.sh [iterations]    from the project root; default 1000000
#   Builds build-bench/ (-O2, examples on: the toy MPI), runs every bench/*/measure.sh,
#   prints the tables, writes them into docs/performance.md (between the "bench:begin"
#   and "bench:end" markers) and plots docs/performance-bench.png (gnuplot). First, the core's
#   budgets (bench/budget.sh): printed, and in the generated section; a budget over its
#   limit is reported, not a failure of this script (ctest's core_budgets fails on it).
# Environment:
#   MPITEV_BENCH_SHORT=1      short mode (ctest's bench_short): small counts, nothing
#                             written under docs/, no package installed
#   MPITEV_BENCH_BUILD=DIR    use this already built tree instead of build-bench/
#   MPITEV_BENCH_OUT=DIR      keep the raw outputs (callgrind files, tables) in DIR
#   MPITEV_BENCH_ONLY="A B"   run only these areas (budget, raise, mpich, openmpi, and bench/<area>/measure.sh
#                             names: buffer probes toympi types ...); nothing is written
#                             under docs/ then (a partial table set is not the document)
set -eu
n=${1:-1000000}
root=$(cd "$(dirname "$0")/.." && pwd)
short=${MPITEV_BENCH_SHORT:-0}
only=${MPITEV_BENCH_ONLY:-}
# wanted AREA: true when AREA is to be measured
wanted() { [ -z "$only" ] || case " $only " in *" $1 "*) return 0 ;; *) return 1 ;; esac; }
if [ "$short" != 1 ]; then
  # the probes compared (LTTng-UST, systemtap SDT), callgrind and the plot
  sh "$root/cmake/prereqs.sh" valgrind gnuplot-nox liblttng-ust-dev systemtap-sdt-dev pkg-config pmccabe
fi
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
if [ -n "${MPITEV_BENCH_BUILD:-}" ]; then
  bld=$MPITEV_BENCH_BUILD
else
  bld=$root/build-bench
  # -O2 (CMake's Release would be -O3): the figures are for the usual MPI build flags.
  cmake -S "$root" -B "$bld" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" \
    -DMPITEV_BUILD_TESTS=OFF -DMPITEV_BUILD_EXAMPLES=ON -DMPITEV_BUILD_BENCH=ON >/dev/null
  cmake --build "$bld" -j2 >/dev/null
fi
if [ -n "${MPITEV_BENCH_OUT:-}" ]; then
  out=$MPITEV_BENCH_OUT
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
: >"$out/tables"
missing=0 # set by row when a figure came out empty

# self_ir FILE FUNCTION: instructions executed in FUNCTION itself (exclusive).
# --threshold=100: list every function, not only those making up 99% of the total.
self_ir() {
  callgrind_annotate --threshold=100 "$1" 2>/dev/null | awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") { gsub(",", "", $1); print $1; exit }'
}
# incl_ir FILE FUNCTION: instructions in FUNCTION and everything it calls.
incl_ir() {
  callgrind_annotate --inclusive=yes --threshold=100 "$1" 2>/dev/null | awk -v f="$2" '$0 ~ (":" f " ") || $0 ~ (":" f "$") { gsub(",", "", $1); print $1; exit }'
}
# callee_per FILE CALLER CALLEE: instructions per call of CALLEE from CALLER, inclusive
# (the "calling" tree's line for that call: its cost and its count).
callee_per() {
  callgrind_annotate --tree=calling --threshold=100 "$1" 2>/dev/null | awk -v f="$2" -v g="$3" '
    /%\) +\* / { inf = ($0 ~ (":" f " ")) || ($0 ~ (":" f "$")); next }
    inf && /%\) +> / && ($0 ~ (":" g " ")) {
      c = $1; gsub(",", "", c); n = $0; sub(/.*\(/, "", n); sub(/x\).*/, "", n); gsub(",", "", n)
      if (n > 0) printf "%.2f", c / n; exit }'
}
# cg_total FILE: every instruction of the run.
cg_total() { awk '$1 == "summary:" || $1 == "totals:" { print $2; exit }' "$1"; }
# per A B N: (A - B) / N, or nothing when A or B is missing (a function not found).
per() {
  [ -n "$1" ] && [ -n "$2" ] || return 0
  awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (a - b) / n }'
}
# table NAME TITLE COLUMN...: starts a table (printed, and kept for the docs).
table() {
  _t=$1 _title=$2
  shift 2
  echo "$_t" >>"$out/tables"
  printf '\n%s\n' "$_title"
  { printf '### %s\n\n|' "$_title"; for c in "$@"; do printf ' %s |' "$c"; done; printf '\n|'
    for c in "$@"; do printf -- '---|'; done; printf '\n'; } >"$out/table.$_t"
}
# row NAME LABEL VALUE...: one row of table NAME.
row() {
  _t=$1 _label=$2
  shift 2
  printf '%-52s' "$_label"; for _v in "$@"; do printf ' %s' "$_v"; [ -n "$_v" ] || missing=1; done; printf '\n'
  { printf '| %s |' "$_label"; for _v in "$@"; do printf ' %s |' "$_v"; done; printf '\n'; } >>"$out/table.$_t"
}

# The budgets (bench/budget.sh: lines, complexity, callback sites, raise forms), first:
# they need no build. In short mode only where pmccabe is already installed.
if wanted budget; then
  if [ "$short" = 1 ] && ! command -v pmccabe >/dev/null 2>&1; then
    echo "budget: pmccabe not installed, the budgets are not measured in short mode"
  else
    printf '\nBudgets of the core (bench/budget.sh)\n'
    brc=0
    sh "$root/bench/budget.sh" -m "$out/budget.md" || brc=$?
    case $brc in
      0) ;;
      1) echo "budget: over (above): reported here, checked by ctest's core_budgets (MPITEV_CHECK_BUDGETS)" ;;
      *) echo "budget: not measured (above)" >&2; missing=1 ;;
    esac
    if [ -s "$out/budget.md" ]; then
      echo budget >>"$out/tables"
      { printf '### Budgets of the core (bench/budget.sh)\n\n'; cat "$out/budget.md"; } >"$out/table.budget"
    fi
  fi
fi

if wanted raise; then
table raise "The raise ($n iterations)" "measurement" "instructions"
valgrind --tool=callgrind --callgrind-out-file="$out/raise" "$bld/bench/raise/bench_raise" "$n" >/dev/null 2>&1
base=$(self_ir "$out/raise" bench_loop_baseline)
row raise "disabled raise (nobody listens)" "$(per "$(self_ir "$out/raise" bench_loop_raise)" "$base" "$n")"
enabled=$(incl_ir "$out/raise" bench_loop_raise_enabled)
clock=$(incl_ir "$out/raise" bench_clock_now)
cb=$(incl_ir "$out/raise" bench_callback)
row raise "immediate raise, 1 registration, custom clock (timestamps clamped: out of line), excl. clock+cb" \
  "$(awk -v e="$enabled" -v b="$base" -v c="$clock" -v k="$cb" -v n="$n" 'BEGIN { printf "%.2f", (e - b - c - k) / n }')"
row raise "  clock read (CLOCK_MONOTONIC, vDSO hidden)" "$(per "$clock" 0 "$n")"
row raise "  empty callback" "$(per "$cb" 0 "$n")"
fi

# Further measurements: each bench/<area>/measure.sh is sourced here and prints its
# tables with table/row, using $root, $bld, $out, $n, $short and the helpers above.
for m in "$root"/bench/*/measure.sh; do
  [ -f "$m" ] || continue
  wanted "$(basename "$(dirname "$m")")" || continue
  . "$m"
done

# The plot: instructions per received message (toy MPI) and per delivered event.
if [ -f "$out/plot.toympi" ] && command -v gnuplot >/dev/null; then
  gnuplot <<GP
set terminal pngcairo size 900,520 noenhanced font ",11"
set output "$out/performance-bench.png"
set title "toy MPI: instructions per received unexpected message (callgrind, -O2)"
set ylabel "instructions"
set style fill solid 0.6 border -1
set boxwidth 0.6
set bmargin 5
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set grid ytics
unset key
plot "$out/plot.toympi" using 0:2:xtic(1) with boxes lc rgb "#3a6ea5", \
     "" using 0:2:2 with labels offset 0,1
GP
fi

if [ "$missing" != 0 ]; then
  echo "bench/run.sh: some figures are missing (empty above)" >&2
  exit 1
fi

if [ "$short" != 1 ] && [ -z "$only" ]; then
  gen=$out/generated.md
  . "$root/bench/mpi_common.sh" # write_section
  {
    echo "<!-- bench:begin (generated by bench/run.sh: do not edit by hand) -->"
    echo
    echo "Generated $(date -u +%Y-%m-%d) by \`bench/run.sh $n\`: $(cc --version | head -1), $(valgrind --version), $(uname -m)."
    while read -r t; do echo; cat "$out/table.$t"; done <"$out/tables"
    if [ -f "$out/performance-bench.png" ]; then
      echo
      echo "![instructions per message and per event](performance-bench.png)"
    fi
    echo
    echo "<!-- bench:end -->"
  } >"$gen"
  echo
  write_section bench "$gen"
fi
# The MPIs' figures (bench/mpich/run.sh, bench/openmpi/run.sh), areas "mpich" and
# "openmpi": when the MPI + mpitev is built (by tests/run.sh, or build.sh mpitev; each
# script builds, cached, the other builds it compares). Each writes its own section of
# docs/performance.md, except under MPITEV_BENCH_ONLY (as the rest of this script).
for mpi in mpich openmpi; do
  [ "$short" != 1 ] && wanted $mpi || continue
  echo
  if [ ! -x "$root/build/integrations/$mpi/mpitev/bin/mpicc" ]; then
    echo "bench: the $mpi figures need it built with mpitev (sh integrations/$mpi/build.sh mpitev), then sh bench/$mpi/run.sh"
  elif [ -n "$only" ]; then
    env "MPITEV_$(echo $mpi | tr a-z A-Z)_NOWRITE=1" sh "$root/bench/$mpi/run.sh"
  else
    sh "$root/bench/$mpi/run.sh"
  fi
done
