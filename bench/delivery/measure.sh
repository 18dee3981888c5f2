# Delivery rows of bench/run.sh (sourced: uses $bld, $out, $n, per, table, row, incl_ir).
# One callgrind run of bench_delivery (see its header): each figure is
# (incl(NAME_b) - incl(NAME_a)) / N, minus the clock read (immediate rows) and the
# callbacks (bench_cb, its own inclusive cost per call), so what is left is mpitev's.
valgrind --tool=callgrind --callgrind-out-file="$out/delivery" "$bld/bench/delivery/bench_delivery" "$n" \
  >"$out/delivery.txt" 2>/dev/null
f=$out/delivery
nd=$(awk '{ print $1; exit }' "$out/delivery.txt")
ncbd=$(awk '{ print $2; exit }' "$out/delivery.txt")
dcb=$(awk -v a="$(incl_ir "$f" bench_cb)" -v c="$ncbd" 'BEGIN { printf "%.2f", a / c }')
# the clock's read: its function, per call (the raise's call of it stays in the raise)
dclk=$(callee_per "$f" bench_clock_b mpitev__clock_monotonic_now)
# the raise loop without the raise (the loop and the payload's values), as bench/buffer
dbl=$(per "$(incl_ir "$f" bench_baseline_b)" "$(incl_ir "$f" bench_baseline_a)" "$nd")
# d NAME CALLBACKS CLOCK [BASELINE]: the net cost of one unit of scenario NAME
d() {
  awk -v b="$(incl_ir "$f" "$1_b")" -v a="$(incl_ir "$f" "$1_a")" -v n="$nd" -v k="$2" -v cb="$dcb" -v c="$3" \
    -v l="${4:-0}" 'BEGIN { if (a == "" || b == "") exit; printf "%.2f", (b - a) / n - k * cb - c - l }'
}
table delivery "Delivery against registrations ($nd units; clock and callbacks excluded; immediate rows also the loop and payload values)" "measurement" "instructions"
row delivery "clock read, CLOCK_MONOTONIC (subtracted)" "$dclk"
row delivery "callback, per call (subtracted)" "$dcb"
row delivery "loop + payload values, no raise (subtracted from the immediate rows)" "$dbl"
row delivery "immediate, unbound, 1 registration" "$(d imm_unbound1 1 "$dclk" "$dbl")"
row delivery "immediate, unbound, 2 registrations" "$(d imm_unbound2 2 "$dclk" "$dbl")"
row delivery "immediate, unbound, 8 registrations" "$(d imm_unbound8 8 "$dclk" "$dbl")"
row delivery "immediate, unbound, 1 registration + 64 on other types" "$(d imm_types64 1 "$dclk" "$dbl")"
row delivery "immediate, bound, 1 registration on the object" "$(d imm_bound1 1 "$dclk" "$dbl")"
row delivery "  + 1 bound registration on another object" "$(d imm_bound_o1 1 "$dclk" "$dbl")"
row delivery "  + 64 bound registrations on other objects" "$(d imm_bound_o64 1 "$dclk" "$dbl")"
row delivery "drain per record, unbound, 1 registration" "$(d drain_unbound1 1 0)"
row delivery "drain per record, bound, 1 registration" "$(d drain_bound1 1 0)"
row delivery "drain per record, bound, 2 registrations on the object" "$(d drain_bound2 2 0)"
row delivery "drain per record, bound, 8 registrations on the object" "$(d drain_bound8 8 0)"
row delivery "drain per record, bound, + 1 on another object" "$(d drain_bound_o1 1 0)"
row delivery "drain per record, bound, + 64 on other objects" "$(d drain_bound_o64 1 0)"
row delivery "drain per record, bound, objects alternating" "$(d drain_alternating 1 0)"
row delivery "drain per record, 2 registrations, alternating with records without delivery" "$(d drain_none_several 1 0)"
row delivery "drain call delivering one record (MPITEV_DRAIN)" "$(d call_bound1 1 0)"
