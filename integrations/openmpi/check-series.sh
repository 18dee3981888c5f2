#!/bin/sh
# Builds Open MPI after each patch of the series (patches/series, in order) and says which
# patch breaks the build: each patch must apply on the previous one and compile, as an
# Open MPI reviewer would check the series commit by commit. Not part of the default test
# command (tests/run.sh): a full series takes one Open MPI build per patch, and an
# autogen.pl and configure per patch that changes the build system.
#
# usage: integrations/openmpi/check-series.sh     (as root on Debian 12, after build.sh
#                                                  installed the build dependencies; any directory)
#
# One tree, in the cache of build.sh (MPITEV_OPENMPI_CACHE, default /var/cache/mpitev/openmpi:
# the Debian source and the ccache): a copy of the extracted Debian source (the cached
# source itself is never changed) with include/mpitev vendored in
# 3rd-party/mpitev/include/mpitev (as build.sh does), autogen.pl and configure once, then
# for each patch: apply it (patch -p1); if it changed configure.ac, a *.m4 or a Makefile.am,
# autogen.pl and configure again (the tarball's build system does not regenerate itself
# reliably: no maintainer mode); make. Configured like build.sh's mpitev variant (its
# flags: build.sh --flags mpitev), plus OMPICHECK_FLAGS: OMPICHECK_FLAGS=--disable-mpit-events
# checks the series with the event sites compiled out (before patch 0007 configure only
# warns that it does not know the option).
# Environment: MPITEV_OPENMPI_CACHE, JOBS (make -j, default 2), MPITEV_OPENMPI_NICE (as
# build.sh: niceness of the build commands, default 10), OMPICHECK_FLAGS (configure flags
# added), OMPICHECK_KEEP=1 (keep the tree: cache/check-series/tree).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${MPITEV_OPENMPI_CACHE:-/var/cache/mpitev/openmpi}
jobs=${JOBS:-2}
nice="nice -n ${MPITEV_OPENMPI_NICE:-10}"
say() { echo "check-series: $*"; }
started=$(date +%s)

# build.sh's configure flags and CFLAGS for the mpitev variant (its --flags mode prints
# them, one line each, and fetches and extracts the Debian source into the cache)
bflags=$(sh "$here/build.sh" --flags mpitev)
cflags=$(printf '%s\n' "$bflags" | sed -n 2p)
flags="$(printf '%s\n' "$bflags" | sed -n 1p) ${OMPICHECK_FLAGS:-}"
work=$cache/check-series
tree=$work/tree
mkdir -p "$work"
exec 9>"$work/.lock"
flock 9
rm -rf "$tree"
src=
for d in "$cache"/src/openmpi-4.1.4-*; do
  if [ -f "$d/.extracted" ]; then src=$d; fi
done
[ -n "$src" ] || { say "no extracted Debian source in $cache/src"; exit 2; }
cp -a "$src" "$tree"
mkdir -p "$tree/3rd-party/mpitev/include"
cp -a "$root/include/mpitev" "$tree/3rd-party/mpitev/include/"

export CCACHE_DIR="${CCACHE_DIR:-$cache/ccache}" CCACHE_BASEDIR="$tree" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=include_file_mtime,include_file_ctime,time_macros
mkdir -p "$CCACHE_DIR"

regen() { # LOG: autogen.pl and configure, as build.sh runs them
  (cd "$tree" && (cd config && autom4te --language=m4sh opal_get_version.m4sh -o opal_get_version.sh) &&
    $nice ./autogen.pl --force) >"$1" 2>&1 || { echo "autogen.pl failed" >>"$1"; return 1; }
  # shellcheck disable=SC2086
  (cd "$tree" && $nice ./configure --prefix="$work/install" $flags CC="ccache gcc" CFLAGS="$cflags") \
    >>"$1" 2>&1 || { echo "configure failed" >>"$1"; return 1; }
}
subject_of() { # PATCH: its subject (folded lines joined), without "[PATCH]"
  awk '/^Subject: / { s = substr($0, 10); f = 1; next }
       f && /^[ \t]/ { s = s $0; next }
       f { sub(/^\[PATCH[^]]*\] /, "", s); print s; exit }' "$1"
}

t0=$(date +%s)
say "autogen.pl and configure ($flags CFLAGS=\"$cflags\")"
regen "$work/regen.0.log" || { tail -30 "$work/regen.0.log"; say "autogen.pl or configure of the Debian source failed"; exit 1; }
say "autogen.pl and configure: $(( $(date +%s) - t0 )) s"

n=0
total=$(grep -cv '^\(#\|$\)' "$here/patches/series")
times='' least='' most=''
while read -r p; do
  case $p in ''|\#*) continue ;; esac
  n=$((n + 1))
  subject=$(subject_of "$here/patches/$p")
  t0=$(date +%s)
  if ! patch -s -p1 -d "$tree" <"$here/patches/$p" >"$work/patch.$n.log" 2>&1; then
    tail -20 "$work/patch.$n.log"
    say "patch $n/$total ($p) does not apply on the previous ones: $subject"
    exit 1
  fi
  what="make"
  if sed -n 's|^diff --git a/\([^ ]*\) b/.*|\1|p' "$here/patches/$p" |
     grep -Eq '(^|/)(configure\.ac|Makefile\.am)$|\.m4$'; then
    what="autogen.pl, configure, make"
    if ! regen "$work/regen.$n.log"; then
      tail -30 "$work/regen.$n.log"
      say "patch $n/$total BREAKS THE BUILD: $p: $subject (autogen.pl or configure; log: $work/regen.$n.log)"
      exit 1
    fi
  fi
  if ! (cd "$tree" && $nice make -j"$jobs") >"$work/make.$n.log" 2>&1; then
    # not 'rror': every compile line carries -Werror-implicit-function-declaration
    grep -E -B3 -A12 -m5 ' error: |\*\*\*|undefined reference' "$work/make.$n.log" | tail -60
    say "patch $n/$total BREAKS THE BUILD: $p: $subject (log: $work/make.$n.log)"
    exit 1
  fi
  dt=$(( $(date +%s) - t0 ))
  if [ -z "$least" ] || [ "$dt" -lt "$least" ]; then least=$dt; fi
  if [ -z "$most" ] || [ "$dt" -gt "$most" ]; then most=$dt; fi
  times="$times$(printf '  %2d/%d %5d s  %-28s %s' "$n" "$total" "$dt" "($what)" "$p")
"
  say "patch $n/$total builds ($dt s, $what): $subject"
done <"$here/patches/series"
[ "${OMPICHECK_KEEP:-0}" = 1 ] || rm -rf "$tree"
say "time per patch (applied, then what ran):"
printf '%s' "$times"
say "all $n patches apply in order and build, in $(( $(date +%s) - started )) s (each patch $least to $most s)"
