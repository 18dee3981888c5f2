# The toy MPI's message path (sourced by bench/run.sh: uses $root, $bld, $out, $short,
# row, table, cg_total). Instructions per received unexpected message on the receiving
# rank, under callgrind: rank 0 sends K one-int messages, rank 1 lets them all arrive
# unexpected, then receives them (bench_msgs.c); (Ir(K2) - Ir(K1)) / (K2 - K1), -O2, for
#   - events compiled out: the toy built again with -DMPITEV_DISABLE (raise sites and
#     drain calls vanish), in $bld/toympi-disabled;
#   - events compiled in, no tool attached;
#   - a tool (standard MPI_T API) with an empty callback on every event type.
# Then a ping-pong's wall time, events compiled in (no tool) against compiled out.
toy_on=$bld/examples/toy_mpi
toy_off=$bld/toympi-disabled
if [ ! -x "$toy_on/bin/mpicc" ]; then
  echo "toy MPI not built (MPITEV_BUILD_EXAMPLES=OFF): its rows are skipped"
else
  # build_toy DIR DEFINE: the toy MPI again, -O2, with -DDEFINE on every file
  build_toy() {
    cmake -S "$root/examples/toy_mpi" -B "$1" -DCMAKE_BUILD_TYPE=Release "-DCMAKE_C_FLAGS_RELEASE=-O2 -DNDEBUG" \
      "-DCMAKE_C_FLAGS=-D$2" -DBUILD_TESTING=OFF >/dev/null
    cmake --build "$1" -j2 --target toympi toympi_mpiexec >/dev/null
  }
  build_toy "$toy_off" MPITEV_DISABLE
  "$toy_on/bin/mpicc" -O2 -o "$out/bm_on" "$root/bench/toympi/bench_msgs.c"
  "$toy_off/bin/mpicc" -O2 -o "$out/bm_off" "$root/bench/toympi/bench_msgs.c"
  if [ "$short" = 1 ]; then k1=100 k2=200; else k1=1000 k2=2000; fi
  # msg_ir NAME PROGRAM [tool]: instructions per message on rank 1; the tool's counts of
  # callbacks and drops (for K2 - K1 messages) go to $out/NAME.events / .dropped.
  msg_ir() {
    name=$1 prog=$2
    shift 2
    for k in $k1 $k2; do
      "$toy_on/bin/mpiexec" -n 2 --timeout 600 sh "$root/bench/toympi/rank1_callgrind.sh" "$out/cg.$name.$k" \
        "$prog" unexpected "$k" "$@" >/dev/null 2>"$out/$name.$k.err" || { cat "$out/$name.$k.err" >&2; return 1; }
    done
    for f in events dropped; do
      awk -v f="$f" -v k1="$k1" -v k2="$k2" 'FNR == 1 { file++ } $1 == "events" { v[file] = (f == "events" ? $2 : $4) }
        END { printf "%.2f", (v[2] - v[1]) / (k2 - k1) }' "$out/$name.$k1.err" "$out/$name.$k2.err" >"$out/$name.$f"
    done
    per "$(cg_total "$out/cg.$name.$k2")" "$(cg_total "$out/cg.$name.$k1")" $((k2 - k1))
  }
  off=$(msg_ir off "$out/bm_off")
  on=$(msg_ir on "$out/bm_on")
  tl=$(msg_ir tool "$out/bm_on" tool)
  ev=$(cat "$out/tool.events") dr=$(cat "$out/tool.dropped")
  # the same tool with the sources on the TSC clock (TOYMPI_EVENT_CLOCK, events.c)
  tt=$(TOYMPI_EVENT_CLOCK=tsc msg_ir tooltsc "$out/bm_on" tool)
  evt=$(cat "$out/tooltsc.events")
  pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f (%+.0f%%)", a - b, 100 * (a - b) / b }'; }
  table toympi "Toy MPI: instructions per received unexpected message (rank 1, K = $k1 and $k2)" \
    "configuration" "instructions per message" "over MPITEV_DISABLE"
  row toympi "events compiled out (MPITEV_DISABLE)" "$off" "-"
  row toympi "events compiled in, no tool" "$on" "$(pct "$on" "$off")"
  row toympi "tool with an empty callback on every type" "$tl" "$(pct "$tl" "$off")"
  # per_event TOTAL EVENTS: a tool run's instructions per delivered event over the
  # no-tool run ("n/a" without events)
  per_event() { awk -v t="$1" -v o="$on" -v e="$2" 'BEGIN { if (e > 0) printf "%.1f", (t - o) / e; else printf "n/a" }'; }
  # The issue's figure excludes the clock: its read, per event, is the clock function's
  # inclusive count in the tool runs (what the raise does around the call, saving and
  # reloading registers, stays in). clock_per NAME FUNCTION EVENTS
  clock_per() {
    awk -v a="$(incl_ir "$out/cg.$1.$k2" "$2")" -v b="$(incl_ir "$out/cg.$1.$k1" "$2")" -v e="$3" -v n=$((k2 - k1)) \
      'BEGIN { if (a != "" && b != "" && e > 0) printf "%.1f", (a - b) / n / e }'
  }
  # without_clock PER_EVENT CLOCK: the first less the second (nothing if either is missing)
  without_clock() { awk -v p="$1" -v c="$2" 'BEGIN { if (c != "" && p != "n/a") printf "%.1f", p - c }'; }
  per_ev=$(per_event "$tl" "$ev")
  row toympi "  events delivered / dropped per message (tool)" "$ev / $dr" "-"
  row toympi "  instructions per delivered event (tool - no tool)" "$per_ev" "-"
  clk=$(clock_per tool mpitev__clock_monotonic_now "$ev")
  row toympi "  of which the clock read (CLOCK_MONOTONIC, a call)" "$clk" "-"
  row toympi "  instructions per delivered event, clock excluded" "$(without_clock "$per_ev" "$clk")" "-"
  row toympi "tool as above, sources on the TSC clock" "$tt" "$(pct "$tt" "$off")"
  per_evt=$(per_event "$tt" "$evt")
  row toympi "  instructions per delivered event, TSC clock" "$per_evt" "-"
  row toympi "  instructions per delivered event, TSC clock, clock excluded" \
    "$(without_clock "$per_evt" "$(clock_per tooltsc mpitev__tsc_now "$evt")")" "-"
  printf '"compiled out" %s\n"compiled in,\\nno tool" %s\n"empty callbacks,\\nevery type" %s\n"per delivered\\nevent" %s\n' \
    "$off" "$on" "$tl" "$per_ev" >"$out/plot.toympi"

  # Ping-pong wall time: rounds alternate the two builds (drift hits both); each run
  # does 3 repeats of N round trips and counts its fastest. min / median over rounds.
  if [ "$short" = 1 ]; then pn=200 rounds=2; else pn=20000 rounds=7; fi
  : >"$out/pp.on"
  : >"$out/pp.off"
  r=0
  while [ $r -lt $rounds ]; do
    for v in on off; do
      "$toy_on/bin/mpiexec" -n 2 --timeout 600 "$out/bm_$v" pingpong "$pn" 3 | sort -g | head -1 >>"$out/pp.$v"
    done
    r=$((r + 1))
  done
  stats() { sort -g "$1" | awk '{ v[NR] = $1 } END { printf "%.1f %.1f", v[1], v[int((NR + 1) / 2)] }'; }
  set -- $(stats "$out/pp.on") $(stats "$out/pp.off")
  table pingpong "Toy MPI ping-pong, one-int round trip, ns (wall time; $rounds rounds of $pn, min and median)" \
    "build" "min" "median"
  row pingpong "events compiled out (MPITEV_DISABLE)" "$3" "$4"
  row pingpong "events compiled in, no tool" "$1" "$2"
  row pingpong "ratio compiled in / compiled out" "$(awk -v a="$1" -v b="$3" 'BEGIN { printf "%.3f", a / b }')" \
    "$(awk -v a="$2" -v b="$4" 'BEGIN { printf "%.3f", a / b }')"
fi
