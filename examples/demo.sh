#!/bin/sh
# README's demo: build mpitev's examples, then run the toy MPI's ring program on 4 ranks
# with the standard-API logger tool attached (LD_PRELOAD): every rank prints the MPI_T
# events toy_mpi raised for it (matching queues, eager and rendezvous protocols,
# transfers, the final MPI_Allreduce), with element names taken from each event's enum.
# Then the same ring under the queue profiler (plots in build/demo-out/qprof) and the OTF2
# tracer (trace in build/demo-out/otf2/traces.otf2), and a one-sided exchange (windows,
# put/get/accumulate, fence, locks, flush) under the OTF2 tracer, whose RMA records
# otf2-print shows (trace in build/demo-out/otf2-rma/traces.otf2).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh cmake/prereqs.sh gcc libc6-dev make cmake pkg-config gnuplot-nox libopen-trace-format2-dev otf2-tools
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPITEV_BUILD_TESTS=OFF -DMPITEV_BUILD_BENCH=OFF >/dev/null
cmake --build build -j2 >/dev/null
./build/examples/hello/mpitev_hello
echo
echo "== toy_mpi ring on 4 ranks, logged by libmpitev_logger.so (MPI_T events through mpitev) =="
LD_PRELOAD="$root/build/examples/tools/lib/libmpitev_logger.so" \
    build/examples/toy_mpi/bin/mpiexec -n 4 --timeout 60 build/examples/toy_mpi/bin/ring
echo
echo "== the same ring under libmpitev_qprof.so (message-queue profiler) and libmpitev_otf2.so (OTF2 tracer) =="
rm -rf build/demo-out && mkdir -p build/demo-out
MPITEV_QPROF_DIR="$root/build/demo-out/qprof" LD_PRELOAD="$root/build/examples/tools/lib/libmpitev_qprof.so" \
    build/examples/toy_mpi/bin/mpiexec -n 4 --timeout 60 build/examples/toy_mpi/bin/ring
if [ -f build/examples/tools/lib/libmpitev_otf2.so ]; then
  MPITEV_OTF2_DIR="$root/build/demo-out/otf2" LD_PRELOAD="$root/build/examples/tools/lib/libmpitev_otf2.so" \
      build/examples/toy_mpi/bin/mpiexec -n 4 --timeout 60 build/examples/toy_mpi/bin/ring
fi
echo "queue plots: build/demo-out/qprof/depth.png, build/demo-out/qprof/search_length.png; OTF2 trace: build/demo-out/otf2/traces.otf2"
if [ -f build/examples/tools/lib/libmpitev_otf2.so ]; then
  echo
  echo "== a one-sided exchange on 4 ranks under libmpitev_otf2.so: the window events as OTF2 RMA records =="
  MPITEV_OTF2_DIR="$root/build/demo-out/otf2-rma" LD_PRELOAD="$root/build/examples/tools/lib/libmpitev_otf2.so" \
      build/examples/toy_mpi/bin/mpiexec -n 4 --timeout 60 build/examples/toy_mpi/bin/onesided
  echo "-- otf2-print build/demo-out/otf2-rma/traces.otf2, the RMA records of rank 0's locations:"
  otf2-print build/demo-out/otf2-rma/traces.otf2 | awk '$1 ~ /^RMA_/ && $2 <= 1'
fi
