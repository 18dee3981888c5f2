#!/bin/sh
# check_minimal_mpich.sh WORKDIR MPICC MPIEXEC TOOLS_DIR
# On an MPI without message_arrived (Debian's MPICH 4.0.2 declares no event types), the
# minimal tool, built with that MPI's mpicc, says so in one line (MPI_T_event_get_index:
# MPI_T_ERR_INVALID_NAME) and the program (msgcount, 2 ranks) runs as without it.
work=$1 mpicc=$2 mpiexec=$3 tools=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
"$mpicc" -std=c11 -shared -fPIC -o libmpitev_minimal.so "$tools"/minimal/mpitev_minimal.c \
    || { fail "building the minimal tool with $mpicc"; finish; }
"$mpicc" -std=c11 -o msgcount "$tools"/tests/msgcount.c || { fail "building msgcount with $mpicc"; finish; }
env LD_PRELOAD="$work/libmpitev_minimal.so" "$mpiexec" -n 2 ./msgcount > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "msgcount exited with $status"
expect_match out.txt "^msgcount: 2 processes: ok$"
expect_count out.txt "^mpitev_minimal: the MPI has no event type message_arrived \(MPI_T_ERR_INVALID_NAME\): not attached$" 1
expect_count out.txt 'mpitev_minimal' 1
finish
