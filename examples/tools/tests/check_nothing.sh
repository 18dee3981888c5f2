#!/bin/sh
# check_nothing.sh WORKDIR MPIEXEC LOGGER_SO QPATTERN [ENV...]
# The logger selecting none of the MPI's event types (a name no MPI declares), on 4
# ranks with 3 communicators each: it says so once (rank 0), not per rank or per
# communicator, stays detached, and the program runs as without it.
work=$1 mpiexec=$2 tool=$3 prog=$4; shift 4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_LOGGER_EVENTS=no_such_event "$mpiexec" -n 4 --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: 4 processes: ok"
expect_count out.txt "^mpitev_logger: none of the MPI's [1-9][0-9]* MPI_T event types is one the tool records: nothing to record, the tool is not attached$" 1
expect_count out.txt 'mpitev_logger' 1
finish
