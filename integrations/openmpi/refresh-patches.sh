#!/bin/sh
# For whoever changes the patch series (integrations/openmpi/patches).
#
#   refresh-patches.sh init DIR   a git tree of Open MPI in DIR to edit: the Debian source
#                                 (fetched by build.sh into its cache; Debian's patches
#                                 applied) as the first commit, the series applied on top
#                                 with git am, include/mpitev copied to
#                                 3rd-party/mpitev/include (not committed: build.sh copies it)
#   refresh-patches.sh DIR        patches/*.patch and patches/series regenerated from the
#                                 commits of DIR after its first (git format-patch)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
p=$here/patches
if [ "${1:-}" = init ]; then
  dir=$2
  src=$(ls -d "${MPITEV_OPENMPI_CACHE:-/var/cache/mpitev/openmpi}"/src/openmpi-4.1.4-* 2>/dev/null | tail -1)
  [ -n "$src" ] || { echo "no Debian source in the cache: run build.sh stock first" >&2; exit 1; }
  [ ! -e "$dir" ] || { echo "$dir exists" >&2; exit 1; }
  cp -a "$src" "$dir"
  rm -f "$dir/.extracted"
  cd "$dir"
  git init -q
  printf '.pc/\n3rd-party/mpitev/include/\n' >.git/info/exclude
  git add -A .
  git -c user.name=base -c user.email=base@localhost commit -q -m "Open MPI 4.1.4 ($(basename "$src"), Debian patches applied)"
  while read -r f; do
    case $f in ''|\#*) continue ;; esac
    git am -q "$p/$f"
  done <"$p/series"
  mkdir -p 3rd-party/mpitev/include
  cp -a "$root/include/mpitev" 3rd-party/mpitev/include/
  git log --oneline
  exit 0
fi
tree=${1:?usage: refresh-patches.sh init DIR | refresh-patches.sh DIR}
base=$(git -C "$tree" rev-list --max-parents=0 HEAD)
rm -f "$p"/*.patch
git -C "$tree" format-patch -q -N --zero-commit --no-signature -o "$p" "$base..HEAD"
(cd "$p" && ls ./*.patch | sed 's|^\./||') >"$p/series"
cat "$p/series"
