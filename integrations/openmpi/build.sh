#!/bin/sh
# Builds Open MPI 4.1.4 from Debian 12's source package, in one or more variants:
#   mpitev           the patch series (patches/series) applied, include/mpitev of this
#                    checkout vendored as 3rd-party/mpitev/include/mpitev: MPI_T events
#                    implemented by mpitev, compiled in (the default)
#   mpitev-disabled  the same, configured --disable-mpit-events (MPITEV_DISABLE: the raise
#                    sites and drains compiled out, the types and MPI_T entry points kept)
#   stock            the Debian source as is (no MPI_T events at all: Open MPI 4.1 has none)
#   stock-peruse     the Debian source configured --enable-peruse: ob1's PERUSE hooks
#                    compiled in (what the MPI_T events paper replaced; bench/openmpi
#                    compares its empty PERUSE callbacks with mpitev's empty callbacks)
#
# usage: integrations/openmpi/build.sh VARIANT...     (as root on Debian 12; any directory)
#        integrations/openmpi/build.sh --key VARIANT  prints the cache key and install path
#        integrations/openmpi/build.sh --flags VARIANT  prints the configure flags, then the
#                                                     CFLAGS, one line each, the Debian source
#                                                     extracted in the cache (check-series.sh)
#
# Installs are cached outside the clone, keyed by the Debian source version, the
# configure flags, this script, and for the mpitev variants the patch series and
# include/mpitev: a second run with the same key only makes the link
# build/integrations/openmpi/VARIANT -> the install (bin/mpicc, bin/mpirun).
# Never installs Debian's Open MPI binary packages (libopenmpi-dev, openmpi-bin): they
# would switch the system's mpicc alternatives away from MPICH.
# Environment:
#   MPITEV_OPENMPI_CACHE  cache root (default /var/cache/mpitev/openmpi): src/ (the Debian
#                         source package), install/VARIANT-KEY/, ccache/ (shared)
#   MPITEV_OPENMPI_KEEP=1 keep the build tree (cache/build/VARIANT-KEY) after installing
#   MPITEV_OPENMPI_NICE   niceness of the build commands (default 10)
#   JOBS                  make -j (default 2)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${MPITEV_OPENMPI_CACHE:-/var/cache/mpitev/openmpi}
jobs=${JOBS:-2}
nice="nice -n ${MPITEV_OPENMPI_NICE:-10}"
debver_want=4.1.4-3
mode=build # or key, flags: print, build nothing
case ${1:-} in --key) mode=key; shift ;; --flags) mode=flags; shift ;; esac
[ $# -ge 1 ] || { echo "usage: $0 [--key|--flags] mpitev|mpitev-disabled|stock|stock-peruse ..." >&2; exit 2; }
for v in "$@"; do
  case $v in mpitev|mpitev-disabled|stock|stock-peruse) ;; *) echo "$0: unknown variant '$v'" >&2; exit 2 ;; esac
done

log() { echo "openmpi build: $*"; }
snap= # build_variant's snapshot of the series and include/mpitev, removed on exit
trap '[ -z "$snap" ] || rm -rf "$snap"' EXIT
trap 'exit 1' HUP INT TERM

# ---- Prerequisites: the build dependencies these flags use (Debian packages; prereqs.sh
# installs only what is missing). Debian's Open MPI uses its PMIx, libevent and hwloc; so
# do we (fewer files to compile than Open MPI's bundled copies).
[ "$mode" = key ] || sh "$root/cmake/prereqs.sh" gcc make dpkg-dev ccache pkg-config perl \
  autoconf automake libtool flex libevent-dev libhwloc-dev libpmix-dev zlib1g-dev xz-utils \
  patch util-linux

