#!/bin/sh
# check_otf2.sh NP WORKDIR MPIEXEC OTF2_SO QPATTERN [ENV...]
# The OTF2 tracer on qpattern: the archive reads with otf2-print; one location per rank
# and source; the expected instances with their payload; per-location order; strings
# unified across ranks; clock properties.
np=$1 work=$2 mpiexec=$3 tool=$4 prog=$5; shift 5
. "$(dirname "$0")/lib.sh"
command -v otf2-print >/dev/null || { echo "otf2-print missing (Debian: otf2-tools)"; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_OTF2_DIR="$work/trace" "$mpiexec" -n "$np" --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: $np processes: ok"
expect_match out.txt "mpitev_otf2: trace in .*/trace/traces.otf2: $((2 * np)) locations, [0-9]+ records, 0 instances reported dropped"
otf2-print -G trace/traces.otf2 > defs.txt 2>&1 || fail "otf2-print -G failed"
otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
head -c 3000 defs.txt
expect_match defs.txt "^CLOCK_PROPERTIES +Ticks per Seconds: 1000000000, Global Offset: [1-9][0-9]*, Length: [1-9]"
k=5 m=4 u=$(( (np - 1) * k ))
for r in $(seq 0 $((np - 1))); do
    # locations 2r (toympi_api) and 2r+1 (toympi_progress) in the group "rank r"
    expect_count defs.txt "^LOCATION +$((2 * r)) +Name: \"toympi_api\" <[0-9]+>, Type: CPU_THREAD, # Events: [1-9][0-9]*, Group: \"rank $r\"" 1
    expect_count defs.txt "^LOCATION +$((2 * r + 1)) +Name: \"toympi_progress\" <[0-9]+>, Type: CPU_THREAD, # Events: [1-9][0-9]*, Group: \"rank $r\"" 1
    # the communicator freed mid-run: one comm_free instance on each rank's api location
    expect_count events.txt "^ENTER +$((2 * r)) +[0-9]+ +Region: \"comm_free\"" 1
    # the collectives' instances (qpattern's are all MPI_Barrier)
    expect_match events.txt "^ENTER +$((2 * r)) +[0-9]+ +Region: \"toympi_coll_begin\""
done
expect_count events.txt '\("op" <[0-9]+>; INT32; 0\)' $(grep -Ec '^ENTER +[0-9]+ +[0-9]+ +Region: "toympi_coll_(begin|end)"' events.txt)
# rank 0's unexpected queue grew to (np-1)*K once, with INT32 queue lengths 1..u in order
awk '$1 == "ENTER" && $2 == 1 { ev = $0; getline; print ev " " $0 }' events.txt > loc1.txt
grep '"unexpected_insert"' loc1.txt | grep -o '"queue_length" <[0-9]*>; INT32; [0-9]*' | awk '{ print $4 }' > qlen.txt
got=" $(tr '\n' ' ' < qlen.txt)" want=" $(seq 1 $u | tr '\n' ' ')"
case "$got" in *"$want"*) ;; *) fail "rank 0: unexpected queue lengths$got do not contain$want" ;; esac
# per-location order: timestamps never decrease; every message arrival is followed by the
# search of the posted queue for it (the order the MPI raised them in)
for loc in $(seq 0 $((2 * np - 1))); do
    awk -v l=$loc '($1 == "ENTER" || $1 == "LEAVE") && $2 == l { if ($3 < last) { print "order: " $0; exit 1 } last = $3 }' events.txt \
        || fail "location $loc: timestamps decrease"
done
awk '/Region: "message_arrived"/ { want = 1; next } want { if ($0 !~ /Region: "search_posted_begin"/) { print; exit 1 } want = 0 }' loc1.txt \
    || fail "rank 0: a message_arrived not followed by search_posted_begin"
finish
