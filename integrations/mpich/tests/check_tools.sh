#!/bin/sh
# check_tools.sh NP WORKDIR MPICH_PREFIX PROJECT_ROOT
# The tools of examples/tools, unchanged, on MPICH + mpitev: each built with MPICH's
# mpicc as a shared library (the C files of common/ and of the tool's directory: every
# constructor wrapper, as for any real MPI), preloaded with mpiexec -genv into
# examples/tools/tests/qpattern.c (a known queue pattern on a communicator created and
# freed mid-run), its output checked. The tools read MPICH's events by their catalogue
# names and element names (include/mpitev/catalog.h).
np=$1 work=$2 mpich=$3 root=$4
t=$root/examples/tools
. "$t/tests/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
build_tools "$mpich/bin/mpicc" "$t"
# the program, not a tool: gcc 12 misreads MPICH's MPI_STATUSES_IGNORE (-Wstringop-overflow)
"$mpich/bin/mpicc" -std=c11 -O1 -g "$t/tests/qpattern.c" -o qpattern || fail "qpattern build"
[ "$fails" -eq 0 ] || finish
mpiexec=$mpich/bin/mpiexec
k=5 m=4 u=$(( (np - 1) * 5 ))

echo "=== logger"
"$mpiexec" -n "$np" -genv LD_PRELOAD "$work/libmpitev_logger.so" \
  -genv MPITEV_LOGGER_EVENTS 'unexpected_insert,posted_insert,comm_fre?,comm_create' \
  -genv MPITEV_LOGGER_OUTPUT "$work/log.%r" ./qpattern > logger.out 2>&1
status=$?
cat logger.out
[ $status -eq 0 ] || fail "qpattern under the logger exited with $status"
expect_match logger.out "qpattern: $np processes: ok"
for r in $(seq 0 $((np - 1))); do
  [ -f "log.$r" ] || { fail "no log.$r"; continue; }
  echo "--- log.$r"; cat "log.$r"
  expect_count "log.$r" ' (search_[a-z_]+|message_arrived|[a-z]+_remove|unexp_message_[a-z]+) ' 0
  expect_comm_lifecycle "log.$r" "$r" "$np" OBJECTS
  expect_match "log.$r" "^\[rank $r\] mpitev_logger: [0-9]+ instances delivered, 0 reported dropped, 0 not kept"
done
# rank 0 on comm#2: (np-1)*K unexpected messages from ranks 1..np-1 (tags 0..K-1), the
# queue growing one by one; M posted receives from rank 1
expect_count log.0 "^\[rank 0\] .* comm#2 +VCI0 +unexpected_insert bytes=4 seq=[1-9][0-9]* source=[1-9][0-9]* tag=[0-4] queue_length=[0-9]+$" $u
for q in $(seq 1 $u); do
  expect_count log.0 "^\[rank 0\] .* comm#2 +VCI0 +unexpected_insert .* queue_length=$q\$" 1
done
expect_count log.0 "^\[rank 0\] .* comm#2 +VCI0 +posted_insert request_id=[1-9][0-9]* source=1 tag=[0-3] queue_length=[1-4]$" $m

echo "=== qprof"
"$mpiexec" -n "$np" -genv LD_PRELOAD "$work/libmpitev_qprof.so" -genv MPITEV_QPROF_DIR "$work/plots" \
  ./qpattern > qprof.out 2>&1
status=$?
cat qprof.out
[ $status -eq 0 ] || fail "qpattern under qprof exited with $status"
expect_match qprof.out "qpattern: $np processes: ok"
# scope queue inserts max ...: every unexpected message and posted receive on comm#2
expect_count qprof.out "^\[rank 0\] comm#2 +unexpected +$u +$u " 1
expect_count qprof.out "^\[rank 0\] comm#2 +posted +$m +$m " 1
for r in $(seq 0 $((np - 1))); do
  expect_match qprof.out "^\[rank $r\] mpitev_qprof: [0-9]+ queue instances processed, (0 one-sided, )?0 reported dropped, 0 not kept"
done

if [ "$otf2" = 1 ]; then
  echo "=== otf2"
  "$mpiexec" -n "$np" -genv LD_PRELOAD "$work/libmpitev_otf2.so" -genv MPITEV_OTF2_DIR "$work/trace" \
    ./qpattern > otf2.out 2>&1
  status=$?
  cat otf2.out
  [ $status -eq 0 ] || fail "qpattern under the OTF2 tracer exited with $status"
  expect_match otf2.out "qpattern: $np processes: ok"
  expect_match otf2.out "mpitev_otf2: trace in .*/trace/traces.otf2: [0-9]+ locations, [1-9][0-9]* records, 0 instances reported dropped"
  otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
  expect_match events.txt "unexpected_insert"
fi

# One-sided: the same tools on examples/tools/tests/rmapattern.c (two windows, known
# one-sided operations, locks and synchronizations), checked by the toy's own
# check_rma.sh, with MPICH's differences: its source names are upper case (the script's
# pattern for them is [a-z_]+), it has three sources per rank (VCI0, OBJECTS, RMA:
# RMA_SOURCES, the OTF2 tracer's locations), and hydra's mpiexec takes MPIEXEC_TIMEOUT,
# not --timeout.
echo "=== rma"
"$mpich/bin/mpicc" -std=c11 -O1 -g "$t/tests/rmapattern.c" -o rmapattern || fail "rmapattern build"
sed -e 's/\[a-z_\]+ +/[A-Za-z0-9_]+ +/g' "$t/tests/check_rma.sh" >check_rma_mpich.sh
cp "$t/tests/lib.sh" lib.sh
cat >mpiexec <<EOF
#!/bin/sh
n=\$#
while [ \$n -gt 0 ]; do
  case \$1 in
    --timeout) export MPIEXEC_TIMEOUT=\$2; shift 2; n=\$((n - 2)); continue ;;
    *) set -- "\$@" "\$1"; shift; n=\$((n - 1)) ;;
  esac
done
exec "$mpich/bin/mpiexec" "\$@"
EOF
chmod +x mpiexec
tools="logger qprof"
[ "$otf2" = 1 ] && tools="$tools otf2"
for tool in $tools; do
  echo "--- $tool on rmapattern"
  RMA_SOURCES=3 sh ./check_rma_mpich.sh "$tool" "$np" "$work/rma.$tool" "$work/mpiexec" "$work/libmpitev_$tool.so" \
    "$work/rmapattern" || fail "$tool on rmapattern (the toy's check_rma.sh)"
done
finish
