#!/usr/bin/env bash
# Installs what is missing, builds Loom and runs every test: lit's
# regression tests, then ctest (the GoogleTest suites and lit again as one
# ctest test), whose summary line comes last.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

loom_build
echo "==> lit"
"$LLVM_PREFIX/bin/lit" -sv "$LOOM_BUILD/test"
echo "==> ctest"
ctest --test-dir "$LOOM_BUILD" --output-on-failure
