#!/usr/bin/env bash
# End-to-end LLM prefill and decode on v5e against Loom:
# every end_to_end case of targets/tpu-v5e-measurements.json with a "loom"
# object, run through loom-plan as Loom would run it and as the measured
# runtime ran it (its attention and device order); a markdown table of
# measured, Loom and their
# ratio. bench/end_to_end.py does the work. Nothing is fitted here.
# Usage: bench/end_to_end.sh [build-dir] [measurements.json]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
measurements=${2:-$here/../targets/tpu-v5e-measurements.json}
ninja -C "$build" loom-plan >/dev/null
exec python3 "$here/end_to_end.py" "$build/bin/loom-plan" "$measurements"
