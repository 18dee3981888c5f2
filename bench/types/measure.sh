# The raise with 1 to 100000 declared types (sourced by bench/run.sh; bench_types.c):
# per loop iteration (the loop's own 3 instructions included), raising the type declared
# last; immediate includes the clock read and the empty callback.
if [ "$short" = 1 ]; then tn=2000; else tn=100000; fi
table types "Raise cost against the number of declared types (per iteration, $tn raises)" \
  "declared types" "disabled raise" "immediate raise, 1 registration (incl. clock + callback)"
for t in 1 100 10000 100000; do
  valgrind --tool=callgrind --callgrind-out-file="$out/types.$t" "$bld/bench/types/bench_types" "$t" "$tn" >/dev/null 2>&1
  f=$out/types.$t
  row types "$t" "$(per "$(incl_ir "$f" loop_disabled_b)" "$(incl_ir "$f" loop_disabled_a)" "$tn")" \
    "$(per "$(incl_ir "$f" loop_immediate_b)" "$(incl_ir "$f" loop_immediate_a)" "$tn")"
done
