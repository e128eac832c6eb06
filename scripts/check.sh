#!/usr/bin/env bash
# Installs what is missing, builds Loom and runs every test: lit's
# regression tests, then ctest (the GoogleTest suites, the embedding example
# and the fuzz targets' replay of their corpora), whose summary line comes
# last. ctest's own `lit` test, which runs the same lit suite, is left out
# here: lit has just run, and the suite is the longest part of the check.
#
# --sanitize builds with AddressSanitizer and UndefinedBehaviorSanitizer into
# build-sanitize/ (LOOM_SANITIZE_BUILD_DIR overrides it) and runs the same
# tests there; the workarounds Debian's uninstrumented LLVM needs are in
# CMakeLists.txt (LOOM_SANITIZE).
set -euo pipefail
sanitize=0
case "${1:-}" in
  "") ;;
  --sanitize) sanitize=1 ;;
  *) echo "usage: scripts/check.sh [--sanitize]" >&2; exit 2 ;;
esac
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

if [ "$sanitize" = 1 ]; then
  LOOM_BUILD=${LOOM_SANITIZE_BUILD_DIR:-$LOOM_ROOT/build-sanitize}
  LOOM_CMAKE_ARGS=(-DLOOM_SANITIZE=ON)
  # Also set by the build's lit config and ctest properties; here for
  # anything else the tests start.
  export ASAN_OPTIONS=allow_user_poisoning=0
  export UBSAN_OPTIONS=print_stacktrace=1
fi

loom_build
echo "==> lit ($LOOM_BUILD)"
"$LLVM_PREFIX/bin/lit" -sv "$LOOM_BUILD/test"
echo "==> ctest ($LOOM_BUILD)"
ctest --test-dir "$LOOM_BUILD" --output-on-failure -j"${LOOM_JOBS:-2}" -E '^lit$'
