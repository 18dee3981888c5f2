#!/bin/sh
# usage: disabled_build.sh TOY_SOURCE_DIR BUILD_DIR C_COMPILER
# Builds toy_mpi on its own with -DMPITEV_DISABLE (every raise site and drain compiled
# out, mpitev.h COMPILE-TIME OPTIONS) and runs its pt2pt test with 2 ranks: an MPI that
# compiles its events out must still build warning-free and work. -Werror: a compiled-out
# raise must not leave an unused variable or parameter behind.
# Build jobs: CMAKE_BUILD_PARALLEL_LEVEL from the caller's environment (ctest passes it
# on), 2 if unset or empty.
set -eu
src=$1 bld=$2 cc=$3
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-2}
cmake -S "$src" -B "$bld" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE=Release \
  "-DCMAKE_C_FLAGS=-DMPITEV_DISABLE -Werror" >/dev/null
cmake --build "$bld" -j "$jobs" --target toympi toympi_mpiexec toympi_test_pt2pt >/dev/null
"$bld/bin/mpiexec" -n 2 --timeout 60 "$bld/tests/toympi_test_pt2pt"
echo "toy_mpi built with MPITEV_DISABLE: pt2pt passed"
