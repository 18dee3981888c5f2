#!/bin/sh
# check_logger_env.sh WORKDIR MPIEXEC LOGGER_SO QPATTERN [ENV...]
# A malformed variable: the help text is printed, the logger stays detached, the program
# runs normally.
work=$1 mpiexec=$2 tool=$3 prog=$4; shift 4
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_LOGGER_VERBOSITY=loud "$mpiexec" -n 2 --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: 2 processes: ok"
expect_count out.txt "mpitev_logger: invalid MPITEV_LOGGER_VERBOSITY='loud'; the logger is not attached" 2
expect_match out.txt "MPITEV_LOGGER_EVENTS +event type names or glob patterns"
expect_count out.txt 'toympi_' 0
finish
