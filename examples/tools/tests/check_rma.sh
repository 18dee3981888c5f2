#!/bin/sh
# check_rma.sh TOOL NP WORKDIR MPIEXEC TOOL_SO RMAPATTERN [ENV...]
# One tool (logger, qprof or otf2) on rmapattern (rmapattern.c: two windows with known
# one-sided operations, locks and synchronizations per rank): the tool follows both
# windows and reads the catalogue's one-sided events on them. RMA_SOURCES: the MPI's
# event sources per rank (default 2, the toy's), each an OTF2 location that gets every
# window's creation and destruction record.
tool=$1 np=$2 work=$3 mpiexec=$4 so=$5 prog=$6; shift 6
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
p=3 abytes=$(( 4 * (np + 1) ))

check_logger() {
    for r in $(seq 0 $((np - 1))); do
        right=$(( (r + 1) % np ))
        [ -f "log.$r" ] || { fail "no log.$r"; continue; }
        # creation on the communicator (the catalogue binds win_create to it), free on the window
        expect_count "log.$r" "^\[rank $r\] .* MPI_COMM_WORLD +[a-z_]+ +win_create key=[0-9]+ comm_key=1 bytes=$abytes rank=$r size=$np\$" 1
        expect_count "log.$r" "^\[rank $r\] .* comm#2 +[a-z_]+ +win_create key=[0-9]+ comm_key=[0-9]+ bytes=$((8 * p)) rank=$r size=$np\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +win_free key=[0-9]+ comm_key=1 bytes=$abytes rank=$r size=$np\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#1 +[a-z_]+ +win_free " 1
        # the operations, on their windows
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +put_started target_disp=$((4 * r)) bytes=4 op_id=[0-9]+ target=$right op=0\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +accumulate_started target_disp=$((4 * np)) bytes=4 op_id=[0-9]+ target=0 op=1\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +get_started " 2
        expect_count "log.$r" "^\[rank $r\] .* win#1 +[a-z_]+ +put_started target_disp=[0-9]+ bytes=8 op_id=[0-9]+ target=$right op=0\$" $p
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +lock_acquired target=0 lock_type=1\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +lock_acquired target=$right lock_type=2\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#1 +[a-z_]+ +lock_acquired target=-1 lock_type=2\$" 1
        expect_count "log.$r" "^\[rank $r\] .* win#0 +[a-z_]+ +sync_begin kind=1 target=-1\$" 3
        # every operation started completes, with its op_id
        started=$(sed -n 's/.* \(put\|get\|accumulate\)_started .* op_id=\([0-9]*\) .*/\1 \2/p' "log.$r" | sort)
        completed=$(sed -n 's/.* \(put\|get\|accumulate\)_complete .* op_id=\([0-9]*\) .*/\1 \2/p' "log.$r" | sort)
        [ -n "$started" ] && [ "$started" = "$completed" ] || fail "log.$r: started ($started) and completed ($completed) differ"
        expect_match "log.$r" "^\[rank $r\] mpitev_logger: [0-9]+ instances delivered, 0 reported dropped, 0 not kept \(buffer full\), 3 communicators followed, 2 windows followed\$"
    done
}

check_qprof() {
    for r in $(seq 0 $((np - 1))); do
        # window over win_bytes puts put_bytes gets get_bytes accs acc_bytes locks wait_mean wait_max syncs sync_us
        expect_count out.txt "^\[rank $r\] win#0 +MPI_COMM_WORLD +$abytes +1 +4 +2 +8 +1 +4 +2 +[0-9.]+ +[0-9.]+ +7 +[0-9.]+\$" 1
        expect_count out.txt "^\[rank $r\] win#1 +comm#2 +$((8 * p)) +$p +$((8 * p)) +1 +$((8 * p)) +0 +0 +2 +[0-9.]+ +[0-9.]+ +5 +[0-9.]+\$" 1
        # one-sided instances: win#0 26 (4 started, 4 complete, 2 + 2 locks, 7 + 7 syncs), win#1 22
        expect_match out.txt "^\[rank $r\] mpitev_qprof: [0-9]+ queue instances processed, 48 one-sided, 0 reported dropped, 0 not kept\$"
        expect_count "plots/rank$r.rma.dat" '^[0-9.]+ 0 [0-2] 4$' 4
        expect_count "plots/rank$r.rma.dat" '^[0-9.]+ 1 0 8$' $p
        expect_count "plots/rank$r.rma.dat" "^[0-9.]+ 1 1 $((8 * p))\$" 1
    done
    expect_match out.txt "mpitev_qprof: plots in .*/rma.png"
    size=$(png_size plots/rma.png)
    [ "$size" = "800 600" ] || fail "plots/rma.png: not an 800x600 PNG (got '$size')"
}

