#!/bin/sh
# bench/openmpi/run.sh -- Open MPI 4.1.4's unexpected-message path (ob1 over vader, shared
# memory) in the builds of integrations/openmpi: events compiled out (stock), Open MPI +
# mpitev, Open MPI + mpitev configured --disable-mpit-events, and stock Open MPI
# configured --enable-peruse (PERUSE, what the MPI_T events paper replaced):
#   * instructions per message on the receiving rank (callgrind, --toggle-collect on the
#     exchange only: Ir(2K) - Ir(K), divided by K), without a tool, with an empty callback
#     on every MPI_T event type (mpitev), with an empty PERUSE callback on every PERUSE
#     event (stock-peruse);
#   * a put/get microbenchmark (one-sided, shared memory: instructions per round of an
#     8-byte put, an 8-byte get and a flush on the origin), without a tool and with empty
#     callbacks on every type;
#   * the ping-pong wall-time ratio (8 bytes, shared memory) against events compiled out,
#     by the minimum and by the median of runs alternating the builds.
# The program is bench/mpich/unexp.c (standard MPI and MPI_T only), compiled with each
# build's mpicc: -DUNEXP_NO_MPIT_EVENTS for the stock builds (Open MPI 4.1 has no MPI_T
# events), -DUNEXP_PERUSE for stock-peruse (its mode "peruse").
# Writes its tables between "<!-- openmpi:begin -->" and "<!-- openmpi:end -->" at the
# end of docs/performance.md and plots docs/performance-openmpi.png (gnuplot).
#
# usage: bench/openmpi/run.sh [K]      from anywhere; default K=1000 (runs K and 2K)
# Builds what it needs first (sh integrations/openmpi/build.sh stock stock-peruse mpitev
# mpitev-disabled: seconds when cached, 10-16 minutes each when not).
# Environment: MPITEV_OPENMPI_DIR (default build/integrations/openmpi: then the builds are
#   made or found by build.sh), MPITEV_BENCH_OUT=DIR (keep the raw outputs),
#   OPENMPI_PINGPONG_RUNS (default 7), OPENMPI_PINGPONG_N (default 100000 round trips),
#   OPENMPI_BENCH_REPEAT (callgrind runs per count, the least taken; default 3),
#   MPITEV_OPENMPI_NOWRITE=1 (print only, leave docs/ alone).
set -eu
k=${1:-1000}
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${MPITEV_OPENMPI_DIR:-$root/build/integrations/openmpi}
runs=${OPENMPI_PINGPONG_RUNS:-7}
ppn=${OPENMPI_PINGPONG_N:-100000}
command -v valgrind >/dev/null || { echo "bench/openmpi: valgrind is needed" >&2; exit 2; }
if [ -n "${MPITEV_BENCH_OUT:-}" ]; then
  out=$MPITEV_BENCH_OUT/openmpi
  mkdir -p "$out"
else
  out=$(mktemp -d)
  trap 'rm -rf "$out"' EXIT
fi
variants="stock stock-peruse mpitev mpitev-disabled"
# shellcheck disable=SC2086
[ -n "${MPITEV_OPENMPI_DIR:-}" ] || sh "$root/integrations/openmpi/build.sh" $variants
for v in $variants; do
  [ -x "$dir/$v/bin/mpicc" ] || { echo "bench/openmpi: no $dir/$v: run sh integrations/openmpi/build.sh $variants" >&2; exit 2; }
  case $v in
    stock) defs=-DUNEXP_NO_MPIT_EVENTS ;;
    stock-peruse) defs="-DUNEXP_NO_MPIT_EVENTS -DUNEXP_PERUSE" ;;
    *) defs= ;;
  esac
  # shellcheck disable=SC2086
  "$dir/$v/bin/mpicc" -O2 -g $defs "$root/bench/mpich/unexp.c" -o "$out/unexp.$v"
done
# The series the mpitev build was made from (its cache key: patches and include/mpitev).
mpitev_key=$(cat "$dir/mpitev/.key" 2>/dev/null | sed 's/.*patches=\([0-9a-f]*\).*/\1/' || true)

