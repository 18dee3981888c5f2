#!/bin/sh
# mpicc_smoke.sh MPICC MPIEXEC SRCDIR [OTF2]
# Compiles unchanged MPI programs with the generated mpicc wrapper (one of
# them in two steps: -c, then link) and runs them with mpiexec. With a
# fourth argument "otf2", also builds the OTF2 collective-callback test.
set -e
MPICC=$1 MPIEXEC=$2 SRC=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$MPICC" -show -o x x.c | grep -q -- "-ltoympi"
"$MPICC" -O1 -o "$tmp/hello" "$SRC/test_hello.c"
"$MPICC" -c -o "$tmp/pmpi.o" "$SRC/test_pmpi.c"
"$MPICC" -o "$tmp/pmpi" "$tmp/pmpi.o"
"$MPIEXEC" -n 2 --timeout 30 "$tmp/hello"
"$MPIEXEC" -n 4 --timeout 30 "$tmp/pmpi"
if [ "$4" = otf2 ]; then
    "$MPICC" -Wall -o "$tmp/otf2" "$SRC/test_otf2.c" -lopen-trace-format2
    "$MPIEXEC" -n 2 --timeout 30 "$tmp/otf2"
fi
echo "mpicc smoke test passed"
