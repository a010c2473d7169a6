#!/usr/bin/env bash
# Fresh machine to first result: installs the packages, builds the library, tests and benchmark
# (build/), and runs the main job: the kernels this CPU has and a quick benchmark against the read
# limit and DPDK.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
if [ -x build/bench/bench_core ]; then
  build/bench/bench_core --quick
else
  echo "bench_core was not built (needs x86-64 and libdpdk-dev)"
fi
