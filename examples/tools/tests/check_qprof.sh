#!/bin/sh
# check_qprof.sh NP WORKDIR MPIEXEC QPROF_SO QPATTERN [ENV...]
# The queue profiler on qpattern: known depths and search lengths on comm#2 of rank 0,
# and the PNGs (valid, of the requested size), data files and gnuplot script.
np=$1 work=$2 mpiexec=$3 tool=$4 prog=$5; shift 5
. "$(dirname "$0")/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
env LD_PRELOAD="$tool" "$@" MPITEV_QPROF_DIR="$work/plots" MPITEV_QPROF_PNG_SIZE=800x600 \
    "$mpiexec" -n "$np" --timeout 60 "$prog" > out.txt 2>&1
status=$?
cat out.txt
[ $status -eq 0 ] || fail "qpattern exited with $status"
expect_match out.txt "qpattern: $np processes: ok"
k=5 m=4 u=$(( (np - 1) * k ))
s=$((u + m))
# scope queue inserts max wait_us searches hits mean_len max_len ...
mean_u=$(awk -v u=$u -v s=$s 'BEGIN { printf "%.2f", u * (u + 1) / 2 / s }')
mean_p=$(awk -v m=$m -v s=$s 'BEGIN { printf "%.2f", m * (m + 1) / 2 / s }')
expect_count out.txt "^\[rank 0\] comm#2 +unexpected +$u +$u +[0-9.]+ +$s +$u +$mean_u +$u " 1
expect_count out.txt "^\[rank 0\] comm#2 +posted +$m +$m +[0-9.]+ +$s +$m +$mean_p +$m " 1
# per peer: each sender left K unexpected messages; rank 1 also matched M posted receives
expect_count out.txt "^\[rank 0\] comm#2 +1 +$m +[0-9.]+ +$k +[0-9.]+$" 1
for p in $(seq 2 $((np - 1))); do
    expect_count out.txt "^\[rank 0\] comm#2 +$p +0 +[0-9.]+ +$k +[0-9.]+$" 1
done
for r in $(seq 0 $((np - 1))); do
    expect_match out.txt "^\[rank $r\] mpitev_qprof: [0-9]+ queue instances processed, 0 one-sided, 0 reported dropped, 0 not kept"
    for f in depth search hist; do [ -s "plots/rank$r.$f.dat" ] || fail "no plots/rank$r.$f.dat"; done
done
# rank 0's unexpected-search histogram (the process's: other communicators' searches
# count too) has every length 1..u
for len in $(seq 1 $u); do
    expect_count plots/rank0.hist.dat "^$len [0-9]+ [1-9][0-9]*$" 1
done
[ -s plots/qprof.gp ] || fail "no gnuplot script"
for png in depth search_length; do
    size=$(png_size "plots/$png.png")
    [ "$size" = "800 600" ] || fail "plots/$png.png: not an 800x600 PNG (got '$size')"
done
finish
