#!/bin/sh
# bench/tools/run.sh -- what the example tools cost an application: the NetPIPE-style
# ping-pong of bench/tools/pingpong.c (ranks 0 and 1, shared memory on MPICH, sockets on
# the toy), without a tool and with each tool attached by LD_PRELOAD.
#
# usage: bench/tools/run.sh [N]              wall time, from anywhere; N round trips
#                                            (default 20000)
#        bench/tools/run.sh --callgrind [N]  instructions per round trip (default N 2000)
#
# Wall time: rounds of one run per tool; a run keeps the best of 5 trials per message size
# (PINGPONG_TRIALS); per size, the median over the rounds of the time per round trip and
# of its ratio to the run without a tool in the same round (and the ratio of the fastest
# runs), and the peak resident memory (the larger of the two ranks, median over the
# rounds: the tracer's trace buffers).
# Callgrind: rank 0 of a 1-byte ping-pong under callgrind, the round trips only (rank 0
# waits for each reply outside MPI, PINGPONG_SYNC=1 of pingpong.c, so that its receive
# finds it at the first poll: counts that do not depend on timing), N and 2N round trips
# (N >= 200), (Ir(2N) - Ir(N)) per extra round trip, split by inclusive counts: the MPI
# (all but mpitev's raise and drain), mpitev's delivery (mpitev__raise,
# mpitev_source_drain, without the callbacks), the MPI_T calls a callback makes
# (MPI_T_event_copy, _get_timestamp, _get_source), the callback's own work, the fold
# (tc_core.c: take, sort) and the tool's processing (its process()); "events": instances
# delivered to the tool per round trip.
# Environment:
#   MPITEV_TOOLS_MPI=toy|mpich   the MPI (default toy). toy: the tools and toy MPI of
#                                MPITEV_BENCH_BUILD (default build-bench, built by
#                                bench/run.sh). mpich: MPICH + mpitev of
#                                integrations/mpich (build.sh mpitev; without the link in
#                                build/, the cached install of this tree's key), the tools
#                                built here with its mpicc (-O2 -g).
#   MPITEV_TOOLS_BEFORE=DIR      the tools of another checkout too, as TOOL-before (in the
#                                same rounds, for a comparison): toy: a build tree (its
#                                examples/tools/lib); mpich: a source tree (its
#                                examples/tools built here)
#   TOOLS_RUNS                   runs per tool (default 5; wall time)
#   TOOLS                        the tools (default: none logger qprof otf2, each followed
#                                by TOOL-before with MPITEV_TOOLS_BEFORE; also
#                                logger-lines: the logger writing every line to a file)
#   MPITEV_BENCH_OUT=DIR         keep the outputs (per-run lines, tool outputs, profiles)
# Tools: the logger counting only (MPITEV_LOGGER_QUIET=1: every type delivered and
# counted, a summary at the end), the queue profiler (no plot: MPITEV_QPROF_GNUPLOT=none),
# the OTF2 tracer (the trace written to the output directory).
set -eu
mode="time"
if [ "${1:-}" = --callgrind ]; then mode=callgrind; shift; fi
if [ $mode = time ]; then n=${1:-20000}; else n=${1:-2000}; fi
root=$(cd "$(dirname "$0")/../.." && pwd)
mpi=${MPITEV_TOOLS_MPI:-toy}
runs=${TOOLS_RUNS:-5}
if [ -n "${MPITEV_BENCH_OUT:-}" ]; then
  out=$MPITEV_BENCH_OUT/tools
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
before=${MPITEV_TOOLS_BEFORE:-}
case $mpi in
toy)
  bld=${MPITEV_BENCH_BUILD:-$root/build-bench}
  [ -x "$bld/examples/toy_mpi/bin/mpicc" ] || { echo "bench/tools: no toy MPI in $bld (run bench/run.sh, or set MPITEV_BENCH_BUILD)" >&2; exit 2; }
  "$bld/examples/toy_mpi/bin/mpicc" -O2 -g "$root/bench/tools/pingpong.c" -o "$out/pingpong"
  lib=$bld/examples/tools/lib
  libbefore=$before/examples/tools/lib
  launch() { "$bld/examples/toy_mpi/bin/mpiexec" -n 2 --timeout 3600 "$@"; }
  ;;
