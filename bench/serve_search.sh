#!/usr/bin/env bash
# How long loom-serve's search for the cheapest configuration takes for
# every bundled model (the goal: under 10 s and 2 GB on the 2-core
# reference machine), timed once by /usr/bin/time (wall seconds, peak RSS),
# with a ratio to a baseline measured in the same run (one plan without a
# search: loom-plan, llama-7b, tp 8 on v5e-8, median of three). The
# traffic: an LLM gets 1,000 requests at 4 a second, prompts of 512 tokens
# and 128 generated, targets ttft_p99=2s,tpot_p99=100ms; a diffusion
# transformer 300 requests at 0.5 a second, target e2e_p99=60s. Prints the
# configuration found (or why there is none) and the configurations
# simulated.
# Usage: bench/serve_search.sh [build-dir] [model...]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
shift || true
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  for f in "$here"/../models/*.json; do models+=("$(basename "$f" .json)"); done
fi
baseline() {
  for i in 1 2 3; do
    seconds "$bin/loom-plan" --model llama-7b --target v5e-8 --tp 8
  done | median
}
before=$(baseline)
printf "%-24s %8s %7s %8s %10s  %s\n" model seconds "x base" "peak MB" simulated \
  "cheapest configuration"
over=0
for model in "${models[@]}"; do
  if grep -q '"_class_name"' "$here/../models/$model.json"; then
    args=(--rate 0.5 --requests 300 --slo e2e_p99=60s)
  else
    args=(--rate 4 --requests 1000 --input-len 512 --output-len 128
          --slo ttft_p99=2s,tpot_p99=100ms)
  fi
  /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/loom-serve" --model "$model" \
    "${args[@]}" --search > "$tmp/out" 2>&1 || true
  read -r s kb < <(tail -1 "$tmp/time")
  mb=$((kb / 1024))
  found=$(grep -m1 '^configuration:' "$tmp/out" | sed 's/^configuration: //' || true)
  [ -n "$found" ] || found=$(grep -m1 'error' "$tmp/out" | sed 's/^loom-serve: error: //' | cut -c1-90)
  simulated=$(grep -m1 -o '([0-9]* simulated)' "$tmp/out" | tr -dc 0-9 || true)
  printf "%-24s %8.2f %7.1f %8d %10s  %s\n" "$model" "$s" "$(echo "$s / $before" | bc -l)" \
    "$mb" "${simulated:--}" "$found"
  if (( $(echo "$s > 10" | bc -l) )) || (( mb > 2048 )); then over=$((over + 1)); fi
done
printf "baseline (one plan, llama-7b tp 8 on v5e-8): %.3f s\n" "$before"
printf "runs over their goal: %d\n" "$over"
