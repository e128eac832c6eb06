#!/usr/bin/env bash
# The serving simulator's speed: 10,000 requests (Poisson at 8 requests/s,
# lengths from data/serving's Azure 2023 conversation histograms) simulated
# on each engine, LLaMA-7B on v5e-4 priced by the roofline.
# loom-bench-serve (bench/ServeBench.cpp) times each simulation in process
# (median of 3) against the baseline measured in the same run, generating
# the 10,000 requests; it also reports each run's iterations and tail
# latencies, so that a change of speed can be told from a change of what
# was simulated. The goal is under 2 s per simulation.
# Usage: bench/serve.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
ninja -C "${1:-$here/../build}" loom-bench-serve >/dev/null

"$bin/../bench/loom-bench-serve" "$here/../data/serving" --benchmark_format=json \
  --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$tmp/b.json" 2>/dev/null
python3 - "$tmp/b.json" <<'PY'
import json, sys
rows = {b["run_name"]: b for b in json.load(open(sys.argv[1]))["benchmarks"]
        if b.get("aggregate_name") == "median"}
base = rows["Baseline"]["real_time"]
print("%-14s %9s %11s %9s %11s %12s %13s" % (
    "engine", "requests", "iterations", "sim ms", "x baseline", "TTFT p99 s", "TPOT p99 ms"))
print("%-14s %9d %11s %9.2f %11.1f %12s %13s" % ("Baseline", 10000, "-", base, 1.0, "-", "-"))
for name in ["JetStream", "Chunked", "PrefillFirst", "Disaggregated"]:
    r = rows[name]
    print("%-14s %9d %11d %9.2f %11.1f %12.3f %13.2f" % (
        name, 10000, r["iterations"], r["real_time"], r["real_time"] / base,
        r["ttft_p99_s"], r["tpot_p99_ms"]))
PY