mpich)
  pre=$root/build/integrations/mpich/mpitev
  # without the link (another checkout built it): the cached install of this tree's key
  [ -x "$pre/bin/mpicc" ] || pre=$(sh "$root/integrations/mpich/build.sh" --key mpitev | awk '{ print $3 }')
  [ -x "$pre/bin/mpicc" ] || { echo "bench/tools: no MPICH + mpitev (sh integrations/mpich/build.sh mpitev)" >&2; exit 2; }
  otf2lib= # Debian names the library open-trace-format2, others otf2
  for f in /usr/lib/*/libotf2.so /usr/lib/*/libopen-trace-format2.so; do
    [ -f "$f" ] && otf2lib=$(basename "$f" .so | sed 's/^lib//')
  done
  # build_tools SRC DEST: each tool from the tool core and every file of its directory
  build_tools() {
    cc="$pre/bin/mpicc -std=c11 -O2 -g -fPIC -shared -I$1/common"
    mkdir -p "$2"
    # shellcheck disable=SC2086
    $cc "$1"/common/tc_*.c "$1"/logger/*.c -o "$2/libmpitev_logger.so" -pthread
    # shellcheck disable=SC2086
    $cc "$1"/common/tc_*.c "$1"/qprof/*.c -o "$2/libmpitev_qprof.so" -pthread -lm
    # shellcheck disable=SC2086
    [ -z "$otf2lib" ] || $cc "$1"/common/tc_*.c "$1"/otf2/*.c -o "$2/libmpitev_otf2.so" -pthread -l"$otf2lib"
  }
  lib=$out/lib libbefore=$out/lib-before
  build_tools "$root/examples/tools" "$lib"
  [ -z "$before" ] || build_tools "$before/examples/tools" "$libbefore"
  "$pre/bin/mpicc" -O2 -g "$root/bench/tools/pingpong.c" -o "$out/pingpong"
  export HYDRA_IFACE=lo FI_PROVIDER=tcp
  launch() { "$pre/bin/mpiexec" -n 2 "$@"; }
  ;;
*) echo "bench/tools: MPITEV_TOOLS_MPI is toy or mpich" >&2; exit 2 ;;
esac

tools=${TOOLS:-none logger qprof otf2}
[ -f "$lib/libmpitev_otf2.so" ] || tools=$(echo "$tools" | sed 's/otf2//')
[ -z "$before" ] || [ -n "${TOOLS:-}" ] || tools=$(echo "$tools" | sed 's/\([a-z2]*\)/\1 \1-before/g; s/none none-before/none/')

# with TOOL DIR PROGRAM...: launches the 2 ranks of PROGRAM with TOOL attached, the tool's
# outputs in DIR
with() {
  tl=$1 d=$2 l=$lib
  shift 2
  case $tl in *-before) tl=${tl%-before} l=$libbefore ;; esac
  case $tl in
  none) launch "$@" ;;
  logger) launch env LD_PRELOAD="$l/libmpitev_logger.so" MPITEV_LOGGER_QUIET=1 MPITEV_LOGGER_OUTPUT="$d/log" "$@" ;;
  logger-lines) launch env LD_PRELOAD="$l/libmpitev_logger.so" MPITEV_LOGGER_OUTPUT="$d/log" "$@" ;;
  qprof) launch env LD_PRELOAD="$l/libmpitev_qprof.so" MPITEV_QPROF_DIR="$d" MPITEV_QPROF_GNUPLOT=none \
           MPITEV_QPROF_OUTPUT="$d/summary" "$@" ;;
  otf2) launch env LD_PRELOAD="$l/libmpitev_otf2.so" MPITEV_OTF2_DIR="$d/trace" "$@" ;;
  *) echo "bench/tools: unknown tool $tl" >&2; return 2 ;;
  esac
}

# ---- instructions per round trip (callgrind on rank 0)
if [ $mode = callgrind ]; then
  command -v valgrind >/dev/null || { echo "bench/tools: valgrind is needed" >&2; exit 2; }
  # rank 0 waits for the reply outside MPI (uncounted): its receive finds it at once
  export PINGPONG_SYNC=1
  # The tools process records in batches of a quarter ring (tc_core.c): what the last
  # batch holds is processed at MPI_Finalize, outside the count, so the batches are made
  # small (256 records) for a count that is off by at most 256 records' processing.
  export MPITEV_TOOL_RING="${MPITEV_TOOL_RING:-1024}"
  # rank 0 under callgrind; the rank comes from the toy's or Hydra's environment
  # shellcheck disable=SC2016
  rank0='case ${TOYMPI_RANK:-${PMI_RANK:-}} in 0) exec valgrind -q --tool=callgrind --dump-line=no \
    --collect-atstart=no --toggle-collect=exchange --toggle-collect=wait_reply --callgrind-out-file="$0" "$@" ;; esac; exec "$@"'
  # ir TOOL N: counts of rank 0 for N round trips, as "function inclusive-Ir calls" lines
  # (suffixes .part.N, .constprop.N... dropped: a function's largest entry), "TOTAL" the loop
  ir() {
    d=$out/cg.$1.$2
    rm -rf "$d" && mkdir -p "$d"
    (cd "$d" && with "$1" "$d" sh -c "$rank0" "$d/cg" "$out/pingpong" "$2" 1) >"$d/out" 2>&1 ||
      { cat "$d/out" >&2; return 1; }
    callgrind_annotate --inclusive=yes --tree=caller --threshold=100 "$d/cg" | awk '
      /PROGRAM TOTALS/ { gsub(",", "", $1); print "TOTAL", $1, 0; next }
      { mark = ""; for (i = 2; i < NF; i++) if ($i == "<" || $i == "*") { mark = $i; f = $(i + 1); break } }
      mark == "" { next }
      { sub(/.*:/, "", f); sub(/\..*/, "", f) }
      mark == "<" { c = $(NF - 1); gsub(/[(),x]/, "", c); calls += c; next }
      { v = $1; gsub(",", "", v); if (v + 0 > m[f] + 0) { m[f] = v; n[f] = calls } calls = 0 }
      END { for (f in m) print f, m[f], n[f] + 0 }' >"$d/fn"
  }
  # the round trips pingpong.c makes for N: N measured and N/10 + 1 to warm up
  trips() { echo $(($1 + $1 / 10 + 1)); }
  extra=$(($(trips $((2 * n))) - $(trips "$n")))
  echo "ping-pong on $mpi, 1 byte: instructions per round trip on rank 0 (callgrind, (Ir($((2 * n))) - Ir($n)) / $extra)"
  printf '%-20s %6s %7s %9s %7s %7s %7s %8s %7s %7s\n' tool events total "over none" MPI mpitev MPI_T callback fold process
  for tool in $tools; do
    ir "$tool" "$n"
    ir "$tool" $((2 * n))
    awk -v extra="$extra" -v tool="$tool" -v base="${base:-}" -v basefile="$out/base" '
      NR == FNR { a[$1] = $2; ac[$1] = $3; next } { b[$1] = $2; bc[$1] = $3 }
      function d(f) { return (b[f] - a[f]) / extra }
      END {
        recs = (bc["on_event"] - ac["on_event"] + bc["on_count"] - ac["on_count"]) / extra
        deliver = d("mpitev_source_drain") + d("mpitev__raise")
        mpi = d("TOTAL") - deliver
        cb = d("on_event") + d("on_count") + d("on_dropped")
        mpit = d("PMPI_T_event_copy") + d("PMPI_T_event_get_timestamp") + d("PMPI_T_event_get_source") \
             + d("MPI_T_event_copy") + d("MPI_T_event_get_timestamp") + d("MPI_T_event_get_source")
        own = cb - mpit - d("fold")
        proc = d("process")
        fold = d("fold") - proc
        total = d("TOTAL")
        printf "%-20s %6.1f %7.0f %9s %7.0f %7.0f %7.0f %8.0f %7.0f %7.0f\n", tool, recs, total,
          base == "" ? "-" : sprintf("%+.0f", total - base), mpi, deliver - cb, mpit, own, fold, proc
        if (tool == "none") print total >basefile
      }' "$out/cg.$tool.$n/fn" "$out/cg.$tool.$((2 * n))/fn"
    [ "$tool" != none ] || base=$(cat "$out/base")
  done
  exit 0
