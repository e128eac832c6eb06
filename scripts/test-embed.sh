#!/usr/bin/env bash
# Installs Loom from BUILD into BUILD/install, then configures, builds and
# tests examples/embed against that installed package only: the check that
# other compilers can find_package(Loom). Run by ctest (test embed-example).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: test-embed.sh BUILD-DIR}" && pwd)
prefix=$build/install
cmake --install "$build" --prefix "$prefix" > /dev/null
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                           -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/embed/build.ninja" ]; then
  cmake -G Ninja -S "$root/examples/embed" -B "$build/embed" \
    -DCMAKE_BUILD_TYPE=Release -DLoom_DIR="$prefix/lib/cmake/loom" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir "${launcher[@]}" > /dev/null
fi
ninja -C "$build/embed" -j"${LOOM_JOBS:-2}" > /dev/null
ctest --test-dir "$build/embed" --output-on-failure
