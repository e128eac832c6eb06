#!/usr/bin/env bash
# Builds Loom's fuzz targets as libFuzzer fuzzers (clang-22, with ASan and
# UBSan) into build-fuzz/ (LOOM_FUZZ_BUILD_DIR overrides it) and runs each
# for SECONDS (default 60), one after another, from its seed corpus
# fuzz/corpus/<target>. Inputs that reach new code go to
# build-fuzz/corpus/<target>; an input that crashes, times out (10 s) or
# breaks a target's invariant is saved in fuzz/regressions/<target>/, where
# ctest replays it from then on, and the run stops with a non-zero exit.
# Installs clang-22 and libclang-rt-22-dev (libFuzzer and the sanitizer
# runtimes) when they are missing. docs/fuzzing.md says more.
#
# usage: scripts/fuzz.sh [SECONDS] [TARGET...]   (targets: config target schedule ir plan serve)
set -euo pipefail
seconds=${1:-60}
shift || true
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(config target schedule ir plan serve)
case "$seconds" in
  ''|*[!0-9]*) echo "usage: scripts/fuzz.sh [SECONDS] [TARGET...]" >&2; exit 2 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"
LOOM_BUILD=${LOOM_FUZZ_BUILD_DIR:-$LOOM_ROOT/build-fuzz}

# Fuzzing needs Debian's clang-22 and its compiler-rt (libFuzzer, ASan,
# UBSan) on top of what every build needs.
loom_packages+=(clang-22 libclang-rt-22-dev)
# grep reads all of its input (no -q): under pipefail, a grep -q that exits
# at its first match makes the writer die of SIGPIPE and the test fail.
for pkg in clang-22 libclang-rt-22-dev; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep "install ok installed" >/dev/null &&
     ! apt-cache policy "$pkg" 2>/dev/null | grep "Candidate: [0-9]" >/dev/null; then
    echo "scripts/fuzz.sh: $pkg is not installed and apt has no candidate for it" \
         "(apt-get update, or add the bookworm-security or apt.llvm.org source)" >&2
    exit 1
  fi
done
loom_install_packages
if [ ! -f "$LOOM_BUILD/build.ninja" ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                            -DCMAKE_C_COMPILER_LAUNCHER=ccache)
  echo "==> configuring $LOOM_BUILD (clang-22, libFuzzer, ASan, UBSan)"
  cmake -G Ninja -S "$LOOM_ROOT" -B "$LOOM_BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=$LLVM_PREFIX/lib/cmake/mlir \
    -DLOOM_FUZZ=ON -DLOOM_SANITIZE=ON -DLOOM_BUILD_TESTS=OFF \
    "${launcher[@]}"
fi
echo "==> building"
ninja -C "$LOOM_BUILD" -j"${LOOM_JOBS:-2}" "${targets[@]/#/loom-fuzz-}"

# Debian's LLVM is not instrumented (CMakeLists.txt, LOOM_SANITIZE).
export ASAN_OPTIONS=allow_user_poisoning=0
for target in "${targets[@]}"; do
  echo "==> fuzzing $target for $seconds s"
  mkdir -p "$LOOM_BUILD/corpus/$target" "$LOOM_ROOT/fuzz/regressions/$target"
  "$LOOM_BUILD/bin/loom-fuzz-$target" -max_total_time="$seconds" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$LOOM_ROOT/fuzz/regressions/$target/" \
    "$LOOM_BUILD/corpus/$target" "$LOOM_ROOT/fuzz/corpus/$target"
done
