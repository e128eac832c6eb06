#!/usr/bin/env bash
# Times the cost model's hot calls and prints each as a ratio to a baseline
# measured in the same run (a bare roofline: one division and a max).
# Usage: bench/cost_model.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
ninja -C "$build" loom-bench-cost-model >/dev/null
"$build/bench/loom-bench-cost-model" --benchmark_format=json \
  --benchmark_repetitions=5 --benchmark_report_aggregates_only=true 2>/dev/null |
  python3 "$here/ratio_table.py" Baseline
