#!/bin/sh
# check_minimal.sh NP WORKDIR MPIEXEC MINIMAL_SO MSGCOUNT [ENV...]
# The minimal tool (examples/tools/minimal) on msgcount: at each rank, exactly the
# application's messages on MPI_COMM_WORLD per source rank and their bytes, none of the
# MPI's own (tag -2, the catalogue's convention) among them, nothing of the duplicate
# communicator, nothing dropped.
np=$1 work=$2 mpiexec=$3 tool=$4 prog=$5; shift 5
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" "$mpiexec" -n "$np" --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "msgcount exited with $status"
expect_match out.txt "^msgcount: $np processes: ok$"
big=16384
for d in $(seq 0 $((np - 1))); do
    line="^\[rank $d\] mpitev_minimal:"
    for s in $(seq 0 $((np - 1))); do
        if [ "$s" -eq "$d" ]; then
            msgs=0 bytes=0
        else
            msgs=$((1 + s + d)) bytes=$(( (1 + s + d) * 4 * (s + 1) ))
            if [ "$s" -eq $(( (d + np - 1) % np )) ]; then
                msgs=$((msgs + 1)) bytes=$((bytes + big))
            fi
        fi
        line="$line from $s: $msgs msgs $bytes bytes;"
    done
    # the MPI's own: the barrier's, the allreduce's and the dup's messages (tag -2)
    expect_count out.txt "$line the MPI's own: [1-9][0-9]*; dropped: 0\$" 1
done
expect_count out.txt 'mpitev_minimal' "$np"
finish
