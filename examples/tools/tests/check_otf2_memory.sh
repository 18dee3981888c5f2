#!/bin/sh
# check_otf2_memory.sh WORKDIR MPIEXEC OTF2_SO BURST [ENV...]
# The tracer with no variable set on a run whose trace is far larger than its default
# memory bound (MPITEV_OTF2_MEMORY, 16 MiB per process): rank 1 receives 100 000
# messages (30 records each), so OTF2 flushes its event buffers to disk as they fill;
# the tracer's report says how much they held at most, within the bound, and the trace
# reads with otf2-print, BUFFER_FLUSH records included. The trace is removed afterwards.
work=$1 mpiexec=$2 tool=$3 prog=$4; shift 4
. "$(dirname "$0")/lib.sh"
command -v otf2-print >/dev/null || { echo "otf2-print missing (Debian: otf2-tools)"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_OTF2_DIR="$work/trace" "$mpiexec" -n 2 --timeout 150 "$prog" unexpected 100000 > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "the program exited with $status"
expect_match out.txt "mpitev_otf2: trace in .*: 4 locations, [0-9]+ records, 0 instances reported dropped, [1-9][0-9]* buffer flushes, event buffers at most [0-9]+ KiB per process \(bound 16384 KiB\)"
peak=$(sed -n 's/.*event buffers at most \([0-9]*\) KiB per process.*/\1/p' out.txt)
[ -n "$peak" ] && [ "$peak" -le 16384 ] || fail "event buffers held $peak KiB, more than the bound"
otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
expect_match events.txt '^BUFFER_FLUSH +[0-9]+ +[0-9]+ +Stop Time: [0-9]+'
expect_match events.txt '^ENTER +[0-9]+ +[0-9]+ +Region: "unexpected_insert"'
echo "trace: $(du -sk trace | cut -f1) KiB, event buffers at most $peak KiB per process"
rm -rf trace events.txt
finish
