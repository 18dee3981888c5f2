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
# build_tools MPICC TOOLS_DIR: the tools of examples/tools (TOOLS_DIR) built with an MPI's
# MPICC as shared libraries in the current directory, libmpitev_{logger,qprof,otf2}.so,
# as an MPI's user would build them (the tracer only where OTF2 is installed: otf2=1)
build_tools() {
    cc="$1 -std=c11 -O1 -g -Wall -Wextra -Wpedantic -Werror -fPIC"
    common=$(ls "$2"/common/*.c)
    # shellcheck disable=SC2086
    $cc -shared -I"$2/common" $common "$2"/logger/*.c -o libmpitev_logger.so -pthread || fail "logger build"
    # shellcheck disable=SC2086
    $cc -shared -I"$2/common" $common "$2"/qprof/*.c -o libmpitev_qprof.so -pthread -lm || fail "qprof build"
    otf2=0
    otf2lib=$(ls /usr/lib/*/libotf2.so /usr/lib/*/libopen-trace-format2.so 2>/dev/null | head -1 | sed 's|.*/lib\(.*\)\.so$|\1|')
    if [ -f /usr/include/otf2/otf2.h ] && [ -n "$otf2lib" ] && command -v otf2-print >/dev/null; then
        # shellcheck disable=SC2086
        $cc -shared -I"$2/common" $common "$2"/otf2/*.c -o libmpitev_otf2.so -pthread -l"$otf2lib" && otf2=1 || fail "otf2 build"
    fi
}
# expect_comm_lifecycle LOG RANK NP SOURCE: the logger's LOG of qpattern at RANK of NP
# ranks shows the communicator created and freed mid-run: its creation bound to
# MPI_COMM_WORLD (the catalogue binds comm_create to the parent), its free once bound to
# it (comm#2), both from SOURCE, with the same key
expect_comm_lifecycle() {
    expect_count "$1" "^\[rank $2\] .* MPI_COMM_WORLD +$4 +comm_create key=[0-9]+ parent_key=1 rank=$2 size=$3\$" 1
    expect_count "$1" "^\[rank $2\] .* comm#2 +$4 +comm_free key=[0-9]+ parent_key=1 rank=$2 size=$3\$" 1
    created=$(sed -n 's/.* comm_create key=\([0-9]*\) parent_key=1 .*/\1/p' "$1")
    freed=$(sed -n 's/.* comm#2 .* comm_free key=\([0-9]*\) .*/\1/p' "$1")
    [ -n "$created" ] && [ "$created" = "$freed" ] || fail "$1: comm_create key '$created', comm_free key '$freed'"
}
finish() {
    if [ "$fails" -ne 0 ]; then echo "$fails check(s) failed"; exit 1; fi
    echo "all checks passed"
}
