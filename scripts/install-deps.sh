#!/usr/bin/env bash
# Installs every system package the build, tests and benchmark need (Debian/Ubuntu, run as root or
# with sudo). CI runs on a clean machine, so nothing may be assumed to be there already.
set -euo pipefail

packages=(
  cmake ninja-build pkg-config gcc g++ make   # the build
  clang libclang-rt-14-dev llvm               # libFuzzer, sanitizers
  qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross   # NEON kernel under emulation
  libsimde-dev                                # runs the AVX-512 kernel's code on CPUs without AVX-512
  libdpdk-dev                                 # the benchmark's anchor: DPDK's __rte_raw_cksum
  libjansson-dev                              # inetcsum bench: --json and compare
  zlib1g-dev libzstd-dev liblzma-dev          # the command: gzip, zstd and xz captures
  libpcap-dev                                 # verify -i: tcpdump's filter language, compiled by libpcap
  libxdp-dev libbpf-dev                       # the AF_XDP layer (xsk/): libxdp 1.3, libbpf 1.1
  gzip zstd xz-utils                          # test_cli: compressed captures made by the real tools
  valgrind
  python3 python3-dev python3-venv            # test_cli; the Python package's headers and test venv
  tshark                                      # test_cli: Wireshark's verdicts on generated captures
  tcpreplay time                              # bench/cli_speed.py: tcprewrite --fixcsum, peak memory
  iproute2 tcpdump iperf3 ethtool iputils-ping  # tests with the kernel as oracle: namespaces, TAP, veth
                                              # captures of real TSO traffic, the example forwarder
)

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  echo "install-deps: done"
fi

# Python packages from PyPI, for whichever python3 the tests run (a pyenv or venv one, or the
# system's, which Debian marks externally managed: then --break-system-packages is the way in).
# pip name:import name.
python_packages=(
  matplotlib:matplotlib                 # inetcsum bench --plot (python/inetcsum/plot.py)
  scikit-build-core:scikit_build_core   # pip install . / pip wheel . (pyproject.toml)
  pytest:pytest hypothesis:hypothesis   # tests/python
  scapy:scapy numpy:numpy               # tests/python: the reference checksum, packets, buffers
  mypy:mypy                             # tests/python: the type stubs against the module
  "dask[distributed]":distributed pandas:pandas fsspec:fsspec   # inetcsum.distributed (the dask extra)
)
missing=()
for p in "${python_packages[@]}"; do
  python3 -c "import ${p#*:}" 2>/dev/null || missing+=("${p%%:*}")
done
if [ ${#missing[@]} -ne 0 ]; then
  echo "install-deps: pip installing ${missing[*]}"
  python3 -m pip --version >/dev/null 2>&1 || $sudo apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
  python3 -m pip install -q "${missing[@]}" 2>/dev/null ||
    python3 -m pip install -q --break-system-packages "${missing[@]}"
fi
