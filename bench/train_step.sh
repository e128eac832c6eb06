#!/usr/bin/env bash
# MaxText's published v5e training configurations (16B, 32B, 64B on one
# v5e-256), each training step derived, lowered and simulated, its MFU by
# MaxText's formula beside the published one (bench/train_step.py says
# how). Nothing is fitted here.
# Usage: bench/train_step.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
ninja -C "$build" loom-import loom-opt loom-translate loom-sim >/dev/null
exec python3 "$here/train_step.py" "$build"
