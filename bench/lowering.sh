#!/usr/bin/env bash
# Lowering LLaMA-65B (80 layers, tp=4, 4 stages, 16 slices) to the schedule
# file on v5e-16 (one replica) and v5e-256 (16 data-parallel replicas):
# time and output size. Times are medians of 3 and are reported as ratios
# to the planning passes (import, shard, partition, split) measured in the
# same run, since this machine is noisy.
# Usage: bench/lowering.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"


printf "%-8s %10s %10s %12s %12s %10s\n" slice chips tasks "JSON MB" "lower s" "x planning"
for slice in v5e-16 v5e-256; do
  chips=${slice#v5e-}
  dp=$((chips / 16))
  plan=(--loom-shard-heads=tp=4 "--loom-partition-layers=stages=4 data-parallel=$dp"
        --loom-split-tokens=slices=16)
  "$bin/loom-import" llama-65b --target "$slice" > "$tmp/model.mlir"
  "$bin/loom-opt" "$tmp/model.mlir" "${plan[@]}" -o "$tmp/planned.mlir"
  planning=$(for i in 1 2 3; do
    seconds "$bin/loom-opt" "$tmp/model.mlir" "${plan[@]}" -o "$tmp/p.mlir"; done | median)
  lowering=$(for i in 1 2 3; do
    seconds sh -c "'$bin/loom-opt' '$tmp/planned.mlir' --convert-loom-to-sched | '$bin/loom-translate' --sched-to-json > '$tmp/s.json'"; done | median)
  tasks=$(grep -c '"kind"' "$tmp/s.json")
  mb=$(echo "$(stat -c %s "$tmp/s.json") / 1000000" | bc -l)
  printf "%-8s %10s %10s %12.1f %12.2f %10.1f\n" "$slice" "$chips" "$tasks" "$mb" "$lowering" \
    "$(echo "$lowering / $planning" | bc -l)"
done
