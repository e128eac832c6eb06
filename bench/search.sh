#!/usr/bin/env bash
# How long loom-plan's default search takes, and how much memory it needs,
# for every bundled model on every v5e slice from 4 to 256 chips (the goal:
# under 10 s and 2 GB on the 2-core reference machine). Each run is
# `loom-plan --model M --target v5e-N` with the model's default workload,
# timed once by /usr/bin/time (wall seconds, peak RSS). As this machine is
# noisy, each time is also given as a ratio to a baseline measured in the
# same run: one plan without a search (llama-7b, tp 8 on v5e-8), the median
# of three taken before and after the sweep.
# Prints, per model, its slowest and its largest run, the runs past either
# goal, and the slices whose winner was not simulated (the report's
# "simulated:  no"); a model that fits no slice of a size says so. Then larger
# workloads on v5e-256: the largest video DiT at 720p and DeepSeek-V3's
# batched decode (the same goals), and the training step of a 70B model
# (Llama 2 70B, 512 sequences of 2048 tokens; the goal: under 60 s).
# Usage: bench/search.sh [build-dir] [model...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
shift || true
models=("$@")
all=$((${#models[@]} == 0))
if [ ${#models[@]} -eq 0 ]; then
  for f in "$here"/../models/*.json; do models+=("$(basename "$f" .json)"); done
fi
slices=(4 8 16 32 64 128 256)

baseline() {
  for i in 1 2 3; do
    seconds "$bin/loom-plan" --model llama-7b --target v5e-8 --tp 8
  done | median
}
before=$(baseline)

printf "%-24s %-9s %8s %7s %-9s %8s %-8s %s\n" model slowest seconds "x base" largest "peak MB" \
  unsim "over the goal (10 s or 2 GB)"
over_all=0 unsim_all=0
# The winner of the run whose report is $tmp/out was not simulated.
unsimulated() { grep -q "^  simulated:  no" "$tmp/out"; }
for model in "${models[@]}"; do
  worst_s=0 worst_s_slice=- worst_m=0 worst_m_slice=- over="" unsim=""
  for n in "${slices[@]}"; do
    if ! /usr/bin/time -f "%e %M" -o "$tmp/time" \
         "$bin/loom-plan" --model "$model" --target "v5e-$n" > "$tmp/out" 2>&1; then
      # No plan fits (too little memory on a small slice): still timed.
      :
    fi
    # (A failed run's first line says so; the figures are the last.)
    read -r s kb < <(tail -1 "$tmp/time")
    mb=$((kb / 1024))
    if (( $(echo "$s > $worst_s" | bc -l) )); then worst_s=$s worst_s_slice=v5e-$n; fi
    if (( mb > worst_m )); then worst_m=$mb worst_m_slice=v5e-$n; fi
    if (( $(echo "$s > 10" | bc -l) )) || (( mb > 2048 )); then
      over+=" v5e-$n (${s} s, ${mb} MB)"
      over_all=$((over_all + 1))
    fi
    if unsimulated; then
      unsim+="${unsim:+,}$n"
      unsim_all=$((unsim_all + 1))
    fi
  done
  printf "%-24s %-9s %8.2f %7.1f %-9s %8d %-8s %s\n" "$model" "$worst_s_slice" "$worst_s" \
    "$(echo "$worst_s / $before" | bc -l)" "$worst_m_slice" "$worst_m" "${unsim:--}" "${over:--}"
done
# Larger workloads than the defaults, on v5e-256, and their goal in
# seconds.
extra() {
  local name=$1 limit=$2; shift 2
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/loom-plan" "$@" --target v5e-256 \
    > "$tmp/out" 2>&1 || true
  read -r s kb < <(tail -1 "$tmp/time")
  mb=$((kb / 1024))
  local over=-
  if (( $(echo "$s > $limit" | bc -l) )) || (( mb > 2048 )); then
    over="v5e-256 (${s} s, ${mb} MB)"
    over_all=$((over_all + 1))
  fi
  local unsim=-
  if unsimulated; then
    unsim=256
    unsim_all=$((unsim_all + 1))
  fi
  printf "%-24s %-9s %8.2f %7.1f %-9s %8d %-8s %s\n" "$name" v5e-256 "$s" \
    "$(echo "$s / $before" | bc -l)" v5e-256 "$mb" "$unsim" "$over"
}
if [ "$all" = 1 ] || [[ " ${models[*]} " == *" wan21-t2v-14b "* ]]; then
  extra "wan21-t2v-14b 720p" 10 --model wan21-t2v-14b --height 720 --width 1280
fi
if [ "$all" = 1 ] || [[ " ${models[*]} " == *" deepseek-v3 "* ]]; then
  extra "deepseek-v3 decode b256" 10 --model deepseek-v3 --mode decode --batch 256 --seq 2048
fi
if [ "$all" = 1 ] || [[ " ${models[*]} " == *" llama2-70b "* ]]; then
  extra "llama2-70b train b512" 60 --model llama2-70b --mode train --batch 512 --seq 2048
fi
after=$(baseline)
printf "baseline (one plan, llama-7b tp 8 on v5e-8): %.3f s before, %.3f s after the sweep\n" \
  "$before" "$after"
printf "runs over their goal: %d\n" "$over_all"
printf "runs whose winner was not simulated: %d\n" "$unsim_all"
