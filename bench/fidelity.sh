#!/usr/bin/env bash
# Fidelity of loom-sim against published TPU v5e measurements
# (targets/tpu-v5e-measurements.json): one schedule per case Loom can
# simulate, run on loom-sim with the calibrated bundled target, and a
# markdown table of measured, simulated and error, with the geometric mean
# of |error|, and leave-one-out (each case predicted from a refit without
# it, bench/calibrate.py). bench/fidelity.py does the work.
# Usage: bench/fidelity.sh [build-dir] [measurements.json]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
measurements=${2:-$here/../targets/tpu-v5e-measurements.json}
ninja -C "$build" loom-sim >/dev/null
exec python3 "$here/fidelity.py" "$build/bin/loom-sim" "$measurements"
