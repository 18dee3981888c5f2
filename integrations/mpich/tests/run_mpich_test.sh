#!/bin/sh
# run_mpich_test.sh WORKDIR MPITEV_PREFIX STOCK_PREFIX TEST NP [ARG...]
# One of MPICH's own tests (TEST: its path under test/mpi, without .c, e.g.
# mpi_t/mpit_vars), compiled from the MPICH source's copy that build.sh keeps in
# PREFIX/share/mpich-tests, with MTest's helpers. It runs on MPICH + mpitev and, as the
# reference, on stock MPICH with its own events (STOCK_PREFIX). Passes when it passes on
# MPICH + mpitev ("No Errors", exit 0), or fails there exactly as it fails on stock MPICH
# (reported, not hidden). Without the stock build the reference is skipped.
set -u
work=$1 new=$2 stock=$3 test=$4 np=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
name=$(basename "$test")
mkdir -p "$work" && cd "$work" || exit 2

# run PREFIX TAG: compile and run; prints the output; returns 0 if the test passed
run() {
  prefix=$1 tag=$2 t=$1/share/mpich-tests
  shift 2
  # one executable per variant (the test's arguments in its name): ctest runs the
  # variants of one test in parallel, and a shared name made one's compile overwrite the
  # program another was starting ("Text file busy", "Permission denied")
  exe=$work/$name$(printf '.%s' "$@").$tag
  # MPICH's tests predate -Wall hygiene: only their own warnings are silenced
  "$prefix/bin/mpicc" -O1 -g -w -I"$here/mpich-mpi_t" -I"$t/include" "$t/$test.c" \
    "$t/util/mtest.c" "$t/util/mtest_common.c" "$t/util/mtest_single.c" -o "$exe" -lm -pthread || return 2
  out=$("$prefix/bin/mpiexec" -n "$np" "$exe" "$@" 2>&1)
  rc=$?
  echo "--- $tag: exit $rc"
  echo "$out" | tail -20
  [ $rc -eq 0 ] && echo "$out" | grep -q "No Errors"
}

if run "$new" mpitev "$@"; then
  echo "PASS on MPICH + mpitev: $test $np $*"
  exit 0
fi
if [ ! -x "$stock/bin/mpicc" ]; then
  echo "FAIL on MPICH + mpitev (no stock build to compare with): $test $np $*"
  exit 1
fi
if run "$stock" stock "$@"; then
  echo "FAIL: passes on stock MPICH, fails on MPICH + mpitev: $test $np $*"
  exit 1
fi
echo "fails on stock MPICH too (not a regression): $test $np $*"
exit 0
