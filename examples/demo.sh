#!/bin/sh
# README's demo: build mpitev's examples and run the demo program.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sh cmake/prereqs.sh gcc libc6-dev make cmake pkg-config
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMPITEV_BUILD_TESTS=OFF -DMPITEV_BUILD_BENCH=OFF >/dev/null
cmake --build build -j2 >/dev/null
./build/examples/hello/mpitev_hello
