#!/bin/sh
# expect_failure.sh EXIT REGEX... -- COMMAND [ARGS...]
# Runs COMMAND and passes iff it exits with status EXIT ("nonzero" accepts
# any non-zero status) and its combined stdout/stderr matches every
# extended REGEX. Used for tests where the MPI job is supposed to fail.
expected="$1"
shift
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
: > "$tmp/patterns"
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    printf '%s\n' "$1" >> "$tmp/patterns"
    shift
done
[ "$1" = "--" ] || { echo "expect_failure.sh: missing --" >&2; exit 2; }
shift
"$@" > "$tmp/out" 2>&1
status=$?
cat "$tmp/out"
echo "--- exit status: $status (expected: $expected)"
fail=0
if [ "$expected" = "nonzero" ]; then
    [ "$status" -ne 0 ] || { echo "FAIL: command succeeded"; fail=1; }
elif [ "$status" -ne "$expected" ]; then
    echo "FAIL: wrong exit status"
    fail=1
fi
while IFS= read -r pat; do
    if ! grep -Eq -- "$pat" "$tmp/out"; then
        echo "FAIL: output does not match /$pat/"
        fail=1
    fi
done < "$tmp/patterns"
[ "$fail" -eq 0 ] && echo "PASS"
exit "$fail"
