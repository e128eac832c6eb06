#!/usr/bin/env bash
# Installs Loom from BUILD into BUILD/install, then configures, builds and
# tests examples/embed against that installed package only: the check that
# other compilers can find_package(Loom). Run by ctest (test embed-example).
# FLAGS (optional) are the compile and link flags Loom was built with beyond
# the defaults: a sanitized Loom (LOOM_SANITIZE) links only into code built
# with the same -fsanitize flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:?usage: test-embed.sh BUILD-DIR [FLAGS]}" && pwd)
flags=${2:-}
prefix=$build/install
cmake --install "$build" --prefix "$prefix" > /dev/null
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache
                                           -DCMAKE_C_COMPILER_LAUNCHER=ccache)
if [ ! -f "$build/embed/build.ninja" ]; then
  cmake -G Ninja -S "$root/examples/embed" -B "$build/embed" \
    -DCMAKE_BUILD_TYPE=Release -DLoom_DIR="$prefix/lib/cmake/loom" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir "${launcher[@]}" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" > /dev/null
fi
ninja -C "$build/embed" -j"${LOOM_JOBS:-2}" > /dev/null
ctest --test-dir "$build/embed" --output-on-failure
