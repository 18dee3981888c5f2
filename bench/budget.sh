#!/bin/sh
# The core's size and shape budgets (issue 39), measured on include/mpitev and checked.
#
# usage: bench/budget.sh [-v] [-m FILE] [DIR]     from anywhere; DIR defaults to the
#                                                 project's include/mpitev
#   -v       also list what was counted: the most complex functions, every callback
#            call site, every raise form
#   -m FILE  also write the table as markdown to FILE (bench/run.sh puts it in
#            docs/performance.md)
# Prints a table (budget, limit, measured, ok/over). Exit status: 0 when every budget
# holds, 1 when one is over, 2 when something could not be measured (pmccabe missing or
# unable to parse a file: a budget that cannot be measured is not met).
# pmccabe comes from Debian's package of that name, installed if missing through
# cmake/prereqs.sh (as root; otherwise it says what to install).
#
# What is counted (the rules, so that a figure can be checked by hand):
#   core files   every file under DIR except the adapter: adapter.h, detail/adapter_*,
#                any other file whose name contains "adapter", and the adapter's
#                compatibility headers (mpi_t_events.h, anything under a compat/ folder),
#                and the event catalogue (catalog.h: a list of event definitions, data
#                for the event macros, not code of the core).
#   core lines   wc -l of the core files (comments and blank lines count: a maintainer
#                reads them too).
#   drain lines  wc -l of DIR/detail/impl_drain.inc.
#   complexity   the largest modified McCabe complexity pmccabe reports (its first
#                column: if, for, while, switch, &&, ||, ?: each add one; a switch counts
#                once whatever its cases, which is the "switch tables exempt" of the
#                issue) over the functions of the core files. pmccabe reads each file on
#                its standard input, so the .inc extension does not matter; it ignores
#                preprocessor lines, so both sides of an #if count, and functions written
#                inside a macro are not seen.
#   callback sites  calls made through a function pointer in detail/impl_drain.inc,
#                comments and string literals removed first, one per call (two on a line
#                count two):
#                  - a call of a struct member: "->m(", ".m(", "->m[i](", ".m[i](", e.g.
#                    v.cbs->fn[v.level](...) or e->d.fn(...), except the members that
#                    hold the clock (now, rate) and the allocator (alloc, free), which
#                    are not event callbacks;
#                  - a call through an explicit dereference: "(*p)(";
#                  - a call of a name declared in the file with a callback type
#                    (mpitev_event_cb, mpitev_dropped_cb, mpitev_free_cb, their _ext
#                    forms, mpitev_fnptr), e.g. "mpitev_event_cb f = ...; f(...)".
#                A call written across lines (the pointer on one line, "(" on the next)
#                is not seen; write it on one line. Calls made in other files (drop
#                reports in impl_drops.inc, immediate delivery in impl_raise.inc) are
#                not the drain's.
#   raise forms  distinct names of function-like macros "#define MPITEV_RAISE...(" in
#                the files under DIR outside detail/*adapter* (a name defined in several
#                #if branches counts once); MPITEV__ names are internal and do not start
#                with MPITEV_RAISE; object-like macros (options such as
#                MPITEV_RAISE_INLINE) are not raise forms.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
verbose=0 md=""
while [ $# -gt 0 ]; do
  case $1 in
    -v) verbose=1; shift ;;
    -m) [ $# -ge 2 ] || { echo "budget.sh: -m needs a FILE" >&2; exit 2; }
        md=$2; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "budget.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
  esac
done
dir=${1:-$root/include/mpitev}
[ -d "$dir/detail" ] || { echo "budget.sh: $dir is not an include/mpitev tree" >&2; exit 2; }
dir=$(cd "$dir" && pwd)

# The limits (issue 39).
lim_core=5000 lim_drain=450 lim_cc=20 lim_cb=3 lim_raise=3

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The core files, relative to DIR, sorted.
(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | awk '
  { n = $0; sub(/.*\//, "", n) }
  n ~ /adapter/ || n == "mpi_t_events.h" || n == "catalog.h" || $0 ~ /(^|\/)compat\// { next }
  { print }' >"$tmp/core"
[ -s "$tmp/core" ] || { echo "budget.sh: no core file under $dir" >&2; exit 2; }

core_lines=$(cd "$dir" && while read -r f; do cat "$f"; done <"$tmp/core" | wc -l | tr -d ' ')
drain=$dir/detail/impl_drain.inc
if [ -f "$drain" ]; then drain_lines=$(wc -l <"$drain" | tr -d ' '); else drain_lines=0; fi

# ---- complexity (pmccabe)
if ! command -v pmccabe >/dev/null 2>&1; then
  sh "$root/cmake/prereqs.sh" pmccabe >&2 || true
fi
cc_max="" cc_where=""
if command -v pmccabe >/dev/null 2>&1; then
  : >"$tmp/cc"
  while read -r f; do
    # standard input: parsed as C whatever the file's extension; "stdin(LINE)" becomes
    # "FILE(LINE)" in the listing
    if ! pmccabe <"$dir/$f" >"$tmp/cc.one" 2>"$tmp/cc.err" || [ -s "$tmp/cc.err" ]; then
      echo "budget.sh: pmccabe could not parse $f:" >&2
      cat "$tmp/cc.err" >&2
      exit 2
    fi
    awk -v f="$f" -F '\t' '{ sub(/^stdin/, f, $6); print $1 "\t" $6 }' "$tmp/cc.one" >>"$tmp/cc"
  done <"$tmp/core"
  sort -t "$(printf '\t')" -k1,1nr "$tmp/cc" >"$tmp/cc.sorted"
  if [ -s "$tmp/cc.sorted" ]; then
    cc_max=$(awk -F '\t' 'NR == 1 { print $1 }' "$tmp/cc.sorted")
    cc_where=$(awk -F '\t' 'NR == 1 { print $2 }' "$tmp/cc.sorted")
  else
    cc_max=0 cc_where="no function"
  fi
else
  echo "budget.sh: pmccabe is missing (apt-get install pmccabe): complexity not measured" >&2
fi

# ---- callback call sites in the drain
# strip: C comments and string / character literals out, lines kept (awk, one pass).
strip() {
  awk '
  { out = ""; i = 1; n = length($0)
    while (i <= n) {
      c = substr($0, i, 1); d = substr($0, i, 2)
      if (incom) { if (d == "*/") { incom = 0; i += 2 } else i++; continue }
      if (d == "/*") { incom = 1; i += 2; out = out " "; continue }
      if (d == "//") break
      if (c == "\"" || c == "\047") {
        q = c; i++
        while (i <= n && substr($0, i, 1) != q) { if (substr($0, i, 1) == "\\") i++; i++ }
        i++; out = out q q; continue
      }
      out = out c; i++
    }
    print out }' "$1"
}
: >"$tmp/cb"
if [ -f "$drain" ]; then
  strip "$drain" >"$tmp/drain.c"
  awk '
  BEGIN { decl = "(^|[^A-Za-z0-9_])(mpitev_event_cb|mpitev_dropped_cb|mpitev_free_cb|mpitev__event_cb_ext|mpitev__dropped_cb_ext|mpitev__free_cb_ext|mpitev_fnptr)[ \t*]+(const[ \t*]+)?[A-Za-z_][A-Za-z0-9_]*" }
  # pass 1: the names declared with a callback type
  NR == FNR {
    s = $0
    while (match(s, decl)) {
      t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
      sub(/.*[^A-Za-z0-9_]/, "", t); var[t] = 1
    }
    next
  }
  # pass 2: the calls
  { s = $0
    while (match(s, /(->|\.)[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])*[ \t]*\(/)) {
      t = substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
      m = t; sub(/^(->|\.)/, "", m); sub(/[^A-Za-z0-9_].*/, "", m)
      if (m !~ /^(now|rate|alloc|free)$/) print FNR ": " t
    }
    s = $0
    while (match(s, /\([ \t]*\*[^()]*\)[ \t]*\(/)) {
      print FNR ": " substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH)
    }
    s = $0
    while (match(s, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/)) {
      t = substr(s, RSTART, RLENGTH); pre = substr(s, RSTART - 1, 1); s = substr(s, RSTART + RLENGTH)
      m = t; sub(/[ \t]*\($/, "", m)
      if ((m in var) && pre != "." && pre != ">") print FNR ": " t
    }
  }' "$tmp/drain.c" "$tmp/drain.c" >"$tmp/cb"
fi
cb_sites=$(wc -l <"$tmp/cb" | tr -d ' ')

# ---- public raise forms
(cd "$dir" && find . -type f | sed 's|^\./||' | LC_ALL=C sort) | awk '$0 !~ /^detail\/.*adapter/' >"$tmp/pub"
(cd "$dir" && while read -r f; do
  awk -v f="$f" '/^[ \t]*#[ \t]*define[ \t]+MPITEV_RAISE[A-Za-z0-9_]*\(/ {
    s = $0; sub(/^[ \t]*#[ \t]*define[ \t]+/, "", s); sub(/\(.*/, "", s); print s "\t" f ":" FNR }' "$f"
done <"$tmp/pub") >"$tmp/raise"
raise_forms=$(cut -f1 "$tmp/raise" | sort -u | wc -l | tr -d ' ')

# ---- the table
over=0 unmeasured=0
: >"$tmp/rows"
# row LABEL LIMIT MEASURED: one budget
row() {
  if [ -z "$3" ]; then st="not measured"; unmeasured=1
  elif [ "$3" -le "$2" ]; then st=ok
  else st=over; over=1
  fi
  printf '%s\t%s\t%s\t%s\n' "$1" "$2" "${3:-?}" "$st" >>"$tmp/rows"
}
row "core lines (include/mpitev without the adapter)" "$lim_core" "$core_lines"
row "impl_drain.inc lines" "$lim_drain" "$drain_lines"
row "largest cyclomatic complexity (pmccabe, modified)" "$lim_cc" "$cc_max"
row "callback call sites in the drain" "$lim_cb" "$cb_sites"
row "public raise forms (MPITEV_RAISE...)" "$lim_raise" "$raise_forms"

awk -F '\t' 'BEGIN { printf "%-52s %7s %9s  %s\n", "budget", "limit", "measured", "status" }
  { printf "%-52s %7s %9s  %s\n", $1, "<= " $2, $3, $4 }' "$tmp/rows"
[ -z "$cc_where" ] || echo "largest complexity: $cc_where"
if [ -n "$md" ]; then
  awk -F '\t' 'BEGIN { print "| budget | limit | measured | status |"; print "|---|---|---|---|" }
    { printf "| %s | <= %s | %s | %s |\n", $1, $2, $3, $4 }' "$tmp/rows" >"$md"
  # shellcheck disable=SC2016 # the backquotes are markdown
  [ -z "$cc_where" ] || printf '\nLargest complexity: `%s`.\n' "$cc_where" >>"$md"
fi
if [ "$verbose" = 1 ]; then
  echo
  echo "most complex functions (modified McCabe, file(line): function):"
  [ -f "$tmp/cc.sorted" ] && head -10 "$tmp/cc.sorted" | sed 's/^/  /'
  echo "callback call sites in detail/impl_drain.inc (line: call):"
  sed 's/^/  /' "$tmp/cb"
  echo "raise forms (name, where defined):"
  sort "$tmp/raise" | sed 's/^/  /'
fi
[ "$unmeasured" = 0 ] || exit 2
[ "$over" = 0 ] || exit 1
exit 0
