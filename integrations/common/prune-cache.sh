#!/bin/sh
# prune-cache.sh: keeps the MPI build caches (integrations/mpich/build.sh's and
# integrations/openmpi/build.sh's install/VARIANT-KEY directories) from growing without
# bound on a machine that builds every change of include/mpitev or of a patch series.
#   1. Marks the installs this checkout links (build/integrations/NAME/VARIANT) as used
#      now (their .used file).
#   2. Removes every install of the two caches whose last use (.used, else its build's
#      .complete) is older than MPITEV_CACHE_DAYS days (default 30), with its lock file;
#      an install whose lock another run holds (building or waiting for it) is left alone.
# The source packages, ccache directories and kept build trees are not touched (ccache
# bounds its own size). tests/run.sh calls it after the builds.
# Environment: MPITEV_MPICH_CACHE, MPITEV_OPENMPI_CACHE (as build.sh), MPITEV_CACHE_DAYS.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
days=${MPITEV_CACHE_DAYS:-30}

for link in "$root"/build/integrations/*/*; do
  [ -L "$link" ] && [ -f "$link/.complete" ] && touch "$(readlink -f "$link")/.used"
done

for cache in "${MPITEV_MPICH_CACHE:-/var/cache/mpitev/mpich}" "${MPITEV_OPENMPI_CACHE:-/var/cache/mpitev/openmpi}"; do
  [ -d "$cache/install" ] || continue
  for dir in "$cache"/install/*/; do
    dir=${dir%/}
    [ -f "$dir/.complete" ] || continue # being built, or a build that failed: build.sh's
    stamp=$dir/.used
    [ -f "$stamp" ] || stamp=$dir/.complete
    [ -n "$(find "$stamp" -mtime +"$days")" ] || continue
    lock=$cache/install/.lock-$(basename "$dir")
    (
      flock -n 9 || exit 0
      echo "prune-cache: removing $dir (unused for more than $days days)"
      rm -rf "$dir"
      rm -f "$lock"
    ) 9>>"$lock"
  done
done
