#!/usr/bin/env bash
# Times TeraPipe's slicing DP (loom::sliceTokens) on 2048 tokens at
# granularity 1 and 8 for K = 4..48 stages, and prints each case as a ratio
# to the best uniform slicing of the same case measured in the same run.
# Usage: bench/slicing.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
ninja -C "$build" loom-bench-slicing >/dev/null
"$build/bench/loom-bench-slicing" --benchmark_format=json \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true 2>/dev/null |
  python3 -c "$(cat <<'PY'
import json, sys
rows = {b["run_name"]: b["cpu_time"] for b in json.load(sys.stdin)["benchmarks"]
        if b.get("aggregate_name") == "median"}
print("%-16s %14s %14s %12s" % ("case g/K", "TeraPipe ms", "uniform ms", "x uniform"))
for name, ns in rows.items():
    if name.startswith("TeraPipe/"):
        case = name.split("/", 1)[1]
        base = rows["Uniform/" + case]
        print("%-16s %14.3f %14.4f %12.0f" % (case, ns / 1e6, base / 1e6, ns / base))
PY
)"
