#!/usr/bin/env bash
# MaxText's published v5e training configurations on one v5e-256: the
# layout as MaxText configures it, priced by Loom's simulator, beside
# loom-plan --mode train's search winner (bench/train_quality.py says
# how). Nothing is fitted.
# Usage: bench/train_quality.sh [build-dir [script...]] > table.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
ninja -C "$build" loom-plan >/dev/null
exec python3 "$here/train_quality.py" "$build" "${@:2}"
