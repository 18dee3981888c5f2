#!/bin/sh
# check_otf2_drops.sh WORKDIR MPIEXEC OTF2_SO QPATTERN [ENV...]
# qpattern flood with the toy's engine ring made tiny (TOYMPI_EVENT_BUFFER=16 records):
# rank 0's first progress call after its sleep reads the arrivals of many messages, four
# records each, before it drains, so instances are dropped whatever the socket buffers
# hold; the tracer's memory is bounded to one 256 KiB chunk per process (so one per
# location, the least it gives), so OTF2 flushes. The trace shows both:
# MPI_T_events_dropped records whose counts add up to what the dropped handlers
# reported, and BUFFER_FLUSH.
work=$1 mpiexec=$2 tool=$3 prog=$4; shift 4
. "$(dirname "$0")/lib.sh"
command -v otf2-print >/dev/null || { echo "otf2-print missing (Debian: otf2-tools)"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" TOYMPI_EVENT_BUFFER=16 MPITEV_OTF2_DIR="$work/trace" MPITEV_OTF2_CHUNK=262144 MPITEV_OTF2_MEMORY=262144 \
    "$mpiexec" -n 2 --timeout 60 "$prog" flood > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "mpitev_otf2: trace in .*: 4 locations, [0-9]+ records, [1-9][0-9]* instances reported dropped, [1-9][0-9]* buffer flushes"
reported=$(sed -n 's/.* records, \([0-9]*\) instances reported dropped.*/\1/p' out.txt)
otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
expect_match events.txt '^BUFFER_FLUSH +[0-9]+ +[0-9]+ +Stop Time: [0-9]+'
expect_match events.txt '^ENTER +1 +[0-9]+ +Region: "MPI_T_events_dropped"'
in_trace=$(grep -o '"dropped_count" <[0-9]*>; UINT64; [0-9]*' events.txt | awk '{ s += $4 } END { print s + 0 }')
[ "$in_trace" = "$reported" ] || fail "dropped counts in the trace add up to $in_trace, the handlers reported $reported"
echo "dropped: $reported reported, $in_trace in the trace"
finish
