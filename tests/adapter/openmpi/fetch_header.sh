#!/bin/sh
# usage: tests/adapter/openmpi/fetch_header.sh
# Prints the directory holding Open MPI 4.1's mpi.h (an MPI-3.1 header) as Debian 12 ships
# it in libopenmpi-dev, for the adapter_openmpi tests. The package is downloaded and
# extracted, never installed: installing it would switch the mpicc/mpiexec alternatives
# away from MPICH. Cached outside the clone, keyed by the package version:
#   ${MPITEV_CACHE:-/var/cache/mpitev}/openmpi-header/<version>   (~/.cache/mpitev when
#   that cannot be written). Exits 1 with the reason on stderr when the download is
#   impossible (no apt, no network, no such package).
set -eu
pkg=libopenmpi-dev
cache=${MPITEV_CACHE:-/var/cache/mpitev}
if ! mkdir -p "$cache/openmpi-header" 2>/dev/null || [ ! -w "$cache/openmpi-header" ]; then
  cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/mpitev
  mkdir -p "$cache/openmpi-header"
fi
top=$cache/openmpi-header

fail() { echo "fetch_header.sh: $*" >&2; exit 1; }
command -v apt-cache >/dev/null 2>&1 && command -v dpkg-deb >/dev/null 2>&1 || fail "no apt-cache/dpkg-deb (not Debian?)"

candidate() { apt-cache policy "$pkg" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | grep -v '^(none)$' || true; }
ver=$(candidate)
if [ -z "$ver" ] && [ "$(id -u)" = 0 ]; then # a fresh machine: no package lists yet
  apt-get update -qq >/dev/null 2>&1 || true
  ver=$(candidate)
fi
[ -n "$ver" ] || fail "apt knows no $pkg (run apt-get update as root?)"

dir=$top/$ver
find_header() { find "$dir" -path '*/openmpi/include/mpi.h' ! -path '*fortran*' 2>/dev/null | head -n 1; }
if [ ! -f "$dir/.complete" ]; then
  tmp=$(mktemp -d "$top/.download.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  # apt-get download writes into the current directory; as root it warns that _apt cannot
  # write there (harmless).
  (cd "$tmp" && apt-get download -qq "$pkg=$ver" >/dev/null 2>"$tmp/apt.err") ||
    fail "apt-get download $pkg=$ver failed: $(cat "$tmp/apt.err")"
  dpkg-deb -x "$tmp"/*.deb "$tmp/root" || fail "dpkg-deb -x failed"
  touch "$tmp/root/.complete"
  rm -rf "$dir"
  mv "$tmp/root" "$dir" 2>/dev/null || [ -f "$dir/.complete" ] || fail "cannot move the extracted package to $dir"
fi
h=$(find_header)
[ -n "$h" ] || fail "no openmpi/include/mpi.h in $pkg $ver"
dirname "$h"