check_otf2() {
    command -v otf2-print >/dev/null || { fail "otf2-print missing (Debian: otf2-tools)"; return; }
    otf2-print -G trace/traces.otf2 > defs.txt 2>&1 || fail "otf2-print -G failed"
    otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
    # both windows are over the same processes: one group and communicator, two windows
    expect_count defs.txt "^GROUP +0 +Name: .*, Type: COMM_LOCATIONS, Paradigm: MPI, .*$np Members" 1
    expect_count defs.txt "^GROUP +1 +Name: .*, Type: COMM_GROUP, Paradigm: MPI, .*$np Members" 1
    expect_count defs.txt "^COMM +0 +Name: .*, Group: .*<1>" 1
    expect_count defs.txt "^RMA_WIN +[01] +Name: \"window [01]\" <[0-9]+>, Communicator: .*, Flags: \{CREATE_DESTROY_EVENTS\}" 2
    # per rank: created and destroyed on each of its 2 locations, 2 windows
    expect_count events.txt '^RMA_WIN_CREATE ' $((2 * ${RMA_SOURCES:-2} * np))
    expect_count events.txt '^RMA_WIN_DESTROY ' $((2 * ${RMA_SOURCES:-2} * np))
    expect_count events.txt '^RMA_PUT .*Window: "window 0" <0>, Remote: [0-9]+ .*, Bytes: 4, Matching: [0-9]+' $np
    expect_count events.txt '^RMA_PUT .*Window: "window 1" <1>, Remote: [0-9]+ .*, Bytes: 8, Matching: [0-9]+' $((p * np))
    expect_count events.txt '^RMA_GET ' $((3 * np))
    expect_count events.txt '^RMA_ATOMIC .*Remote: 0 .*, Type: ACCUMULATE, Sent: 4, Received: 0, Matching: [0-9]+' $np
    expect_count events.txt '^RMA_OP_COMPLETE_BLOCKING ' $((8 * np))
    expect_count events.txt '^RMA_ACQUIRE_LOCK .*Type: EXCLUSIVE' $np
    expect_count events.txt '^RMA_ACQUIRE_LOCK .*Type: SHARED' $((3 * np))
    expect_count events.txt '^RMA_RELEASE_LOCK ' $((4 * np))
    expect_count events.txt '^RMA_COLLECTIVE_BEGIN ' $((3 * np))
    expect_count events.txt '^RMA_COLLECTIVE_END .*Operation: BARRIER, Window: "window 0" <0>' $((3 * np))
    expect_count events.txt '^ENTER .*Region: "MPI_Win_fence"' $((3 * np))
    expect_count events.txt '^LEAVE .*Region: "MPI_Win_lock"' $((3 * np))
    expect_count events.txt '^ENTER .*Region: "MPI_Win_lock_all"' $np
    # the elements ride along as attributes
    n=$(awk '/^RMA_ATOMIC / { getline; if ($0 ~ /"op" <[0-9]+>; INT32; 1\)/) n++ } END { print n + 0 }' events.txt)
    [ "$n" -eq "$np" ] || fail "$n RMA_ATOMIC records carry op 1 (MPI_SUM), expected $np"
    # every operation's matching id completes on its location
    ops=$(awk '/^RMA_(PUT|GET|ATOMIC) / { print $2, $NF }' events.txt | sort)
    done=$(awk '/^RMA_OP_COMPLETE_BLOCKING / { print $2, $NF }' events.txt | sort)
    [ -n "$ops" ] && [ "$ops" = "$done" ] || fail "operations and completions differ"
}

case $tool in
logger) set -- "$@" MPITEV_LOGGER_OUTPUT="$work/log.%r" ;;
qprof) set -- "$@" MPITEV_QPROF_DIR="$work/plots" MPITEV_QPROF_PNG_SIZE=800x600 ;;
otf2) set -- "$@" MPITEV_OTF2_DIR="$work/trace" ;;
*) echo "check_rma.sh: unknown tool $tool"; exit 2 ;;
esac
env LD_PRELOAD="$so" "$@" "$mpiexec" -n "$np" --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "rmapattern exited with $status"
expect_match out.txt "rmapattern: $np processes: ok"
check_$tool
finish
