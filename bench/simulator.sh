#!/usr/bin/env bash
# Simulator speed on two schedules: LLaMA-65B prefill (2048 tokens, tp=4, 4
# stages, 16 slices) on v5e-16, and the same plan with 16 data-parallel
# replicas on v5e-256. Prints events per second of the simulation alone
# (the run minus reading the file, both medians of 3) and, as the ratio the
# noisy machine allows, the whole run against reading and validating the
# file (loom-sim --check) in the same run.
# Usage: bench/simulator.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"

printf "%-8s %10s %10s %10s %10s %14s %10s\n" slice tasks events "read s" "run s" "events/s" "x read"
for slice in v5e-16 v5e-256; do
  dp=$(( ${slice#v5e-} / 16 ))
  "$bin/loom-import" llama-65b --target "$slice" |
    "$bin/loom-opt" --loom-shard-heads=tp=4 "--loom-partition-layers=stages=4 data-parallel=$dp" \
      --loom-split-tokens=slices=16 --convert-loom-to-sched |
    "$bin/loom-translate" --sched-to-json > "$tmp/s.json"
  tasks=$(grep -c '"kind"' "$tmp/s.json")
  events=$("$bin/loom-sim" "$tmp/s.json" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  read=$(for i in 1 2 3; do seconds "$bin/loom-sim" "$tmp/s.json" --check; done | median)
  run=$(for i in 1 2 3; do seconds "$bin/loom-sim" "$tmp/s.json"; done | median)
  rate=$(echo "$events / ($run - $read)" | bc -l)
  printf "%-8s %10s %10s %10.2f %10.2f %14.0f %10.2f\n" "$slice" "$tasks" "$events" "$read" "$run" "$rate" \
    "$(echo "$run / $read" | bc -l)"
done
