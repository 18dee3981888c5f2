#!/bin/sh
# check_tools.sh NP WORKDIR OMPI_PREFIX PROJECT_ROOT [p2p|rma]
# The tools of examples/tools, unchanged, on Open MPI 4.1.4 + mpitev: each built with
# Open MPI's mpicc as a shared library (the C files of common/ and of the tool's
# directory; Open MPI's mpi.h says MPI_VERSION 3, so the tools leave out the wrappers of
# MPI-4's constructors, which it does not have), preloaded with mpirun -x LD_PRELOAD into
# the toy's and MPICH's test programs (standard MPI), over shared memory (vader), their
# output checked. The tools read Open MPI's events by their catalogue names and element
# names (include/mpitev/catalog.h), as on MPICH and the toy.
#   p2p (default): examples/tools/tests/qpattern.c (a known queue pattern on a
#        communicator created and freed mid-run) under the logger, the queue profiler (its
#        table and plots) and the OTF2 tracer; as integrations/mpich/tests/check_tools.sh.
#   rma: examples/tools/tests/rmapattern.c (two windows, known one-sided operations,
#        locks and synchronizations) under the three tools, checked by the toy's own
#        check_rma.sh: needs Open MPI's one-sided events.
# Differences from MPICH that a tool sees (integrations/openmpi/README.md): the sources
# are ompi_comm (objects) and ompi_pml (ob1), and ob1 does not count its queues
# (queue_length -1): the unexpected queue's growth is checked by the messages it holds,
# not by their queue_length.
np=$1 work=$2 ompi=$3 root=$4 what=${5:-p2p}
t=$root/examples/tools
. "$t/tests/lib.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 2
build_tools "$ompi/bin/mpicc" "$t"
[ "$otf2" = 1 ] || fail "OTF2 missing (Debian: libopen-trace-format2-dev otf2-tools): the tracer is part of this test"
# The launcher the tools' scripts call as "mpiexec": Open MPI's mpirun, as root, with
# more ranks than cores, over shared memory; mpirun passes its environment (LD_PRELOAD,
# the tools' variables) to the ranks it starts on this node, and takes --timeout.
cat >mpiexec <<EOF
#!/bin/sh
exec "$ompi/bin/mpirun" --allow-run-as-root --oversubscribe --mca plm_rsh_agent false --mca btl vader,self "\$@"
EOF
chmod +x mpiexec
run() { ./mpiexec --timeout 90 -n "$np" "$@"; }

if [ "$what" = rma ]; then
  # One-sided: the toy's check_rma.sh (source names [a-z_]+ fit Open MPI's), with Open
  # MPI's four sources per rank (ompi_comm, ompi_pml, ompi_pml_mt, ompi_osc: RMA_SOURCES,
  # the OTF2 tracer's locations).
  "$ompi/bin/mpicc" -std=c11 -O1 -g "$t/tests/rmapattern.c" -o rmapattern || fail "rmapattern build"
  [ "$fails" -eq 0 ] || finish
  tools="logger qprof"
  [ "$otf2" = 1 ] && tools="$tools otf2"
  for tool in $tools; do
    echo "--- $tool on rmapattern"
    RMA_SOURCES=4 sh "$t/tests/check_rma.sh" "$tool" "$np" "$work/rma.$tool" "$work/mpiexec" "$work/libmpitev_$tool.so" \
      "$work/rmapattern" || fail "$tool on rmapattern (the toy's check_rma.sh)"
  done
  finish
fi

"$ompi/bin/mpicc" -std=c11 -O1 -g "$t/tests/qpattern.c" -o qpattern || fail "qpattern build"
[ "$fails" -eq 0 ] || finish
k=5 m=4 u=$(( (np - 1) * 5 ))

echo "=== logger"
run -x LD_PRELOAD="$work/libmpitev_logger.so" \
  -x MPITEV_LOGGER_EVENTS='unexpected_insert,posted_insert,comm_fre?,comm_create' \
  -x MPITEV_LOGGER_OUTPUT="$work/log.%r" ./qpattern > logger.out 2>&1
status=$?
cat logger.out
[ $status -eq 0 ] || fail "qpattern under the logger exited with $status"
expect_match logger.out "qpattern: $np processes: ok"
for r in $(seq 0 $((np - 1))); do
  [ -f "log.$r" ] || { fail "no log.$r"; continue; }
  echo "--- log.$r"; cat "log.$r"
  expect_count "log.$r" ' (search_[a-z_]+|message_arrived|[a-z]+_remove|send_posted|recv_posted) ' 0
  expect_comm_lifecycle "log.$r" "$r" "$np" ompi_comm
  expect_match "log.$r" "^\[rank $r\] mpitev_logger: [0-9]+ instances delivered, 0 reported dropped, 0 not kept"