# mpirun as root, over shared memory (vader; self for a rank's own messages).
# Counts independent of timing: rank 0 sends all 2K messages while rank 1 sleeps, so they
# must all fit into vader's per-peer fast box (btl_vader_fbox_size, default 4 KiB: a few
# dozen messages; beyond it a send waits for the receiver, which sleeps), and the fast box
# is set up at the first send (btl_vader_fbox_threshold 1, default 16: otherwise the
# first messages take the FIFO and some arrive after later ones, a different number each
# run). Each poll then reads up to 32 messages from the fast box; lazy binding is done at
# start (LD_BIND_NOW), so no first call's symbol lookup falls into the measured part.
fbox=4096
while [ "$fbox" -lt $((64 * (2 * k + 200))) ]; do fbox=$((fbox * 2)); done
seg=$((8 * fbox))
[ "$seg" -ge 4194304 ] || seg=4194304
mca="--mca btl vader,self --mca btl_vader_fbox_threshold 1 --mca btl_vader_fbox_size $fbox --mca btl_vader_segment_size $seg"
run="--allow-run-as-root --mca plm_rsh_agent false $mca -x LD_BIND_NOW=1"

# ir VARIANT K MODE: instructions of rank 1 inside bench_pattern (PATH shm) or bench_rma
# (PATH rma).
ir() {
  f=$out/cg.$path.$1.$2.$3
  case $path in
    rma) args="rma $2 $3" fn=bench_rma ;;
    *) args="$2 $3" fn=bench_pattern ;;
  esac
  # shellcheck disable=SC2086
  "$dir/$1/bin/mpirun" $run -n 1 "$out/unexp.$1" $args : \
    -n 1 valgrind --tool=callgrind --callgrind-out-file="$f" --collect-atstart=no \
    --toggle-collect=$fn "$out/unexp.$1" $args >"$f.log" 2>&1 ||
    { cat "$f.log" >&2; return 1; }
  awk '$1 == "totals:" || $1 == "summary:" { print $2; exit }' "$f"
}
repeat=${OPENMPI_BENCH_REPEAT:-3}
. "$root/bench/mpi_common.sh"
path=shm
row() { # label value
  d=$(awk -v v="$2" -v b="$base" 'BEGIN { d = v - b; printf "%s%d (%s%.1f %%)", (d >= 0 ? "+" : ""), d, (d >= 0 ? "+" : ""), 100 * d / b }')
  printf '%-62s %6s  %s\n' "$1" "$2" "$d"
  printf '| %s | %s | %s |\n' "$1" "$2" "$d" >>"$out/$rowsfile"
}
callbacks() { # VARIANT ARGS...: the number of callbacks unexp.c registered
  v=$1; shift
  # shellcheck disable=SC2086
  "$dir/$v/bin/mpirun" $run -n 2 "$out/unexp.$v" "$@" | awk '/callbacks=/ { sub(/.*callbacks=/, ""); print }'
}

echo "Open MPI unexpected path (ob1, vader), instructions per message on the receiving rank (K=$k and $((2 * k)))"
ntypes=$(callbacks mpitev 8 cball)
nperuse=$(callbacks stock-peruse 8 peruse)
rowsfile=rows
: >"$out/rows"
base=$(per_msg stock none)
row "events compiled out (stock Open MPI, no tool)" "$base"
mt=$(per_msg mpitev none);            row "Open MPI + mpitev, no tool" "$mt"
md=$(per_msg mpitev-disabled none);   row "Open MPI + mpitev, --disable-mpit-events" "$md"
mta=$(per_msg mpitev cball);          row "Open MPI + mpitev, empty callback (all $ntypes types)" "$mta"
pn=$(per_msg stock-peruse none);      row "Open MPI --enable-peruse, no callback" "$pn"
pa=$(per_msg stock-peruse peruse);    row "Open MPI --enable-peruse, empty PERUSE callback (all $nperuse events)" "$pa"

echo "one-sided: instructions per round (8-byte put, 8-byte get, flush) on the origin"
path=rma
rowsfile=rows.rma
: >"$out/rows.rma"
ntypes_rma=$(callbacks mpitev rma 8 cball)
base=$(per_msg stock none)
row "events compiled out (stock Open MPI, no tool)" "$base"
row "Open MPI + mpitev, no tool" "$(per_msg mpitev none)"
row "Open MPI + mpitev, --disable-mpit-events" "$(per_msg mpitev-disabled none)"
row "Open MPI + mpitev, empty callback (all $ntypes_rma types)" "$(per_msg mpitev cball)"
path=shm

echo "ping-pong, 8 bytes, shared memory: $runs runs of $ppn round trips, builds alternating"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
: >"$out/pp"
for r in $(seq 1 "$runs"); do
  for v in $variants; do
    # shellcheck disable=SC2086
    t=$("$dir/$v/bin/mpirun" --allow-run-as-root --mca plm_rsh_agent false --mca btl vader,self -n 2 "$out/unexp.$v" pingpong "$ppn" |
      awk '/^pingpong/ { print $2 }')
    echo "$v $t" >>"$out/pp"
  done
done
pingpong_ratios stock mpitev mpitev-disabled stock-peruse

