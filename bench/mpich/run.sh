#!/bin/sh
# bench/mpich/run.sh -- MPICH 4.0.2's unexpected-message path in the four builds of
# integrations/mpich (events compiled out, MPICH's own events, MPICH + mpitev, and MPICH +
# mpitev configured --disable-mpit-events):
#   * instructions per message on the receiving rank (callgrind, --toggle-collect on the
#     exchange only: Ir(2K) - Ir(K), divided by K), without a tool and with empty
#     callbacks (on MPICH's two original types, which both event builds have; and, for
#     MPICH + mpitev, on all its types);
#   * the same through the network module with libfabric's tagged matching (MPICH's
#     default between nodes: MPIR_CVAR_NOLOCAL=1), without a tool and with empty callbacks
#     on every type;
#   * a put/get microbenchmark (one-sided, shared memory: instructions per round of an
#     8-byte put, an 8-byte get and a flush on the origin), without a tool and with empty
#     callbacks on every type;
#   * the ping-pong wall-time ratio (8 bytes, shared memory) against events compiled out,
#     by the minimum and by the median of runs alternating the builds.
# Writes its tables between "<!-- mpich:begin -->" and "<!-- mpich:end -->" at the end of
# docs/performance.md and plots docs/performance-mpich.png (gnuplot).
#
# usage: bench/mpich/run.sh [K]        from anywhere; default K=1000 (runs K and 2K)
# Builds what it needs first (sh integrations/mpich/build.sh stock-noevents stock-events
# mpitev mpitev-disabled: seconds when cached; tests/run.sh builds neither stock-noevents
# nor mpitev-disabled, their first builds here take 10-20 minutes each).
# Environment: MPITEV_MPICH_DIR (default build/integrations/mpich), MPITEV_BENCH_OUT=DIR
#   (keep the raw outputs), MPICH_PINGPONG_RUNS (default 7), MPICH_PINGPONG_N (default
#   100000 round trips), MPICH_BENCH_REPEAT (callgrind runs per count, the least taken;
#   default 2), MPITEV_MPICH_NOWRITE=1 (print only, leave docs/ alone).
set -eu
k=${1:-1000}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${MPITEV_MPICH_DIR:-$root/build/integrations/mpich}
runs=${MPICH_PINGPONG_RUNS:-7}
ppn=${MPICH_PINGPONG_N:-100000}
command -v valgrind >/dev/null || { echo "bench/mpich: valgrind is needed" >&2; exit 2; }
if [ -n "${MPITEV_BENCH_OUT:-}" ]; then
  out=$MPITEV_BENCH_OUT/mpich
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
variants="stock-noevents stock-events mpitev mpitev-disabled"
[ -n "${MPITEV_MPICH_DIR:-}" ] || sh "$root/integrations/mpich/build.sh" $variants
for v in $variants; do
  [ -x "$dir/$v/bin/mpicc" ] || { echo "bench/mpich: no $dir/$v: run sh integrations/mpich/build.sh $variants" >&2; exit 2; }
  "$dir/$v/bin/mpicc" -O2 -g "$root/bench/mpich/unexp.c" -o "$out/unexp.$v"
done
export HYDRA_IFACE=lo FI_PROVIDER=tcp

# ir VARIANT K MODE: instructions of rank 1 inside bench_pattern. Enough shared-memory
# cells for every message: rank 0 sends all of them while rank 1 sleeps, so rank 1's
# progress engine then finds one message per poll and the count does not depend on
# timing (with MPICH's default 64 cells, rank 1 would also count the empty polls made
# while rank 0 refills them: a different number every run).
# PATH (environment): shm, the default; net: the network module (MPIR_CVAR_NOLOCAL=1,
# tagged messaging on); rma: the one-sided benchmark (function bench_rma).
ir() {
  f=$out/cg.$path.$1.$2.$3
  case $path in
    rma) args="rma $2 $3" fn=bench_rma ;;
    net) args="$2 $3 net" fn=bench_recvs ;;
    *) args="$2 $3" fn=bench_pattern ;;
  esac
  nolocal=0
  [ "$path" = net ] && nolocal=1
  # shellcheck disable=SC2086
  MPIR_CVAR_NOLOCAL=$nolocal MPIR_CVAR_CH4_NUM_VCIS=${vcis:-1} \
  MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_NUM_CELLS=$((2 * k + 200)) MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_CELL_SIZE=1024 \
  "$dir/$1/bin/mpiexec" -n 1 "$out/unexp.$1" $args : \
    -n 1 valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
    --toggle-collect=$fn "$out/unexp.$1" $args >"$f.log" 2>&1 ||
    { cat "$f.log" >&2; return 1; }
  awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$f"
}
repeat=${MPICH_BENCH_REPEAT:-2}
. "$root/bench/mpi_common.sh"
path=shm

