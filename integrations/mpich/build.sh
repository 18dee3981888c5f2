#!/bin/sh
# Builds Debian 12's MPICH 4.0.2 (ch4:ofi, hydra) in one of four variants and points
# build/integrations/mpich/VARIANT at the install (bin/mpicc, bin/mpiexec):
#
#   mpitev          MPICH with its MPI_T events implementation replaced by mpitev: the
#                   patch series in patches/ (see README.md), the vendored include/mpitev
#                   of this checkout, autogen.sh (as Debian's own build runs it)
#   mpitev-disabled the same, configured --disable-mpit-events (MPITEV_DISABLE: the raise
#                   sites and drains compiled out, the types still declared)
#   mpitev-vcis     the same, configured --enable-thread-cs=per-vci --with-ch4-max-vcis=4
#                   (MPIR_CVAR_CH4_NUM_VCIS up to 4: the MPI_THREAD_MULTIPLE tests with
#                   2 and 4 VCIs)
#   stock-events    MPICH as Debian ships the source, configured --enable-mpit-events
#   stock-noevents  the same without it (MPICH's default: events compiled out)
#
# usage: integrations/mpich/build.sh VARIANT...     (as root on Debian 12; any directory)
#        integrations/mpich/build.sh --key VARIANT  prints the cache key and install path
#
# Installs are cached outside the clone, keyed by the Debian source version, the
# configure flags, the recipe version below, and for the mpitev variant the hash of the
# patch series and of include/mpitev: a second run with the same key only makes the link.
# Environment:
#   MPITEV_MPICH_CACHE  cache root (default /var/cache/mpitev/mpich): src/ (Debian source
#                       package), install/VARIANT-KEY/, ccache/ (shared by all variants)
#   MPITEV_MPICH_KEEP=1 keep the build tree (cache/build/VARIANT-KEY) after installing
#   JOBS                make -j (default 2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${MPITEV_MPICH_CACHE:-/var/cache/mpitev/mpich}
jobs=${JOBS:-2}
# Bump when the build steps change in a way that changes the result (the flags, the
# patches and include/mpitev are in the key already).
recipe=1
print_key=0
if [ "${1:-}" = --key ]; then print_key=1; shift; fi
[ $# -ge 1 ] || { echo "usage: $0 [--key] mpitev|mpitev-disabled|mpitev-vcis|stock-events|stock-noevents ..." >&2; exit 2; }
for v in "$@"; do
  case $v in mpitev|mpitev-disabled|mpitev-vcis|stock-events|stock-noevents) ;; *) echo "$0: unknown variant '$v'" >&2; exit 2 ;; esac
done

log() { echo "mpich build: $*"; }
snap= # build_variant's snapshot of the series and include/mpitev, removed on exit
trap '[ -z "$snap" ] || rm -rf "$snap"' EXIT
trap 'exit 1' HUP INT TERM

# ---- Prerequisites (Debian packages; prereqs.sh installs only what is missing).
[ "$print_key" = 1 ] || sh "$root/cmake/prereqs.sh" gcc make dpkg-dev libfabric-dev libhwloc-dev ccache \
  pkg-config python3 autoconf automake libtool perl xz-utils patch file util-linux

# ---- The source: Debian's source package, fetched once into the cache.
mkdir -p "$cache/src"
dsc=$(ls "$cache"/src/mpich_4.0.2-*.dsc 2>/dev/null | tail -1 || true)
if [ -z "$dsc" ]; then
  if ! grep -Rqs -e '^Types:.*deb-src' -e '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "no deb-src entry in /etc/apt: adding /etc/apt/sources.list.d/mpitev-mpich-src.sources (bookworm main)"
    mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" >/etc/apt/sources.list.d/mpitev-mpich-src.sources
  fi
  log "fetching the mpich source package into $cache/src"
  apt-get update -qq
  (cd "$cache/src" && apt-get source -qq --download-only mpich=4.0.2-3 >/dev/null 2>&1 ||
                      apt-get source -qq --download-only mpich >/dev/null)
  dsc=$(ls "$cache"/src/mpich_4.0.2-*.dsc | tail -1)
fi
debver=$(awk '/^Version:/ { print $2; exit }' "$dsc")
src=$cache/src/mpich-$debver
if [ ! -f "$src/.extracted" ]; then
  rm -rf "$src"
  dpkg-source -q -x "$dsc" "$src" >/dev/null 2>&1 # Debian's own patches applied
  touch "$src/.extracted"
fi

# Debian's libfabric.pc lists static-only libraries (psm, psm2, rdmacm, efa: no .so
# in Debian) in Libs.private; MPICH's configure puts them on the link line of libmpi
# and of mpicc. A copy without them goes first on PKG_CONFIG_PATH.
pcdir=$cache/pkgconfig
mkdir -p "$pcdir"
pc=$(pkg-config --variable=pcfiledir libfabric)/libfabric.pc
sed -e '/^Libs.private:/ s/ -l\(psm_infinipath\|psm2\|rdmacm\|ibverbs\|efa\)\b//g' "$pc" >"$pcdir/libfabric.pc"

# The configure flags every variant shares. -O2 -g: the usual MPI build flags, with
# symbols for callgrind. The dataloop datatype engine: yaksa (the default) is thousands
# of generated files, most of a cold build, and no event path goes through it.
common_flags="--with-device=ch4:ofi --with-libfabric=/usr --with-hwloc=/usr --with-pm=hydra \
--disable-fortran --disable-cxx --with-datatype-engine=dataloop --disable-doc --enable-shared --disable-static"
cflags="-O2 -g"

