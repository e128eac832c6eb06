#!/usr/bin/env bash
# Lowering LLaMA-65B (80 layers, tp=4, 4 stages, 16 slices) to the schedule
# file on v5e-16 (one replica) and v5e-256 (16 data-parallel replicas):
# time and output size, with the sched IR passed between loom-opt and
# loom-translate as text and as MLIR bytecode (--emit-bytecode). Times are
# medians of 3 and are reported as ratios to the planning passes (shard,
# partition, split) measured in the same run, since this machine is noisy.
# Usage: bench/lowering.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"


printf "%-8s %6s %9s %8s %9s %11s %9s %11s\n" slice chips tasks "JSON MB" \
  "text s" "x planning" "bytecode s" "x planning"
for slice in v5e-16 v5e-256; do
  chips=${slice#v5e-}
  dp=$((chips / 16))
  plan=(--loom-shard-heads=tp=4 "--loom-partition-layers=stages=4 data-parallel=$dp"
        --loom-split-tokens=slices=16)
  "$bin/loom-import" llama-65b --target "$slice" > "$tmp/model.mlir"
  "$bin/loom-opt" "$tmp/model.mlir" "${plan[@]}" -o "$tmp/planned.mlir"
  planning=$(for i in 1 2 3; do
    seconds "$bin/loom-opt" "$tmp/model.mlir" "${plan[@]}" -o "$tmp/p.mlir"; done | median)
  lower() { # --emit-bytecode or nothing
    seconds sh -c "'$bin/loom-opt' '$tmp/planned.mlir' --convert-loom-to-sched $1 | '$bin/loom-translate' --sched-to-json > '$tmp/s.json'"
  }
  text=$(for i in 1 2 3; do lower ""; done | median)
  tasks=$(grep -c '"kind"' "$tmp/s.json")
  bytecode=$(for i in 1 2 3; do lower --emit-bytecode; done | median)
  mb=$(echo "$(stat -c %s "$tmp/s.json") / 1000000" | bc -l)
  printf "%-8s %6s %9s %8.1f %9.2f %11.1f %9.2f %11.1f\n" "$slice" "$chips" "$tasks" "$mb" \
    "$text" "$(echo "$text / $planning" | bc -l)" \
    "$bytecode" "$(echo "$bytecode / $planning" | bc -l)"
done