echo "MPICH unexpected path, instructions per message on the receiving rank (K=$k and $((2 * k)))"
base=$(per_msg stock-noevents none)
: >"$out/rows"
row() { # label value
  d=$(awk -v v="$2" -v b="$base" 'BEGIN { d = v - b; printf "%s%d", (d >= 0 ? "+" : ""), d }')
  printf '%-58s %6s  %6s\n' "$1" "$2" "$d"
  printf '| %s | %s | %s |\n' "$1" "$2" "$d" >>"$out/${rowsfile:-rows}"
}
ntypes=$("$dir/mpitev/bin/mpiexec" -n 2 "$out/unexp.mpitev" 8 cball | awk '/callbacks=/ { sub(/.*callbacks=/, ""); print }')
row "events compiled out (stock MPICH, no tool)" "$base"
se=$(per_msg stock-events none);  row "MPICH's own events, no tool" "$se"
mt=$(per_msg mpitev none);        row "MPICH + mpitev, no tool" "$mt"
md=$(per_msg mpitev-disabled none); row "MPICH + mpitev, --disable-mpit-events" "$md"
se2=$(per_msg stock-events cb2);  row "MPICH's own events, empty callback (2 types)" "$se2"
mt2=$(per_msg mpitev cb2);        row "MPICH + mpitev, empty callback (2 types)" "$mt2"
mta=$(per_msg mpitev cball);      row "MPICH + mpitev, empty callback (all $ntypes types)" "$mta"

# the network module with libfabric's tagged matching (MPIR_CVAR_NOLOCAL=1): MPICH's own
# events have no raise site there
echo "network path (MPIR_CVAR_NOLOCAL=1, tagged messaging), instructions per message"
path=net
nbase=$(per_msg stock-noevents none)
base=$nbase
: >"$out/rows.net"
rowsfile=rows.net
row "events compiled out (stock MPICH, no tool)" "$nbase"
row "MPICH + mpitev, no tool" "$(per_msg mpitev none)"
row "MPICH + mpitev, --disable-mpit-events" "$(per_msg mpitev-disabled none)"
row "MPICH + mpitev, empty callback (all $ntypes types)" "$(per_msg mpitev cball)"

echo "one-sided: instructions per round (8-byte put, 8-byte get, flush) on the origin"
path=rma
rbase=$(per_msg stock-noevents none)
base=$rbase
: >"$out/rows.rma"
rowsfile=rows.rma
ntypes_rma=$("$dir/mpitev/bin/mpiexec" -n 2 "$out/unexp.mpitev" rma 8 cball | awk '/callbacks=/ { sub(/.*callbacks=/, ""); print }')
row "events compiled out (stock MPICH, no tool)" "$rbase"
row "MPICH + mpitev, no tool" "$(per_msg mpitev none)"
row "MPICH + mpitev, --disable-mpit-events" "$(per_msg mpitev-disabled none)"
row "MPICH + mpitev, empty callback (all $ntypes_rma types)" "$(per_msg mpitev cball)"
path=shm

# one source per VCI: the build with per-VCI locks (build.sh mpitev-vcis, not built by
# default), the shared-memory unexpected path with MPIR_CVAR_CH4_NUM_VCIS 1 and 2 (the
# messages of MPI_COMM_WORLD stay on VCI 0; with 2 the progress engine polls both)
: >"$out/rows.vcis"
if [ -x "$dir/mpitev-vcis/bin/mpicc" ]; then
  echo "one source per VCI (build mpitev-vcis), shared memory, instructions per message"
  "$dir/mpitev-vcis/bin/mpicc" -O2 -g "$root/bench/mpich/unexp.c" -o "$out/unexp.mpitev-vcis"
  rowsfile=rows.vcis
  for vcis in 1 2; do
    vbase=$(per_msg mpitev-vcis none)
    base=$vbase
    row "MPIR_CVAR_CH4_NUM_VCIS=$vcis, no tool" "$vbase"
    row "MPIR_CVAR_CH4_NUM_VCIS=$vcis, empty callback (all $ntypes types)" "$(per_msg mpitev-vcis cball)"
  done
  vcis=1
