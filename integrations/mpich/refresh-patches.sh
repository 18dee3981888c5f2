#!/bin/sh
# For whoever changes the patch series: regenerates patches/*.patch from a git working
# tree of MPICH (the Debian source with `git init; git add -A; git commit` as its first
# commit, edited in place), one patch per group of files, in the order of patches/series.
# usage: integrations/mpich/refresh-patches.sh /path/to/mpich-tree
set -eu
tree=$1
p=$(cd "$(dirname "$0")" && pwd)/patches
cd "$tree"
git add -A .
git diff --cached -- maint/gen_binding_c.py maint/local_python/binding_c.py src/binding/c/mpit_api.txt \
  >"$p/0001-binding-mpi-t-events-from-mpitev.patch"
git diff --cached -- configure.ac src/include/mpir_events.h src/mpi_t/mpir_events.c src/mpi_t/Makefile.mk \
  src/include/mpitimpl.h src/include/mpiimpl.h src/mpi_t/mpit_finalize.c src/mpi_t/mpit_impl.c src/mpi/init/mpir_init.c \
  >"$p/0002-mpi-t-events-implemented-by-mpitev.patch"
git diff --cached -- src/include/mpir_comm.h src/mpi/comm/commutil.c >"$p/0003-comm-serial-keys-and-events.patch"
git diff --cached -- src/mpid/ch4/src/ >"$p/0004-ch4-recvq-events-and-drain.patch"
git diff --cached --stat
