#!/bin/sh
# For whoever changes the patch series: regenerates patches/ from a git tree of MPICH whose
# history is the Debian source (BASE: its first commit, by default) followed by the series,
# one commit per patch, in order (edit with git rebase -i; check with check-series.sh).
# Writes one `git format-patch` file per commit (subject and message, as MPICH would
# review them) and patches/series, the order build.sh and check-series.sh apply them in.
# The tree's modules/mpitev/include is not part of the series (build.sh copies this
# checkout's include/mpitev there): keep it out of the commits (.git/info/exclude).
# usage: integrations/mpich/refresh-patches.sh /path/to/mpich-tree [BASE]
set -eu
tree=$1
p=$(cd "$(dirname "$0")" && pwd)/patches
cd "$tree"
base=${2:-$(git rev-list --max-parents=0 HEAD | tail -1)}
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  { echo "$0: $tree has uncommitted changes: commit them into the series first" >&2; exit 1; }
if git ls-files modules/mpitev/include | grep -q .; then
  echo "$0: modules/mpitev/include is committed in $tree: it must not be part of the series" >&2
  exit 1
fi
rm -f "$p"/*.patch
# --zero-commit, --no-signature: the files change only when the commits do
git format-patch -q --zero-commit --no-signature --abbrev=12 -o "$p" "$base..HEAD"
(cd "$p" && ls [0-9][0-9][0-9][0-9]-*.patch) >"$p/series"
git log --reverse --format='%s' "$base..HEAD" | nl -w2 -s'  '
