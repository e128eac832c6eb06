#!/usr/bin/env bash
# Installs what is missing, builds Loom and runs its main job on bundled
# defaults: the parameter and FLOP summaries of LLaMA-65B and DiT-XL/2, then
# loom-plan's search (its default with no layout given) on LLaMA-65B prefill (2048 tokens) on v5e-16, DiT-XL/2
# at 512 px on v5e-8 and Flux-dev at 1024 px on v5e-16, writing each
# winner's Perfetto trace and SVG timeline to demo-out/ (Flux-dev's trace
# keeps its first stage only: the whole run would be about 150 MB).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

loom_build loom-import loom-opt loom-plan
out="$LOOM_ROOT/demo-out"
mkdir -p "$out"
for model in llama-65b dit-xl-2; do
  echo
  echo "==> $model: one forward pass"
  "$LOOM_BUILD/bin/loom-import" "$model" |
    "$LOOM_BUILD/bin/loom-opt" --loom-model-summary=per-layer=false -o /dev/null
done
plan() { # name, loom-plan arguments...
  local name=$1; shift
  echo
  echo "==> loom-plan $*"
  "$LOOM_BUILD/bin/loom-plan" "$@" \
    --trace "$out/$name.trace.json" --svg "$out/$name.svg"
}
plan llama-65b --model llama-65b --target v5e-16 --seq 2048
plan dit-xl-2 --model dit-xl-2 --target v5e-8 --resolution 512
plan flux-dev --model flux-dev --target v5e-16 --resolution 1024 --trace-stages 0
echo
echo "Traces (open in https://ui.perfetto.dev) and timelines are in $out/"
