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
  echo "Generated $(date -u +%Y-%m-%d) by \`sh bench/openmpi/run.sh $k\` (or \`bench/run.sh\`) at commit $commit (patch series"
  echo "hash $mpitev_key): $(gcc --version | head -1), $(valgrind --version), $(uname -m); the builds of"
  echo "\`integrations/openmpi/build.sh\` (-O2 -g, components linked in), \`stock-peruse\` with ob1's PERUSE hooks."
  echo "The receiving rank in the exchange of \`bench/mpich/unexp.c\` ([Method](#method)), \`(Ir(K=$((2 * k))) - Ir(K=$k)) / $k\`,"
  echo "the least of $repeat runs, every message through vader's fast box"
  echo "(\`--mca btl_vader_fbox_size $fbox --mca btl_vader_fbox_threshold 1\`). \"All $ntypes types\": every type a tool"
  echo "can bind to \`MPI_COMM_WORLD\` or to no object; \"empty PERUSE callback\": one on each of ob1's $nperuse PERUSE"
  echo "events, called from ob1 at once (mpitev buffers and delivers from a drain). What the figures mean:"
  echo "integrations/openmpi/README.md, Performance."
  echo
  echo "| build | instructions per message | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows"
  echo
  echo "One-sided (\`unexp rma\`): the origin per round of an 8-byte put, get and flush in a lock_all epoch (osc/sm):"
  echo
  echo "| build (put/get) | instructions per round | vs. events compiled out |"
  echo "|---|---|---|"
  cat "$out/rows.rma"
  echo
  echo "Ping-pong, 8 bytes, vader's defaults, $ppn round trips per run, $runs runs alternating the builds (load"
  echo "average $load at the start, $(nproc) cores): wall time, the instruction counts are the figures to compare."
  echo
  echo "$PPHEAD"
  cat "$out/pprows"
  if [ -f "$out/performance-openmpi.png" ]; then
    echo
    echo "![Open MPI: instructions per message](performance-openmpi.png)"
  fi
  echo
  echo "<!-- openmpi:end -->"
} >"$gen"
write_section openmpi "$gen"
