# Disabled probes compared (sourced by bench/run.sh; bench_probes.c): instructions a
# probe site adds to its loop when nobody listens (callgrind, per iteration, the loop
# without a probe subtracted), and wall time on one core relative to that loop.
p=$bld/bench/probes/bench_probes
valgrind --tool=callgrind --callgrind-out-file="$out/probes" "$p" "$n" >"$out/probes.txt" 2>/dev/null
if [ "$short" = 1 ]; then tn=200000 tr=3; else tn=20000000 tr=11; fi
"$p" "$tn" "$tr" time >"$out/probes.time"
pbase=$(incl_ir "$out/probes" loop_base)
table probes "Disabled probes: per probe site, nobody listening ($n iterations; wall time: $tr rounds of $tn on one core)" \
  "probe" "instructions" "time / loop without probe, min" "median"
for name in $(awk '{ for (i = 2; i <= NF; i++) print $i; exit }' "$out/probes.txt"); do
  case $name in
    mpitev) label="mpitev MPITEV_RAISE" ;;
    lttng) label="LTTng-UST tracepoint" ;;
    sdt) label="systemtap SDT probe with semaphore" ;;
    flag) label="relaxed atomic flag + branch" ;;
    *) label=$name ;;
  esac
  row probes "$label" "$(per "$(incl_ir "$out/probes" "loop_$name")" "$pbase" "$n")" \
    "$(awk -v p="$name" '$1 == p { print $4 }' "$out/probes.time")" "$(awk -v p="$name" '$1 == p { print $5 }' "$out/probes.time")"
done
