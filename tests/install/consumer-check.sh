#!/usr/bin/env bash
# Builds tests/install/consumer.c against an installed inetcsum: with pkg-config (shared and
# static) and with CMake's find_package.  Usage: consumer-check.sh PREFIX WORKDIR
set -euo pipefail
prefix=$1 work=$2
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc "$here/consumer.c" -o "$work/pc_shared" $(pkg-config --cflags --libs inetcsum)
LD_LIBRARY_PATH="$prefix/lib" "$work/pc_shared"
cc "$here/consumer.c" -o "$work/pc_static" $(pkg-config --cflags inetcsum) "$prefix/lib/libinetcsum.a"
"$work/pc_static"
cmake -S "$here" -B "$work/cmake" -G Ninja -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/cmake" >/dev/null
LD_LIBRARY_PATH="$prefix/lib" "$work/cmake/consumer_shared"
"$work/cmake/consumer_static"
# The headers and their inline paths (scalar with a constant 20 or 40 B; AVX2, AVX-512; CRC32c with
# SSE4.2) as callers with strict warnings compile them, in C and C++, with GCC and with clang where
# it is installed: compiled only, since this CPU may not run them (tests/header_inline_simd.c runs
# them where it can).  Each flag here once failed a caller: g++ 12 reports a false
# maybe-uninitialized inside GCC's own AVX-512 intrinsics, and a false uninitialized where the
# length is a constant (h); clang's -Wcast-align the AVX2 path's loads; g++'s -Wshadow a function
# named as a struct (inetcsum_offload, inetcsum_fragment).
if [ "$(uname -m)" = x86_64 ]; then
  cat > "$work/inline_path.c" <<'SRC'
#include <inetcsum.h>
#include <inetcsum_gso.h>
#include <inetcsum_packet.h>
#include <inetcsum_proto.h>
uint32_t f(const void *b, size_t n, uint32_t s);
uint32_t g(const void *b, uint32_t s);
uint32_t h(void);
uint32_t f(const void *b, size_t n, uint32_t s) { return inetcsum_partial(b, n, s) ^ inetcsum_crc32c(b, n, s); }
uint32_t g(const void *b, uint32_t s) { return inetcsum_partial(b, 20, s) ^ inetcsum_partial(b, 40, s); }
uint32_t h(void) { static unsigned char b[100]; return inetcsum_partial(b, sizeof b, 0); }
SRC
  cp "$work/inline_path.c" "$work/inline_path.cc"
  strict="-O2 -Wall -Wextra -Wcast-align -Wcast-qual -Wshadow -Wundef -Wconversion -Wsign-conversion -Werror"
  for arch in x86-64 x86-64-v2 x86-64-v3 x86-64-v4; do
    for c in cc clang; do
      command -v $c >/dev/null || continue
      $c -std=c11 -march=$arch $strict -Wpedantic -Wstrict-prototypes -Wmissing-prototypes \
        $(pkg-config --cflags inetcsum) -c "$work/inline_path.c" -o "$work/inline_path_${c}_$arch.o"
    done
    for cxx in c++ clang++; do
      command -v $cxx >/dev/null || continue
      $cxx -std=c++11 -march=$arch $strict -Wmissing-declarations $(pkg-config --cflags inetcsum) \
        -c "$work/inline_path.cc" -o "$work/inline_path_${cxx}_$arch.o"
    done
  done
fi
# The DPDK layer, when it was installed (pkg-config found libdpdk at build time).
if [ -f "$prefix/lib/pkgconfig/inetcsum_dpdk.pc" ]; then
  cc "$here/consumer_dpdk.c" -o "$work/pc_dpdk_shared" $(pkg-config --cflags --libs inetcsum_dpdk)
  LD_LIBRARY_PATH="$prefix/lib" "$work/pc_dpdk_shared"
  cc "$here/consumer_dpdk.c" -o "$work/pc_dpdk_static" $(pkg-config --cflags inetcsum_dpdk) \
    "$prefix/lib/libinetcsum_dpdk.a" "$prefix/lib/libinetcsum.a" $(pkg-config --libs libdpdk) -pthread
  "$work/pc_dpdk_static"
  LD_LIBRARY_PATH="$prefix/lib" "$work/cmake/consumer_dpdk_shared"
  "$work/cmake/consumer_dpdk_static"
fi
# The AF_XDP layer, when it was installed (pkg-config found libxdp at build time).
if [ -f "$prefix/lib/pkgconfig/inetcsum_xsk.pc" ]; then
  cc "$here/consumer_xsk.c" -o "$work/pc_xsk_shared" $(pkg-config --cflags --libs inetcsum_xsk)
  LD_LIBRARY_PATH="$prefix/lib" "$work/pc_xsk_shared"
  cc "$here/consumer_xsk.c" -o "$work/pc_xsk_static" $(pkg-config --cflags inetcsum_xsk) \
    "$prefix/lib/libinetcsum_xsk.a" "$prefix/lib/libinetcsum.a" $(pkg-config --libs libxdp libbpf) -pthread
  "$work/pc_xsk_static"
  LD_LIBRARY_PATH="$prefix/lib" "$work/cmake/consumer_xsk_shared"
  "$work/cmake/consumer_xsk_static"
fi
