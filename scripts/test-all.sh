#!/usr/bin/env bash
# Every test, in every build the project promises: the release build, ASan+UBSan, TSAN, no SIMD,
# aarch64 (NEON) under qemu-user, libFuzzer (a short differential run on top of the corpus), and an
# install that a consumer finds through pkg-config and find_package.  Installs what it needs first.
# Usage: scripts/test-all.sh [--quick]   (INETCSUM_TEST_SEED=N reproduces a run's random inputs)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${INETCSUM_BUILD_ROOT:-$root/build-test}
fuzz_seconds=${INETCSUM_FUZZ_SECONDS:-60}
if [ "${1:-}" = "--quick" ]; then export INETCSUM_TEST_QUICK=1; fuzz_seconds=10; fi

scripts/install-deps.sh
mkdir -p "$out"
# tshark's output for the agreement tests, made once in this run and read by every later build
# (tests/cli/common.py, tshark(): keyed by the capture's bytes, so what a build writes is new).
export INETCSUM_TSHARK_CACHE="$out/tshark-cache"
rm -rf "$INETCSUM_TSHARK_CACHE"
jobs=$(nproc)
failed=()
findings=() # fuzz findings, printed last with their inputs

step() { printf '\n==== %s\n' "$*"; }

# configure+build+ctest NAME [cmake args...]
build_and_test() {
  local name=$1; shift
  step "$name"
  if cmake -S "$root" -B "$out/$name" -G Ninja "$@" >"$out/$name.configure.log" 2>&1 &&
     cmake --build "$out/$name" -j "$jobs" >"$out/$name.build.log" 2>&1; then
    (cd "$out/$name" && ctest --output-on-failure -j "$jobs" ${CTEST_EXCLUDE:+-E "$CTEST_EXCLUDE"}) || failed+=("$name")
  else
    cat "$out/$name.configure.log" "$out/$name.build.log" | tail -40
    failed+=("$name (build)")
  fi
}

# (test_python left out here: the Python package step below runs the same tests/python, with the
# same command and shared data, against the wheel built from this tree and installed; here it took
# 2 minutes and more, run alone.)
CTEST_EXCLUDE='^test_python$' build_and_test release -DCMAKE_BUILD_TYPE=Release
# Sanitizer and emulated builds walk fewer alignments: the full sweep ran natively above.
INETCSUM_TEST_QUICK=1 build_and_test asan-ubsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DINETCSUM_SANITIZE=address,undefined
INETCSUM_TEST_QUICK=1 TSAN_OPTIONS=halt_on_error=1 build_and_test tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DINETCSUM_SANITIZE=thread -DCMAKE_C_COMPILER=clang
# (quick too: the release build runs the corpus-wide and example tests, which do not change with
# the kernels, and walks every alignment of the portable kernels as well)
INETCSUM_TEST_QUICK=1 build_and_test no-simd -DCMAKE_BUILD_TYPE=Release -DINETCSUM_SIMD=OFF
INETCSUM_TEST_QUICK=1 build_and_test aarch64-qemu -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake"

step "libFuzzer: about ${fuzz_seconds}s of CPU per target (kernels differential, packet layer, capture reader, reassembly, segmentation, DPDK and AF_XDP layers)"
targets=(kernels packet capture reassembly gso)
if cmake -S "$root" -B "$out/fuzz" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=RelWithDebInfo \
     -DINETCSUM_FUZZ=ON -DINETCSUM_SANITIZE=address,undefined >"$out/fuzz.log" 2>&1; then
  # The DPDK layer's target where DPDK was found (fuzz/CMakeLists.txt).
  if cmake --build "$out/fuzz" --target help 2>/dev/null | grep -q "fuzz_dpdk"; then targets+=(dpdk); fi
  # The AF_XDP layer's where libxdp was found.
  if cmake --build "$out/fuzz" --target help 2>/dev/null | grep -q "fuzz_xsk"; then targets+=(xsk); fi
