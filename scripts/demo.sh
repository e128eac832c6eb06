#!/usr/bin/env bash
# Installs what is missing, builds Loom and runs its main job on the bundled
# defaults: imports LLaMA-65B (2048-token prefill) and DiT-XL/2 (256 px) and
# prints each model's parameters, forward FLOPs and bytes of weights,
# activations and KV cache.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/setup.sh"

loom_build loom-import loom-opt
for model in llama-65b dit-xl-2; do
  echo
  echo "==> $model"
  "$LOOM_BUILD/bin/loom-import" "$model" |
    "$LOOM_BUILD/bin/loom-opt" --loom-model-summary=per-layer=false -o /dev/null
done
