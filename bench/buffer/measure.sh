# Buffered delivery rows of bench/run.sh (sourced: uses $bld, $out, $n, per, table, row).
# One callgrind run of bench_buffer: *_a functions handle N instances, *_b 2N; every
# figure is (incl(b) - incl(a)) / N, inclusive of what the raise or drain calls. The
# raise rows subtract the same loop without the raise (bench_baseline_*: the loop and
# the payload's values, work a raise site does whether or not it raises).
table buffer "Buffered delivery ($n instances; raise rows exclude the loop and payload values)" "measurement" "instructions"
valgrind --tool=callgrind --callgrind-out-file="$out/buffer" "$bld/bench/buffer/bench_buffer" "$n" >"$out/buffer.txt" 2>/dev/null
f=$out/buffer
nb=$(awk '{ print $1; exit }' "$out/buffer.txt")          # N (rounded up to a chunk)
ncb=$(awk '{ print $6; exit }' "$out/buffer.txt")         # callbacks run
tsc=$(awk '{ print $9; exit }' "$out/buffer.txt")         # yes / no
# Clock reads: one per raise on the monotonic sources (ordered, unordered: N + 2N each).
clk=$(awk -v a="$(incl_ir "$f" mpitev__clock_monotonic_now)" -v n="$nb" 'BEGIN { printf "%.2f", a / (6 * n) }')
cb=$(awk -v a="$(incl_ir "$f" bench_cb)" -v n="$ncb" 'BEGIN { printf "%.2f", a / n }')
bl=$(per "$(incl_ir "$f" bench_baseline_b)" "$(incl_ir "$f" bench_baseline_a)" "$nb")
net() { awk -v a="$1" -v b="$bl" 'BEGIN { printf "%.2f", a - b }'; }
ro=$(net "$(per "$(incl_ir "$f" bench_raise_ordered_b)" "$(incl_ir "$f" bench_raise_ordered_a)" "$nb")")
ru=$(net "$(per "$(incl_ir "$f" bench_raise_unordered_b)" "$(incl_ir "$f" bench_raise_unordered_a)" "$nb")")
row buffer "loop + payload values, no raise (subtracted)" "$bl"
row buffer "clock read, CLOCK_MONOTONIC (vDSO not seen)" "$clk"
row buffer "buffered raise, ordered, incl. clock" "$ro"
row buffer "buffered raise, ordered, without clock" "$(awk -v a="$ro" -v c="$clk" 'BEGIN { printf "%.2f", a - c }')"
row buffer "buffered raise, unordered, incl. clock" "$ru"
row buffer "buffered raise, unordered, without clock" "$(awk -v a="$ru" -v c="$clk" 'BEGIN { printf "%.2f", a - c }')"
k=1
if [ "$tsc" = yes ]; then
  k=2
  tclk=$(awk -v a="$(incl_ir "$f" mpitev__tsc_now)" -v n="$nb" 'BEGIN { printf "%.2f", a / (3 * n) }')
  row buffer "clock read, TSC (mpitev_clock_tsc)" "$tclk"
  row buffer "buffered raise, ordered, TSC clock" \
    "$(net "$(per "$(incl_ir "$f" bench_raise_tsc_b)" "$(incl_ir "$f" bench_raise_tsc_a)" "$nb")")"
fi
# Drain: bench_drain_{a,b} drained the k ordered (spsc) runs, bench_drain_u_{a,b}
# the unordered (mpsc) one; N vs 2N instances each.
dr=$(awk -v b="$(incl_ir "$f" bench_drain_b)" -v a="$(incl_ir "$f" bench_drain_a)" -v n="$nb" -v k="$k" \
  'BEGIN { printf "%.2f", (b - a) / (k * n) }')
du=$(per "$(incl_ir "$f" bench_drain_u_b)" "$(incl_ir "$f" bench_drain_u_a)" "$nb")
row buffer "callback (bench's own, counted apart)" "$cb"
row buffer "drain per instance, ordered, incl. callback" "$dr"
row buffer "drain per instance, ordered, without callback" "$(awk -v a="$dr" -v c="$cb" 'BEGIN { printf "%.2f", a - c }')"
row buffer "drain per instance, unordered, incl. callback" "$du"
row buffer "drain per instance, unordered, without callback" "$(awk -v a="$du" -v c="$cb" 'BEGIN { printf "%.2f", a - c }')"