fi
if [ -f "$out/fuzz/build.ninja" ] &&
   cmake --build "$out/fuzz" -j "$jobs" --target "${targets[@]/#/fuzz_}" >>"$out/fuzz.log" 2>&1; then
  # Every target at once, each for fuzz_seconds x targets / CPUs of wall time: about fuzz_seconds of
  # CPU each, as one target per CPU at a time gave, without the last round's idle CPU (7 targets
  # on 2 CPUs: 210 s instead of 240).  Each writes its exit status.
  wall=$(( (fuzz_seconds * ${#targets[@]} + jobs - 1) / jobs ))
  [ "$wall" -ge "$fuzz_seconds" ] || wall=$fuzz_seconds # (as many CPUs as targets: one each)
  for target in "${targets[@]}"; do
    rm -f "$out/fuzz.$target.rc" "$out/fuzz.$target.artifact-"* # a run that dies before writing it fails
    (
      work=$(mktemp -d)
      rc=0
      "$out/fuzz/fuzz/fuzz_$target" -max_total_time="$wall" -max_len=70000 -print_final_stats=1 \
        -artifact_prefix="$out/fuzz.$target.artifact-" \
        "$work" "$root/fuzz/corpus/$target" >"$out/fuzz.$target.log" 2>&1 || rc=$?
      rm -rf "$work"
      echo "$rc" >"$out/fuzz.$target.rc"
    ) &
  done
  wait
  for target in "${targets[@]}"; do
    if [ "$(cat "$out/fuzz.$target.rc" 2>/dev/null)" = 0 ]; then
      echo "fuzz_$target: $(grep -E "stat::number_of_executed_units" "$out/fuzz.$target.log" | head -1)"
    else
      tail -40 "$out/fuzz.$target.log"; failed+=("libfuzzer $target")
      # What a reader of only the run's last lines needs to reproduce it: the finding and its input.
      why=$(grep -m1 -E "^==[0-9]+==ERROR|^fuzz_[a-z]+: |SUMMARY|libFuzzer: " "$out/fuzz.$target.log" || true)
      for a in "$out/fuzz.$target.artifact-"*; do
        [ -f "$a" ] && findings+=("fuzz_$target: ${why:-no error line} | input $(basename "$a"), base64: $(head -c 3000 "$a" | base64 -w0)")
      done
      [ -n "$(ls "$out/fuzz.$target.artifact-"* 2>/dev/null)" ] || findings+=("fuzz_$target: ${why:-exit $(cat "$out/fuzz.$target.rc" 2>/dev/null)}, no input saved")
    fi
  done
else
  tail -40 "$out/fuzz.log"; failed+=("libfuzzer (build)")
fi

step "inetcsum command against cp and tcprewrite (bench/cli_speed.py, a small run to keep it working)"
python3 bench/cli_speed.py --cli "$out/release/cli/inetcsum" --size 16M --rounds 2 || failed+=("cli_speed")

step "inetcsum bench all --quick: every experiment, its JSON and plot, in under two minutes"
start=$SECONDS
if "$out/release/cli/inetcsum" bench all --quick --json "$out/bench-quick.json" --plot "$out/bench-quick.svg" \
     >"$out/bench-quick.txt" 2>&1 && [ -s "$out/bench-quick.svg" ] &&
   python3 -c "import json, sys; assert len(json.load(open(sys.argv[1]))['figures']) > 300" "$out/bench-quick.json"; then
  elapsed=$((SECONDS - start))
  echo "bench --quick: ${elapsed}s, $(grep "figures in" "$out/bench-quick.txt")"
  [ "$elapsed" -lt 120 ] || failed+=("bench --quick took ${elapsed}s")
else
  tail -20 "$out/bench-quick.txt"; failed+=("bench --quick")
fi

# python_package LABEL PYTHON [pip wheel options]: builds the wheel with PYTHON, installs it in a
# fresh venv and runs tests/python there from outside the source tree, so the installed copy is
# the one imported.  A venv that is given no system site-packages gets the test packages by pip.
python_package() {
  local label=$1 py=$2; shift 2
  local venv="$out/venv-$label" wheels="$out/wheels-$label" site=()
  [ "$label" = "default" ] && site=(--system-site-packages)
  rm -rf "$venv" "$wheels"
  "$py" -m venv "${site[@]}" "$venv" || return 1
  if [ ${#site[@]} -eq 0 ]; then
    "$venv/bin/python" -m pip install -q pytest hypothesis scapy numpy >"$out/python-$label.log" 2>&1 || return 1
  fi
  "$venv/bin/python" -m pip wheel -q "$@" -w "$wheels" "$root" >>"$out/python-$label.log" 2>&1 &&
    "$venv/bin/python" -m pip install -q --no-deps --no-index "$wheels"/inetcsum-*.whl >>"$out/python-$label.log" 2>&1 ||
    { tail -30 "$out/python-$label.log"; return 1; }
  (cd "$out" && "$venv/bin/python" -c "import inetcsum, sys; assert sys.prefix in inetcsum.__file__, inetcsum.__file__" &&
    INETCSUM_CLI="$out/release/cli/inetcsum" INETCSUM_SHARED_DIR="$root/../shared" PYTHONDONTWRITEBYTECODE=1 \
      "$venv/bin/python" -m pytest -q -rs -p no:cacheprovider "$root/tests/python" | tail -n 25)
}

step "Python package: pip wheel, installed in a venv, tests/python against the installed copy"
# The oldest Python the package supports, when this machine has it (pyenv), built as a user would:
# pip wheel . in an isolated build environment.  It is built and tested beside the default one
# (each test run is one process; two CPUs), its output printed after the default one's.
py39=$(ls -d "$(pyenv root 2>/dev/null || echo /nonexistent)"/versions/3.9*/bin/python3.9 2>/dev/null | tail -1 || true)
if [ -n "$py39" ]; then
  rm -f "$out/python-py39.rc"
  ( python_package py39 "$py39" >"$out/python-py39.out" 2>&1; echo $? >"$out/python-py39.rc" ) &
  py39_job=$!
fi
python_package default python3 --no-build-isolation && echo "python package ($(python3 --version)): ok" ||
  failed+=("python package")
"$out/venv-default/bin/python" bench/python_speed.py --quick >"$out/python-speed.txt" 2>&1 &&
  grep -E "^\| (40|1500) \|" "$out/python-speed.txt" || { tail -20 "$out/python-speed.txt"; failed+=("python_speed"); }
if [ -n "$py39" ]; then
  wait "$py39_job" || true
  cat "$out/python-py39.out"
  if [ "$(cat "$out/python-py39.rc" 2>/dev/null)" = 0 ]; then
    echo "python package ($("$py39" --version)): ok"
  else
    failed+=("python package 3.9")
  fi
else
  echo "python package: no Python 3.9 here (pyenv), the oldest supported version not tried"
fi

step "install: pkg-config and find_package consumers"
prefix="$out/prefix"
rm -rf "$prefix" "$out/consumer"
# (the installed command runs the benchmark's program from libexec/, found relative to itself: the
# prefix given here is not the one the build was configured with)
if cmake --install "$out/release" --prefix "$prefix" >"$out/install.log" 2>&1 &&
   PKG_CONFIG_PATH="$prefix/lib/pkgconfig" tests/install/consumer-check.sh "$prefix" "$out/consumer" &&
   { [ ! -x "$prefix/libexec/inetcsum/inetcsum-bench" ] || "$prefix/bin/inetcsum" bench --help >/dev/null; }; then
  echo "install: ok"
else
  tail -40 "$out/install.log"; failed+=("install")
fi

echo
if [ ${#failed[@]} -ne 0 ]; then
  for f in "${findings[@]}"; do echo "$f"; done
  echo "FAILED: ${failed[*]}"
  exit 1
fi
echo "all test builds passed"