# ---- The source: Debian's source package, fetched once into the cache.
mkdir -p "$cache/src"
dsc=$(ls "$cache"/src/openmpi_4.1.4-*.dsc 2>/dev/null | tail -1 || true)
if [ -z "$dsc" ]; then
  if ! grep -Rqs -e '^Types:.*deb-src' -e '^deb-src ' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    log "no deb-src entry in /etc/apt: adding /etc/apt/sources.list.d/mpitev-openmpi-src.sources (bookworm main)"
    mirror=$(awk '/^URIs:/ { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
    [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$mirror" >/etc/apt/sources.list.d/mpitev-openmpi-src.sources
  fi
  log "fetching the openmpi source package into $cache/src"
  apt-get update -qq
  (cd "$cache/src" && apt-get source -qq --download-only "openmpi=$debver_want" >/dev/null 2>&1 ||
                      apt-get source -qq --download-only openmpi >/dev/null)
  dsc=$(ls "$cache"/src/openmpi_4.1.4-*.dsc | tail -1)
fi
debver=$(awk '/^Version:/ { print $2; exit }' "$dsc")
src=$cache/src/openmpi-$debver
if [ ! -f "$src/.extracted" ] && [ "$mode" != key ]; then
  rm -rf "$src"
  dpkg-source -q -x "$dsc" "$src" >/dev/null 2>&1 # Debian's own patches applied
  touch "$src/.extracted"
fi

# The configure flags every variant shares: what these machines have (shared memory and
# TCP), nothing else. Debian's PMIx, libevent and hwloc, as Debian's own build. No
# Fortran, OpenSHMEM, Java, C++ bindings; no CUDA, UCX, libfabric, verbs, PSM, Portals.
# ROMIO left out (MPI-IO stays available through ompio): a third of a cold build, and no
# event goes through it. Components linked into the libraries (--disable-dlopen), as
# MPICH is one library: the mpitev variants then keep mpitev's symbols hidden inside
# libmpi.so, and each raise site's check is one PC-relative load (Debian builds the
# components as plugins; the series also works that way, with the symbols exported).
# -O2 -g: the usual flags, with symbols for callgrind.
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
common_flags="--with-pmix=/usr/lib/$multiarch/pmix2 --with-libevent=external --with-hwloc=external \
--disable-mpi-fortran --disable-oshmem --disable-mpi-java --disable-mpi-cxx --disable-io-romio \
--without-cuda --without-ucx --without-ofi --without-verbs --without-psm --without-psm2 \
--without-portals4 --without-ugni --without-knem --without-xpmem --without-hcoll --without-fca \
--without-mxm --disable-dlopen --enable-shared --disable-static --disable-silent-rules"
cflags="-O2 -g"

tree_hash() { # DIR: one hash over the names and contents of the files below DIR
  (cd "$1" && find . -type f | LC_ALL=C sort | while read -r f; do echo "$f"; cat "$f"; done) | sha256sum | cut -c1-16
}

build_variant() {
  v=$1
  case $v in
    mpitev|stock) flags=$common_flags ;;
    mpitev-disabled) flags="$common_flags --disable-mpit-events" ;;
    stock-peruse) flags="$common_flags --enable-peruse" ;;
  esac
  if [ "$mode" = flags ]; then
    printf '%s\n%s\n' "$flags" "$cflags"
    return 0
  fi
  case $v in mpitev*) vendored=1 ;; *) vendored=0 ;; esac
  script=$(sha256sum "$here/build.sh" | cut -c1-16)
  keysrc="debian=$debver flags=$flags cflags=$cflags build.sh=$script"
  snap=
  if [ "$vendored" = 1 ]; then
    # The series and include/mpitev as they are now, hashed into the key and later built:
    # a run that waits for another's build (the locks below) must not build a series or
    # an include/mpitev changed meanwhile into an install keyed by the earlier ones.
    snap=$(mktemp -d)
    cp -a "$here/patches" "$snap/patches"
    cp -a "$root/include/mpitev" "$snap/mpitev"
    keysrc="$keysrc patches=$(tree_hash "$snap/patches") mpitev=$(tree_hash "$snap/mpitev")"
  fi
  key=$(printf '%s %s' "$v" "$keysrc" | sha256sum | cut -c1-12)
  prefix=$cache/install/$v-$key
  if [ "$mode" = key ]; then
    [ -z "$snap" ] || rm -rf "$snap"
    echo "$v $key $prefix"
    return 0
  fi
  link=$root/build/integrations/openmpi/$v
  mkdir -p "$cache/install" "$root/build/integrations/openmpi"
  exec 9>"$cache/install/.lock-$v-$key"
  flock 9 # two runs building the same key: the second waits and reuses the first's
  if [ -f "$prefix/.complete" ]; then
    log "$v: cached install $prefix"
  else
    # one build at a time on this machine, whatever the variant
    exec 8>"$cache/.lock-build"
    flock 8
    bdir=$cache/build/$v-$key
    log "$v: building into $prefix (key $key: $keysrc)"
    started=$(date +%s)
    rm -rf "$bdir" "$prefix"
    mkdir -p "$cache/build"
    cp -a "$src" "$bdir"
    if [ "$vendored" = 1 ]; then
      # The vendored library, where the series' build files look for it.
      mkdir -p "$bdir/3rd-party/mpitev/include"
      cp -a "$snap/mpitev" "$bdir/3rd-party/mpitev/include/mpitev"
      while read -r p; do
        case $p in ''|\#*) continue ;; esac
        patch -s -p1 -d "$bdir" <"$snap/patches/$p"
      done <"$snap/patches/series"
    fi
    # As debian/rules does (override_dh_update_autotools_config): Debian's patches change
    # configure.ac and Makefile.am files, and so does the series.
    t0=$(date +%s)
    log "$v: autogen.pl"
    (cd "$bdir" && (cd config && autom4te --language=m4sh opal_get_version.m4sh -o opal_get_version.sh) &&
      $nice ./autogen.pl --force) >"$bdir/autogen.log" 2>&1 || { tail -30 "$bdir/autogen.log"; exit 1; }
    t1=$(date +%s)
    export CCACHE_DIR=${CCACHE_DIR:-$cache/ccache} CCACHE_BASEDIR=$bdir CCACHE_NOHASHDIR=1
    export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
    mkdir -p "$CCACHE_DIR"
    log "$v: configure"
    # shellcheck disable=SC2086
    (cd "$bdir" && $nice ./configure --prefix="$prefix" $flags CC="ccache gcc" CFLAGS="$cflags") \
      >"$bdir/configure.log" 2>&1 || { tail -30 "$bdir/configure.log"; exit 1; }
    t2=$(date +%s)
    log "$v: make -j$jobs"
    (cd "$bdir" && $nice make -j"$jobs" >"$bdir/make.log" 2>&1) ||
      { grep -B5 -A10 -m3 -e 'rror' "$bdir/make.log" | tail -60; exit 1; }
    (cd "$bdir" && $nice make install >"$bdir/install.log" 2>&1) || { tail -30 "$bdir/install.log"; exit 1; }
    t3=$(date +%s)
    # The wrappers must not carry ccache (tools and tests compile with mpicc later).
    for f in "$prefix"/share/openmpi/*-wrapper-data.txt; do
      sed -i -e 's/^compiler=ccache /compiler=/' "$f"
    done
    cp "$bdir/config.log" "$prefix/share/openmpi/config.log"
    echo "$keysrc" >"$prefix/.key"
    echo "autogen $((t1 - t0)) s, configure $((t2 - t1)) s, make and install $((t3 - t2)) s, total $((t3 - started)) s" \
      >"$prefix/.build-time"
    touch "$prefix/.complete"
    [ "${MPITEV_OPENMPI_KEEP:-0}" = 1 ] || rm -rf "$bdir"
    log "$v: done: $(cat "$prefix/.build-time")"
    exec 8>&-
  fi
  ln -sfn "$prefix" "$link"
  exec 9>&-
  [ -z "$snap" ] || rm -rf "$snap"
  log "$v: $link -> $prefix"
}

for v in "$@"; do
  build_variant "$v"
done
