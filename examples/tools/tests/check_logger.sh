#!/bin/sh
# check_logger.sh NP WORKDIR MPIEXEC LOGGER_SO QPATTERN [ENV...]
# The logger on qpattern (known pattern on a communicator created and freed mid-run),
# with a glob filter of catalogue names and one output file per rank.
np=$1 work=$2 mpiexec=$3 tool=$4 prog=$5; shift 5
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_LOGGER_EVENTS='*_insert,comm_fre?,comm_create' \
    MPITEV_LOGGER_OUTPUT="$work/log.%r" "$mpiexec" -n "$np" --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: $np processes: ok"
for r in $(seq 0 $((np - 1))); do
    [ -f "log.$r" ] || { fail "no log.$r"; continue; }
    echo "--- log.$r"; cat "log.$r"
    # only the selected types are printed
    expect_count "log.$r" ' (search_[a-z_]+|message_arrived|transfer_[a-z]+|request_(complete|cancel)|send_posted|recv_posted|toympi_(rendezvous|coll_[a-z]+|request_free)) ' 0
    expect_comm_lifecycle "log.$r" "$r" "$np" toympi_api
    expect_match "log.$r" "^\[rank $r\] mpitev_logger: [0-9]+ instances delivered, 0 reported dropped, 0 not kept \(buffer full\), 3 communicators followed, 0 windows followed"
done
k=5 m=4
# rank 0 on comm#2: (np-1)*K unexpected messages (source 1..np-1, tags 0..K-1), M posted receives
expect_count log.0 '^\[rank 0\] .* comm#2 +toympi_progress +unexpected_insert bytes=4 seq=[0-9]+ source=[1-9][0-9]* tag=[0-4] queue_length=[0-9]+$' $(( (np - 1) * k ))
# ... growing the queue one by one, in order, to (np-1)*K
for q in $(seq 1 $(( (np - 1) * k ))); do
    expect_count log.0 "^\[rank 0\] .* comm#2 +toympi_progress +unexpected_insert .* queue_length=$q\$" 1
done
expect_count log.0 '^\[rank 0\] .* comm#2 +toympi_progress +posted_insert request_id=[1-9][0-9]* source=1 tag=[0-3] queue_length=[1-4]$' $m
expect_match log.0 "^\[rank 0\] mpitev_logger summary: unexpected_insert +[0-9]+ +0$"
expect_match log.0 "^\[rank 0\] mpitev_logger summary: comm_free +1 +0$"
finish
