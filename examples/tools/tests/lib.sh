# lib.sh -- helpers for the tools' check scripts (sourced).
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect_count FILE REGEX N: exactly N lines of FILE match REGEX
expect_count() {
    n=$(grep -Ec -- "$2" "$1")
    [ "$n" -eq "$3" ] || fail "$1: $n lines match /$2/, expected $3"
}
# expect_match FILE REGEX
expect_match() { grep -Eq -- "$2" "$1" || fail "$1: no line matches /$2/"; }
# png_size FILE: prints "WIDTH HEIGHT" from the IHDR chunk, or nothing if not a PNG
png_size() {
    sig=$(od -An -tx1 -N8 "$1" 2>/dev/null | tr -d ' \n')
    ihdr=$(od -An -c -j12 -N4 "$1" 2>/dev/null | tr -d ' \n')
    [ "$sig" = "89504e470d0a1a0a" ] && [ "$ihdr" = "IHDR" ] || return 0
    od -An -tu1 -j16 -N8 "$1" | awk '{ print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8 }'
}
finish() {
    if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
    echo "all checks passed"
}
