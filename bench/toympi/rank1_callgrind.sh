#!/bin/sh
# usage (as the program mpiexec starts): rank1_callgrind.sh OUTFILE PROGRAM [ARGS...]
# Rank 1 runs under callgrind (counts into OUTFILE), every other rank runs plainly.
out=$1
shift
if [ "${TOYMPI_RANK:-}" = 1 ]; then
  exec valgrind -q --tool=callgrind --callgrind-out-file="$out" "$@"
fi
exec "$@"