tree_hash() { # DIR: one hash over the names and contents of the files below DIR
  (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16
}

build_variant() {
  v=$1
  case $v in
    mpitev) flags=$common_flags ;;
    mpitev-disabled) flags="$common_flags --disable-mpit-events" ;;
    mpitev-vcis) flags="$common_flags --enable-thread-cs=per-vci --with-ch4-max-vcis=4" ;;
    stock-events) flags="$common_flags --enable-mpit-events" ;;
    stock-noevents) flags=$common_flags ;;
  esac
  # the mpitev variants vendor include/mpitev and apply the patch series
  case $v in mpitev*) vendored=1 ;; *) vendored=0 ;; esac
  keysrc="debian=$debver flags=$flags cflags=$cflags recipe=$recipe"
  snap=
  if [ "$vendored" = 1 ]; then
    # The series and include/mpitev as they are now, hashed into the key and later built:
    # a run that waits for another's build (the lock below) must not build a series or
    # an include/mpitev changed meanwhile into an install keyed by the earlier ones.
    snap=$(mktemp -d)
    cp -a "$here/patches" "$snap/patches"
    cp -a "$root/include/mpitev" "$snap/mpitev"
    keysrc="$keysrc patches=$(tree_hash "$snap/patches") mpitev=$(tree_hash "$snap/mpitev")"
  fi
  key=$(printf '%s %s' "$v" "$keysrc" | sha256sum | cut -c1-12)
  prefix=$cache/install/$v-$key
  if [ "$print_key" = 1 ]; then
    [ -z "$snap" ] || rm -rf "$snap"
    echo "$v $key $prefix"
    return 0
  fi
  link=$root/build/integrations/mpich/$v
  mkdir -p "$cache/install" "$root/build/integrations/mpich"
  exec 9>"$cache/install/.lock-$v-$key"
  flock 9 # two runs building the same key: the second waits and reuses the first's
  if [ -f "$prefix/.complete" ]; then
    log "$v: cached install $prefix"
  else
    bdir=$cache/build/$v-$key
    log "$v: building into $prefix (key $key: $keysrc)"
    started=$(date +%s)
    rm -rf "$bdir" "$prefix"
    mkdir -p "$cache/build"
    cp -a "$src" "$bdir"
    if [ "$vendored" = 1 ]; then
      # The vendored library, as an MPICH maintainer would keep it: modules/mpitev.
      mkdir -p "$bdir/modules/mpitev/include"
      cp -a "$snap/mpitev" "$bdir/modules/mpitev/include/mpitev"
      # The series (git format-patch commits, patches/series in order), applied with
      # patch -p1 as a git am would apply them (check-series.sh builds after each one).
      while read -r p; do
        case $p in ''|\#*) continue ;; esac
        patch -s -p1 -d "$bdir" <"$snap/patches/$p"
      done <"$snap/patches/series"
      # The tarball's generated bindings of the 18 functions mpitev's adapter now provides
      # (the patched generator no longer writes them).
      rm -f "$bdir"/src/binding/c/mpit/event_*.c "$bdir"/src/binding/c/mpit/source_*.c
      log "$v: autogen.sh (as debian/rules does)"
      (cd "$bdir" && ./autogen.sh -without-ucx -without-yaksa) >"$bdir/autogen.log" 2>&1 ||
        { tail -30 "$bdir/autogen.log"; exit 1; }
    fi
    export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache} CCACHE_BASEDIR=$bdir CCACHE_NOHASHDIR=1
    export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
    mkdir -p "$CCACHE_DIR"
    log "$v: configure"
    # shellcheck disable=SC2086
    (cd "$bdir" && PKG_CONFIG_PATH=$pcdir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH} \
      ./configure --prefix="$prefix" $flags CC="ccache gcc" MPICHLIB_CFLAGS="$cflags" \
      BASH_SHELL=/bin/bash) >"$bdir/configure.log" 2>&1 ||
      { tail -30 "$bdir/configure.log"; exit 1; }
    log "$v: make -j$jobs"
    (cd "$bdir" && make -j"$jobs" >"$bdir/make.log" 2>&1) || { grep -B5 -A10 -m3 'rror' "$bdir/make.log" | tail -60; exit 1; }
    (cd "$bdir" && make install >"$bdir/install.log" 2>&1) || { tail -30 "$bdir/install.log"; exit 1; }
    # The wrappers must not carry ccache (tools and tests compile with mpicc later).
    sed -i -e 's/^CC="ccache gcc"/CC="gcc"/' "$prefix/bin/mpicc"
    # MPICH's own MPI_T tests and their helpers, for the ctest proofs.
    mkdir -p "$prefix/share/mpich-tests"
    for d in include util mpi_t impls/mpich/mpi_t; do
      mkdir -p "$prefix/share/mpich-tests/$d"
      cp -a "$bdir/test/mpi/$d/." "$prefix/share/mpich-tests/$d/"
    done
    cp "$bdir/config.log" "$prefix/share/mpich-tests/config.log"
    echo "$keysrc" >"$prefix/.key"
    touch "$prefix/.complete"
    [ "${MPITEV_MPICH_KEEP:-0}" = 1 ] || rm -rf "$bdir"
    log "$v: done in $(( $(date +%s) - started )) s"
  fi
  ln -sfn "$prefix" "$link"
  exec 9>&-
  [ -z "$snap" ] || rm -rf "$snap"
  log "$v: $link -> $prefix"
}

for v in "$@"; do
  build_variant "$v"
done
