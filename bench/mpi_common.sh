# bench/mpi_common.sh -- what bench/mpich/run.sh and bench/openmpi/run.sh share (sourced,
# after they define $out, $k, $repeat and ir VARIANT K MODE, the instructions of one
# callgrind run); bench/run.sh uses its write_section (with $out and $root) for its own
# section of docs/performance.md.

# irmin VARIANT K MODE: the least Ir of $repeat runs. On a loaded machine one rank may be
# slow to enter the exchange and the other's progress engine then polls a few more times
# while it waits (Open MPI's opal_progress also runs libevent's loop when enough time has
# passed): instructions that have nothing to do with the messages, never fewer.
irmin() {
  m=
  for i in $(seq 1 "$repeat"); do
    x=$(ir "$@")
    if [ -z "$m" ] || [ "$x" -lt "$m" ]; then m=$x; fi
  done
  echo "$m"
}

# per_msg VARIANT MODE: (Ir(2K) - Ir(K)) / K
per_msg() {
  a=$(irmin "$1" $((2 * k)) "$2") b=$(irmin "$1" "$k" "$2")
  awk -v a="$a" -v b="$b" -v k="$k" 'BEGIN { printf "%.0f", (a - b) / k }'
}

# pingpong_ratios BASE VARIANT...: from $out/pp (lines "variant microseconds"), each
# variant's minimum and median against BASE's, printed and written to $out/pprows (one
# row per variant, under PPHEAD)
PPHEAD='| build | min (us) | compiled out (us) | ratio | median (us) | compiled out (us) | ratio |
|---|---|---|---|---|---|---|'
pingpong_ratios() {
  base_v=$1
  shift
  : >"$out/pprows"
  for v in "$@"; do
    printf '| %s |' "$v" >>"$out/pprows"
    for w in min median; do
      a=$(pp_stat "$v" "$w") b=$(pp_stat "$base_v" "$w")
      ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
      printf '%-16s %-6s %8s us vs %8s us (compiled out): ratio %s\n' "$v" "$w" "$a" "$b" "$ratio"
      printf ' %s | %s | %s |' "$a" "$b" "$ratio" >>"$out/pprows"
    done
    echo >>"$out/pprows"
  done
}
pp_stat() { # variant min|median
  awk -v v="$1" '$1 == v { print $2 }' "$out/pp" | sort -g |
    awk -v w="$2" '{ a[NR] = $1 } END { if (w == "min") print a[1]; else print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# plot_bars DAT PNG TITLE COLOR: a bar chart of DAT's lines ("label" value), if gnuplot is there
plot_bars() {
  command -v gnuplot >/dev/null || return 0
  gnuplot <<GP
set terminal pngcairo size 1000,540 noenhanced font ",10"
set output "$2"
set title "$3"
set ylabel "instructions per message"
set style fill solid 0.6 border -1
set boxwidth 0.6
set bmargin 7
set xtics rotate by -20
set yrange [0:*]
set offsets 0, 0, graph 0.1, 0
set grid ytics
unset key
plot "$1" using 0:2:xtic(1) with boxes lc rgb "$4", "" using 0:2:2 with labels offset 0,1
GP
}

# write_section NAME GEN: GEN (between "<!-- NAME:begin" and "<!-- NAME:end" lines) replaces
# that section of docs/performance.md, or is appended; $out/performance-NAME.png, if
# plotted, goes to docs/
write_section() {
  doc=$root/docs/performance.md
  if grep -q "^<!-- $1:begin" "$doc"; then
    awk -v gen="$2" -v b="^<!-- $1:begin" -v e="^<!-- $1:end" '$0 ~ b { while ((getline l < gen) > 0) print l; skip = 1; next }
      $0 ~ e { skip = 0; next } !skip' "$doc" >"$out/doc.md"
  else
    { cat "$doc"; echo; cat "$2"; } >"$out/doc.md"
  fi
  cp "$out/doc.md" "$doc"
  [ ! -f "$out/performance-$1.png" ] || cp "$out/performance-$1.png" "$root/docs/performance-$1.png"
  echo "wrote docs/performance.md ($1 section) and docs/performance-$1.png"
}
