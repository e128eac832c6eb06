#!/usr/bin/env bash
# Simulator speed on two schedules: LLaMA-65B prefill (2048 tokens, tp=4, 4
# stages, 16 slices) on v5e-16, and the same plan with 16 data-parallel
# replicas on v5e-256. loom-bench-simulator times reading the file and the
# simulation apart, in process (medians of 3), and gives events per second
# of the simulation alone; the last columns are a whole `loom-sim` run
# (median of 3) and, as the ratio the noisy machine allows, that run
# against the read measured in the same run; then the simulation with
# every flow of the ring and line steps on its own (SimOptions::everyFlow)
# and its ratio to the bundled one; all of these run every chip
# (SimOptions::everyReplica). Last, the simulation as loom-sim runs it, its
# data-parallel replicas run once for all, and its ratio to every chip's.
# Usage: bench/simulator.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
ninja -C "${1:-$here/../build}" loom-bench-simulator >/dev/null

printf "%-8s %9s %9s %9s %9s %12s %9s %8s %9s %8s %9s %8s\n" slice tasks events "read s" "sim s" "events/s" "run s" "x read" "flows s" "x sim" "once s" "x sim"
for slice in v5e-16 v5e-256; do
  dp=$(( ${slice#v5e-} / 16 ))
  "$bin/loom-import" llama-65b --target "$slice" |
    "$bin/loom-opt" --loom-shard-heads=tp=4 "--loom-partition-layers=stages=4 data-parallel=$dp" \
      --loom-split-tokens=slices=16 --convert-loom-to-sched |
    "$bin/loom-translate" --sched-to-json > "$tmp/s.json"
  tasks=$(grep -c '"kind"' "$tmp/s.json")
  "$bin/../bench/loom-bench-simulator" "$tmp/s.json" --benchmark_format=json \
    --benchmark_repetitions=3 --benchmark_report_aggregates_only=true > "$tmp/b.json" 2>/dev/null
  run=$(for i in 1 2 3; do seconds "$bin/loom-sim" "$tmp/s.json"; done | median)
  python3 - "$tmp/b.json" "$slice" "$tasks" "$run" <<'PY'
import json, sys
path, slice_, tasks, run = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
rows = {b["run_name"]: b for b in json.load(open(path))["benchmarks"]
        if b.get("aggregate_name") == "median"}
read, sim = rows["Read"]["real_time"] / 1e3, rows["Simulate"]["real_time"] / 1e3
every = rows["SimulateEveryFlow"]["real_time"] / 1e3
once = rows["SimulateReplicasOnce"]["real_time"] / 1e3
print("%-8s %9d %9d %9.3f %9.3f %12.0f %9.2f %8.2f %9.3f %8.1f %9.3f %8.2f" % (
    slice_, tasks, rows["Simulate"]["events"], read, sim,
    rows["Simulate"]["events/s"], run, run / read, every, every / sim,
    once, once / sim))
PY
done