done
# rank 0 on comm#2: (np-1)*K unexpected messages from ranks 1..np-1 (tags 0..K-1), each
# once, each with its own seq (ob1's message identity); M posted receives from rank 1
expect_count log.0 "^\[rank 0\] .* comm#2 +ompi_pml +unexpected_insert bytes=4 seq=[1-9][0-9]* source=[1-9][0-9]* tag=[0-4] queue_length=-1$" $u
for s in $(seq 1 $((np - 1))); do
  for tag in $(seq 0 $((k - 1))); do
    expect_count log.0 "^\[rank 0\] .* comm#2 +ompi_pml +unexpected_insert .* source=$s tag=$tag " 1
  done
done
seqs=$(sed -n 's/.* comm#2 .* unexpected_insert .* seq=\([0-9]*\) .*/\1/p' log.0 | sort -u | wc -l)
[ "$seqs" -eq "$u" ] || fail "log.0: $seqs different seq values on comm#2's unexpected_insert, expected $u"
expect_count log.0 "^\[rank 0\] .* comm#2 +ompi_pml +posted_insert request_id=[1-9][0-9]* source=1 tag=[0-3] queue_length=-1$" $m

echo "=== qprof"
run -x LD_PRELOAD="$work/libmpitev_qprof.so" -x MPITEV_QPROF_DIR="$work/plots" \
  -x MPITEV_QPROF_PNG_SIZE=800x600 ./qpattern > qprof.out 2>&1
status=$?
cat qprof.out
[ $status -eq 0 ] || fail "qpattern under qprof exited with $status"
expect_match qprof.out "qpattern: $np processes: ok"
# scope queue inserts max ...: every unexpected message and posted receive on comm#2 (the
# profiler counts the depth itself, from the inserts and removes)
expect_count qprof.out "^\[rank 0\] comm#2 +unexpected +$u +$u " 1
expect_count qprof.out "^\[rank 0\] comm#2 +posted +$m +$m " 1
# ob1 reports no queue lengths (-1, the catalogue's unknown): the profiler counts them, so
# no depth or search length of its tables is negative
expect_count qprof.out "^\[rank [0-9]+\] (process|MPI_COMM_WORLD|comm#[0-9]+) .* -[0-9]" 0
for r in $(seq 0 $((np - 1))); do
  expect_match qprof.out "^\[rank $r\] mpitev_qprof: [0-9]+ queue instances processed, (0 one-sided, )?0 reported dropped, 0 not kept"
  for f in depth search hist; do [ -s "plots/rank$r.$f.dat" ] || fail "no plots/rank$r.$f.dat"; done
done
# the plots: the queue depths over time and the search lengths (gnuplot)
expect_match qprof.out "mpitev_qprof: plots in .*/depth.png"
[ -s plots/qprof.gp ] || fail "no gnuplot script"
for png in depth search_length; do
  size=$(png_size "plots/$png.png")
  [ "$size" = "800 600" ] || fail "plots/$png.png: not an 800x600 PNG (got '$size')"
done

if [ "$otf2" = 1 ]; then
  echo "=== otf2"
  run -x LD_PRELOAD="$work/libmpitev_otf2.so" -x MPITEV_OTF2_DIR="$work/trace" ./qpattern > otf2.out 2>&1
  status=$?
  cat otf2.out
  [ $status -eq 0 ] || fail "qpattern under the OTF2 tracer exited with $status"
  expect_match otf2.out "qpattern: $np processes: ok"
  expect_match otf2.out "mpitev_otf2: trace in .*/trace/traces.otf2: [0-9]+ locations, [1-9][0-9]* records, 0 instances reported dropped"
  otf2-print trace/traces.otf2 > events.txt 2>&1 || fail "otf2-print failed"
  # rank 0's unexpected messages on comm#2 at least (a collective's message on another rank
  # may be unexpected too), with their elements as attributes
  n=$(awk '/^ENTER .*Region: "unexpected_insert"/ { getline; if ($0 ~ /"bytes" <[0-9]+>; INT64; 4\)/ && $0 ~ /"queue_length" <[0-9]+>; INT32; -1\)/) n++ } END { print n + 0 }' events.txt)
  [ "$n" -ge "$u" ] || fail "$n unexpected_insert records carry bytes 4 and queue_length -1, expected at least $u"
  expect_match events.txt 'Region: "posted_insert"'
fi
finish
