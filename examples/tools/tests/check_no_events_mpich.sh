#!/bin/sh
# check_no_events_mpich.sh WORKDIR MPICC MPIEXEC TOOLS_DIR
# On an MPI with no MPI_T event types at all (Debian's MPICH 4.0.2), the logger, built
# with that MPI's mpicc like any tool would be, says so once (rank 0), not per rank or
# communicator, and the program (qpattern, 3 ranks, 3 communicators each) runs as
# without it.
work=$1 mpicc=$2 mpiexec=$3 tools=$4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
"$mpicc" -std=c11 -shared -fPIC -o libmpitev_logger.so "$tools"/common/*.c "$tools"/logger/*.c -lpthread \
    || { fail "building the logger with $mpicc"; finish; }
"$mpicc" -std=c11 -o qpattern "$tools"/tests/qpattern.c || { fail "building qpattern with $mpicc"; finish; }
env LD_PRELOAD="$work/libmpitev_logger.so" "$mpiexec" -n 3 ./qpattern > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: 3 processes: ok"
expect_count out.txt "^mpitev_logger: the MPI declares no MPI_T event types: nothing to record, the tool is not attached$" 1
expect_count out.txt 'mpitev_logger' 1
finish