fi


echo "ping-pong, 8 bytes, shared memory: $runs runs of $ppn round trips, builds alternating"
: >"$out/pp"
for r in $(seq 1 "$runs"); do
  for v in $variants; do
    t=$("$dir/$v/bin/mpiexec" -n 2 "$out/unexp.$v" pingpong "$ppn" | awk '/^pingpong/ { print $2 }')
    echo "$v $t" >>"$out/pp"
  done
done
pingpong_ratios stock-noevents stock-events mpitev mpitev-disabled

# the plot
awk -F' [|] ' '{ gsub(/^[|] /, "", $1); printf "\"%s\" %s\n", $1, $2 }' "$out/rows" |
  sed -e 's/ (stock MPICH, no tool)//; s/MPICH.s own events/own events/; s/MPICH + mpitev/mpitev/; s/empty callback/cb/' \
  >"$out/plot.dat"
plot_bars "$out/plot.dat" "$out/performance-mpich.png" \
  "MPICH 4.0.2: instructions per message on the unexpected path (receiving rank, callgrind)" "#3a6ea5"

[ "${MPITEV_MPICH_NOWRITE:-0}" = 1 ] && exit 0
gen=$out/generated.md
{
  echo "<!-- mpich:begin (generated by bench/mpich/run.sh: do not edit by hand) -->"
  echo
  echo "## MPICH 4.0.2 with mpitev (integrations/mpich)"
  echo
  echo "Generated $(date -u +%Y-%m-%d) by \`sh bench/mpich/run.sh $k\` (or \`bench/run.sh\`): $(gcc --version | head -1),"
  echo "$(valgrind --version), $(uname -m); the builds of \`integrations/mpich/build.sh\` (-O2 -g, ch4:ofi, shared memory)."
  echo "The receiving rank in the exchange of \`bench/mpich/unexp.c\` ([Method](#method)), \`(Ir(K=$((2 * k))) - Ir(K=$k)) / $k\`,"
  echo "one progress poll per message (\`MPIR_CVAR_CH4_SHM_POSIX_IQUEUE_NUM_CELLS\`: a cell for each). \"2 types\":"
  echo "\`unexp_message_enqueued\` and \`unexp_message_dequeued\`, stock MPICH's; \"all $ntypes types\": every type a tool"
  echo "can bind to \`MPI_COMM_WORLD\` or to no object. What the figures mean: integrations/mpich/README.md, Performance."
  echo
  echo "| build | instructions per message | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows"
  echo
  echo "The network module, libfabric's tagged matching (\`MPIR_CVAR_NOLOCAL=1\`, tcp on the loopback; \`unexp K MODE net\`:"
  echo "rank 1's K receives only, all K waiting in the provider), where MPICH's own events raise none:"
  echo
  echo "| build (network path) | instructions per message | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows.net"
  echo
  echo "One-sided (\`unexp rma\`): the origin per round of an 8-byte put, get and flush in a lock_all epoch:"
  echo
  echo "| build (put/get) | instructions per round | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows.rma"
  echo
  if [ -s "$out/rows.vcis" ]; then
    echo "One source per VCI (\`build.sh mpitev-vcis\`), \`MPIR_CVAR_CH4_NUM_VCIS\` 1 and 2, against the same count without a tool:"
    echo
    echo "| build (per-VCI locks) | instructions per message | vs. no tool |"
    echo "|---|---|---|"
    cat "$out/rows.vcis"
    echo
  fi
  echo "Ping-pong, 8 bytes, shared memory, $ppn round trips per run, $runs runs alternating the builds:"
  echo
  echo "$PPHEAD"
  cat "$out/pprows"
  if [ -f "$out/performance-mpich.png" ]; then
    echo
    echo "![MPICH: instructions per message](performance-mpich.png)"
  fi
  echo
  echo "<!-- mpich:end -->"
} >"$gen"
write_section mpich "$gen"