# the plot
awk -F' [|] ' '{ gsub(/^[|] /, "", $1); printf "\"%s\" %s\n", $1, $2 }' "$out/rows" |
  sed -e 's/ (stock Open MPI, no tool)//; s/Open MPI + mpitev/mpitev/; s/Open MPI --enable-peruse/PERUSE/; s/empty callback/cb/; s/empty PERUSE callback/cb/' \
  >"$out/plot.dat"
plot_bars "$out/plot.dat" "$out/performance-openmpi.png" \
  "Open MPI 4.1.4: instructions per message on ob1's unexpected path (receiving rank, callgrind)" "#a5533a"

[ "${MPITEV_OPENMPI_NOWRITE:-0}" = 1 ] && exit 0
gen=$out/generated.md
commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  echo "<!-- openmpi:begin (generated by bench/openmpi/run.sh: do not edit by hand) -->"
  echo
  echo "## Open MPI 4.1.4 with mpitev (integrations/openmpi)"
  echo
  echo "Generated $(date -u +%Y-%m-%d) by \`sh bench/openmpi/run.sh $k\` (or \`bench/run.sh\` when Open MPI +"
  echo "mpitev is built) at commit $commit (the mpitev build's patch series hash $mpitev_key):"
  echo "$(gcc --version | head -1), $(valgrind --version), $(uname -m). Four builds of"
  echo "\`integrations/openmpi/build.sh\` (same flags, -O2 -g, components linked in): \`stock\` (Debian's"
  echo "source, no MPI_T events: the events compiled out), \`mpitev\`, \`mpitev-disabled\` (configured"
  echo "\`--disable-mpit-events\`: raise sites and drains compiled out, what the series costs without"
  echo "events) and \`stock-peruse\` (Debian's source configured \`--enable-peruse\`: ob1's PERUSE hooks"
  echo "compiled in)."
  echo "Instructions of the receiving rank inside the exchange of \`bench/mpich/unexp.c\` (rank 1 waits,"
  echo "making no progress, until rank 0 has sent everything; a barrier moves every message into ob1's"
  echo "unexpected queue; rank 1 receives them in order), \`(Ir(K=$((2 * k))) - Ir(K=$k)) / $k\`, the least of"
  echo "$repeat runs per count: one message's arrival, matching, queueing, receive and copy, through vader's"
  echo "per-peer fast box (\`--mca btl_vader_fbox_size $fbox --mca btl_vader_fbox_threshold 1\`: every message"
  echo "fits and takes the same path, so the count does not depend on timing; vader's default fast box"
  echo "holds a few dozen)."
  echo "\"Empty callback (all $ntypes types)\" registers an empty callback on every type of Open MPI + mpitev a"
  echo "tool can bind to \`MPI_COMM_WORLD\` or to no object (the window types need a window); \"empty"
  echo "PERUSE callback\" registers one on each of ob1's $nperuse PERUSE events (those"
  echo "\`PERUSE_Query_supported_events\` lists, less the \`PERUSE_CUSTOM_EVENT\` marker;"
  echo "\`PERUSE_Event_comm_register\` on \`MPI_COMM_WORLD\`, \`PERUSE_Event_activate\`): PERUSE calls it"
  echo "synchronously from ob1, mpitev buffers the instance and delivers it at the call's exit or from"
  echo "\`opal_progress\`."
  echo
  echo "| build | instructions per message | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows"
  echo
  echo "One-sided (\`unexp rma\`): instructions of the origin per round of an 8-byte \`MPI_Put\`, an 8-byte"
  echo "\`MPI_Get\` and an \`MPI_Win_flush\` in a \`MPI_Win_lock_all\` epoch on a window of"
  echo "\`MPI_Win_allocate\` (osc/sm: shared memory between the two ranks); with a tool, the window's"
  echo "types too. PERUSE has no one-sided events."
  echo
  echo "| build (put/get) | instructions per round | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows.rma"
  echo
  echo "Ping-pong (8 bytes, shared memory, Open MPI's default vader settings, $ppn round trips per run,"
  echo "$runs runs alternating the builds; load average $load when they started, on $(nproc) cores), time"
  echo "per round trip against events compiled out. Wall time on a shared machine: the instruction counts"
  echo "above are the figures to compare."
  echo
  echo "| build | statistic | time per round trip (us) | compiled out (us) | ratio |"
  echo "|---|---|---|---|---|"
  cat "$out/pprows"
  if [ -f "$out/performance-openmpi.png" ]; then
    echo
    echo "![Open MPI: instructions per message](performance-openmpi.png)"
  fi
  echo
  echo "<!-- openmpi:end -->"
} >"$gen"
write_section openmpi "$gen"