fi

# ---- wall time: each run keeps the best of 5 trials per size (pingpong.c)
export PINGPONG_TRIALS="${PINGPONG_TRIALS:-5}"
# run TOOL ROUND: one ping-pong with TOOL attached; appends "TOOL ROUND SIZE US" lines and
# "TOOL ROUND rss KB" (the larger rank's)
run() {
  d=$out/run.$1
  rm -rf "$d" && mkdir -p "$d"
  (cd "$d" && with "$1" "$d" "$out/pingpong" "$n") >"$d/out" 2>&1 || { cat "$d/out" >&2; return 1; }
  awk -v t="$1" -v r="$2" '$1 == "pingpong" { print t, r, $2, $3 } $1 == "rss" && $3 > m { m = $3 }
    END { print t, r, "rss", m }' "$d/out" >>"$out/pp"
}
: >"$out/pp"
for r in $(seq 1 "$runs"); do
  for tool in $tools; do run "$tool" "$r"; done
done
# stat TOOL SIZE: "median min ratio minratio" of the runs: the ratio is the median over
# the rounds of the time with TOOL over the time without a tool in the same round (the
# runs of one round are adjacent in time); minratio: the fastest run's over the fastest's
stat() {
  awk -v t="$1" -v s="$2" '$3 == s && ($1 == t || $1 == "none") { v[$1, $2] = $4; r[$2] = 1 }
    END { for (k in r) print v[t, k], v[t, k] / v["none", k], v["none", k] }' "$out/pp" >"$out/st"
  col() { sort -g -k"$1" "$out/st" | awk -v c="$1" '{ a[NR] = $c }
    END { printf "%s %s ", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2, a[1] }'; }
  echo "$(col 1) $(col 2) $(col 3)" | awk '{ printf "%.3f %.3f %.2f %.2f\n", $1, $2, $3, $2 / $6 }'
}
sizes=$(awk '$3 != "rss" { print $3 }' "$out/pp" | sort -n -u)
echo "ping-pong on $mpi, $runs rounds of $n round trips: median us per round trip (median ratio to no tool"
echo "in the same round; ratio of the fastest runs), peak RSS per rank (median)"
printf '%-20s' tool
for s in $sizes; do printf ' %24s' "$s B"; done
printf ' %8s\n' "RSS MiB"
for tool in $tools; do
  printf '%-20s' "$tool"
  for s in $sizes; do
    stat "$tool" "$s" | awk '{ printf " %10.3f (%4.2f; %4.2f)", $1, $3, $4 }'
  done
  stat "$tool" rss | awk '{ printf " %8.1f\n", $1 / 1024 }'
done
