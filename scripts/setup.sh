#!/usr/bin/env bash
# Fresh machine to first result: installs the packages, builds the library, tests, benchmark and
# the inetcsum command (build/), runs a quick benchmark of this CPU's kernels against the read limit
# and DPDK (inetcsum bench sizes --quick), then verifies and fixes the shipped sample capture.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)"
echo
echo "== build/cli/inetcsum bench sizes --quick"
build/cli/inetcsum bench sizes --quick

# The sample: 40 generated frames of every kind, 6 made wrong (inetcsum gen --frames 40 --bad 6 --seed 1).
echo
echo "== build/cli/inetcsum verify examples/sample.pcap"
build/cli/inetcsum verify examples/sample.pcap || [ $? -eq 1 ]   # 1: bad checksums found, as planted
echo
echo "== build/cli/inetcsum fix examples/sample.pcap build/sample-fixed.pcap && verify it"
build/cli/inetcsum fix examples/sample.pcap build/sample-fixed.pcap
build/cli/inetcsum verify build/sample-fixed.pcap
