#!/usr/bin/env bash
# Serving iterations priced by Loom's cost model against loom-sim: each
# step of bench/ServeCostBench.cpp priced by PlannedIterationCost (the
# replica's layout, tp over the slice) beside loom-plan's simulated step of
# the same batch planned on its own; the goal is within 2%. Then 10,000
# requests simulated with those costs (goal: under 2 s).
# Usage: bench/serve_cost.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
ninja -C "${1:-$here/../build}" loom-bench-serve-cost >/dev/null
"$bin/../bench/loom-bench-serve-cost"
