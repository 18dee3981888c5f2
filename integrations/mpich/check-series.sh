#!/bin/sh
# Builds MPICH after each patch of the series (patches/series, in order) and says which
# patch breaks the build: each patch must apply on the previous one and compile, as an
# MPICH reviewer would check the series commit by commit. Not part of the default test
# command (tests/run.sh): a full series takes one MPICH build per patch.
#
# usage: integrations/mpich/check-series.sh       (as root on Debian 12; any directory)
#
# One tree, in the cache of build.sh (MPITEV_MPICH_CACHE, default /var/cache/mpitev/mpich:
# the Debian source and the ccache): the Debian source with mpitev vendored in
# modules/mpitev (as build.sh does), autogen.sh and configure once, then for each patch:
# apply it (patch -p1), regenerate what autogen.sh generates from sources a patch may
# change (the C bindings, the CVARs; make reruns automake, autoconf and config.status
# itself when a Makefile.mk or configure.ac changed), make. Configured like build.sh's
# mpitev variant plus --enable-mpit-events (MPICHECK_FLAGS to change it), so the event
# code of every patch is compiled, also before the last patch switches it on by default.
# Environment: MPITEV_MPICH_CACHE, JOBS (make -j, default 2), MPICHECK_FLAGS (configure
# flags added), MPICHECK_KEEP=1 (keep the tree: cache/check-series/tree).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${MPITEV_MPICH_CACHE:-/var/cache/mpitev/mpich}
jobs=${JOBS:-2}
extra=${MPICHECK_FLAGS:---enable-mpit-events}
say() { echo "check-series: $*"; }
started=$(date +%s)

# the Debian source, fetched and extracted by build.sh (its --key mode does only that)
sh "$here/build.sh" --key mpitev >/dev/null
src=$(ls -d "$cache"/src/mpich-4.0.2-* | while read -r d; do [ -f "$d/.extracted" ] && echo "$d"; done | tail -1)
[ -n "$src" ] || { say "no extracted Debian source in $cache/src"; exit 2; }
work=$cache/check-series
tree=$work/tree
mkdir -p "$work"
exec 9>"$work/.lock"
flock 9
rm -rf "$tree"
cp -a "$src" "$tree"
mkdir -p "$tree/modules/mpitev/include"
cp -a "$root/include/mpitev" "$tree/modules/mpitev/include/"

export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache} CCACHE_BASEDIR=$tree CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
flags="--with-device=ch4:ofi --with-libfabric=/usr --with-hwloc=/usr --with-pm=hydra \
--disable-fortran --disable-cxx --with-datatype-engine=dataloop --disable-doc --enable-shared \
--disable-static $extra"
log=$work/log
: >"$log"
t0=$(date +%s)
say "autogen.sh and configure ($flags)"
(cd "$tree" && ./autogen.sh -without-ucx -without-yaksa) >>"$log" 2>&1 ||
  { tail -30 "$log"; say "autogen.sh of the Debian source failed"; exit 1; }
# exported: make reruns configure itself after a patch changes configure.ac, and needs
# build.sh's libfabric.pc (without Debian's static-only libraries) then too
export PKG_CONFIG_PATH=$cache/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
(cd "$tree" && ./configure --prefix="$work/install" $flags CC="ccache gcc" MPICHLIB_CFLAGS="-O2 -g" \
  BASH_SHELL=/bin/bash) >>"$log" 2>&1 || { tail -30 "$log"; say "configure failed"; exit 1; }
say "autogen.sh and configure: $(( $(date +%s) - t0 )) s"

n=0
total=$(grep -cv '^\(#\|$\)' "$here/patches/series")
while read -r p; do
  case $p in ''|\#*) continue ;; esac
  n=$((n + 1))
  subject=$(sed -n 's/^Subject: \(\[PATCH[^]]*\] \)\{0,1\}//p' "$here/patches/$p" | head -1)
  t0=$(date +%s)
  if ! patch -s -p1 -d "$tree" <"$here/patches/$p" >>"$log" 2>&1; then
    tail -20 "$log"
    say "patch $n/$total ($p) does not apply on the previous ones: $subject"
    exit 1
  fi
  # the tarball's generated bindings of the functions the series stops generating
  if grep -qF "MPI_T_(event|source)_" "$tree/maint/gen_binding_c.py"; then
    rm -f "$tree"/src/binding/c/mpit/event_*.c "$tree"/src/binding/c/mpit/source_*.c
  fi
  if ! (cd "$tree" && python3 maint/gen_binding_c.py && ./maint/extractcvars --dirs="$(cat maint/cvardirs)" &&
        make -j"$jobs") >"$work/make.$n.log" 2>&1; then
    grep -B3 -A12 -m3 'rror' "$work/make.$n.log" | tail -50
    say "patch $n/$total BREAKS THE BUILD: $p: $subject (log: $work/make.$n.log)"
    exit 1
  fi
  say "patch $n/$total builds ($(( $(date +%s) - t0 )) s): $subject"
done <"$here/patches/series"
[ "${MPICHECK_KEEP:-0}" = 1 ] || rm -rf "$tree"
say "all $n patches apply in order and build, in $(( $(date +%s) - started )) s"
