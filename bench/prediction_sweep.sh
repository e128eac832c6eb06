#!/usr/bin/env bash
# Prediction against simulation (the goal: within 2%): loom-plan on
# a fixed grid of plans over the bundled models (dense LLMs, a MoE, DiTs)
# and slices v5e-4 .. v5e-64 -- tp, stages, virtual stages, slices or
# patches, Ulysses and ring sp, placements, batches, decode -- printing per
# case the predicted (closed forms, lib/Analysis/PipelinePrediction.cpp) and the
# simulated time (loom-sim's engine on the lowered schedule) and the error,
# simulated / predicted - 1 (the sign loom-plan's report gives: + means the
# simulator is slower than predicted), sorted by |error|, then a summary
# line. Deterministic (the plans are fixed, the simulator is); about 20
# seconds on the 2-core reference machine (LOOM_SWEEP_JOBS runs that many
# cases at once, default 2). LOOM_PLAN names another loom-plan binary (a
# build of an older commit, for a before / after table).
# Usage: bench/prediction_sweep.sh [build-dir]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/common.sh"
plan=${LOOM_PLAN:-$bin/loom-plan}
# LLaMA-3.2-1B's shape (meta-llama/Llama-3.2-1B config.json: 16 layers of
# 2048, 32 heads of 64, 8 KV heads, d_ff 8192, tied embeddings), not
# bundled: its one-layer chunks make a handover per layer.
llama1b=$here/configs/llama3.2-1b.json

# One case a line: a label, a tab, loom-plan's arguments (--json is added).
cases() {
  local m
  # A small dense LLM whose handovers cross the tp rings every layer.
  for v in 1 2 4 8; do
    printf 'llama3.2-1b v5e-8 tp 4 x 2 stages x %d virtual, 4 slices\t--model %s --target v5e-8 --tp 4 --stages 2 --virtual-stages %d --slices 4\n' "$v" "$llama1b" "$v"
  done
  printf 'llama3.2-1b v5e-8 tp 2 x 4 stages x 4 virtual, 4 slices\t--model %s --target v5e-8 --tp 2 --stages 4 --virtual-stages 4 --slices 4\n' "$llama1b"
  printf 'llama3.2-1b v5e-16 tp 2 x 8 stages x 2 virtual, 8 slices\t--model %s --target v5e-16 --tp 2 --stages 8 --virtual-stages 2 --slices 8\n' "$llama1b"
  printf 'llama3.2-1b v5e-16 tp 2 x 8 stages x 2 virtual, ring\t--model %s --target v5e-16 --tp 2 --stages 8 --virtual-stages 2 --slices 8 --placement 1x2,tp_1x2_inside_sp,stages_in_ring\n' "$llama1b"
  # LLaMA-7B: tp alone, pipelines, sp, decode.
  printf 'llama-7b v5e-4 tp 4\t--model llama-7b --target v5e-4 --tp 4\n'
  printf 'llama-7b v5e-8 tp 8 + sp, collective matmuls\t--model llama-7b --target v5e-8 --tp 8 --sequence-parallel --decompose\n'
  printf 'llama-7b v5e-8 tp 4 x 2 stages, auto slices\t--model llama-7b --target v5e-8 --tp 4 --stages 2 --slices auto\n'
  printf 'llama-7b v5e-8 tp 2 x 4 stages x 2 virtual, 8 slices\t--model llama-7b --target v5e-8 --tp 2 --stages 4 --virtual-stages 2 --slices 8\n'
  printf 'llama-7b v5e-8 tp 4 x 2 stages, 2 slices interleaved\t--model llama-7b --target v5e-8 --tp 4 --stages 2 --slices 4 --interleave 2\n'
  printf 'llama-7b v5e-16 tp 2 x 8 stages x 2 virtual, ring\t--model llama-7b --target v5e-16 --seq 512 --tp 2 --stages 8 --virtual-stages 2 --placement 1x2,tp_1x2_inside_sp,stages_in_ring\n'
  printf 'llama-7b v5e-16 tp 4 x dp 4 decode, batch 32\t--model llama-7b --target v5e-16 --mode decode --batch 32 --seq 2000 --tp 4 --data-parallel 4\n'
  printf 'llama-7b v5e-8 tp 4 x 2 stages decode, batch 16\t--model llama-7b --target v5e-8 --mode decode --batch 16 --seq 2000 --tp 4 --stages 2\n'
  printf 'llama3.1-8b v5e-8 tp 2 x sp 4 Ulysses, 16k\t--model llama3.1-8b --target v5e-8 --seq 16384 --tp 2 --sp 4 --sp-mode ulysses\n'
  printf 'llama3.1-8b v5e-8 tp 2 x sp 4 ring, 16k\t--model llama3.1-8b --target v5e-8 --seq 16384 --tp 2 --sp 4 --sp-mode ring\n'
  printf 'qwen3-8b v5e-16 tp 2 x sp 4 Ulysses x 2 stages, 4k\t--model qwen3-8b --target v5e-16 --seq 4096 --tp 2 --sp 4 --sp-mode ulysses --stages 2 --slices 2\n'
  printf 'qwen3-8b v5e-16 tp 4 x sp 4 ring, 4k\t--model qwen3-8b --target v5e-16 --seq 4096 --tp 4 --sp 4 --sp-mode ring\n'
  printf 'gemma2-9b v5e-8 tp 8 x 1, batch 4\t--model gemma2-9b --target v5e-8 --batch 4 --tp 8\n'
  # LLaMA-65B and GPT-3 175B: the headline pipelines and their placements.
  printf 'llama-65b v5e-16 tp 4 x 4 stages x 4 virtual, collective matmuls\t--model llama-65b --target v5e-16 --tp 4 --stages 4 --virtual-stages 4 --slices 4 --decompose\n'
  printf 'llama-65b v5e-16 tp 4 x 4 stages, auto slices\t--model llama-65b --target v5e-16 --tp 4 --stages 4 --slices auto\n'
  printf 'llama-65b v5e-16 tp 16 2-D\t--model llama-65b --target v5e-16 --tp 16 --tp-layout=2d\n'
  printf 'llama-65b v5e-16 batch 8, tp 4 x 4 stages x 4 virtual + sp, 4 microbatches\t--model llama-65b --target v5e-16 --batch 8 --tp 4 --stages 4 --virtual-stages 4 --sequence-parallel --microbatches 4 --slices auto\n'
  printf 'llama-65b v5e-16 decode batch 16, tp 4 x 4 stages\t--model llama-65b --target v5e-16 --mode decode --batch 16 --seq 2000 --tp 4 --stages 4\n'
  printf 'llama-65b v5e-16 decode batch 16, tp 4 x 4 stages, 4 microbatches\t--model llama-65b --target v5e-16 --mode decode --batch 16 --seq 2000 --tp 4 --stages 4 --microbatches 4\n'
  printf 'llama-65b v5e-64 tp 8 x 8 stages x 2 virtual, snake\t--model llama-65b --target v5e-64 --tp 8 --stages 8 --virtual-stages 2 --slices 8\n'
  printf 'llama-65b v5e-64 tp 8 x 8 stages x 2 virtual, ring\t--model llama-65b --target v5e-64 --tp 8 --stages 8 --virtual-stages 2 --slices 8 --placement 2x4,tp_2x4_inside_sp,stages_in_ring\n'
  # Megatron's scattered handovers (each tp rank sends 1/tp, the next
  # stage all-gathers), where the full copies above cross the tp rings.
  printf 'llama3.2-1b v5e-8 tp 4 x 2 stages x 8 virtual, scattered handovers\t--model %s --target v5e-8 --tp 4 --stages 2 --virtual-stages 8 --slices 4 --scatter-handover\n' "$llama1b"
  printf 'llama-65b v5e-64 tp 8 x 8 stages x 2 virtual, snake, scattered handovers\t--model llama-65b --target v5e-64 --tp 8 --stages 8 --virtual-stages 2 --slices 8 --scatter-handover\n'
  printf 'gpt3-175b v5e-64 tp 8 x 8 stages x 4 virtual, snake, scattered handovers\t--model gpt3-175b --target v5e-64 --tp 8 --stages 8 --virtual-stages 4 --slices 8 --decompose --scatter-handover\n'
  printf 'gpt3-175b v5e-32 tp 4 x 8 stages\t--model gpt3-175b --target v5e-32 --tp 4 --stages 8 --slices 8\n'
  printf 'gpt3-175b v5e-64 tp 8 x 8 stages x 4 virtual, snake\t--model gpt3-175b --target v5e-64 --tp 8 --stages 8 --virtual-stages 4 --slices 8 --decompose\n'
  printf 'gpt3-175b v5e-64 tp 8 x 8 stages x 4 virtual, ring\t--model gpt3-175b --target v5e-64 --tp 8 --stages 8 --virtual-stages 4 --slices 8 --decompose --placement 2x4,tp_2x4_inside_sp,stages_in_ring\n'
  # Mixtures of experts.
  printf 'mixtral-8x7b v5e-8 tp 8 ep 8\t--model mixtral-8x7b --target v5e-8 --tp 8 --ep 8\n'
  printf 'mixtral-8x7b v5e-16 tp 8 ep 8 x 2 stages\t--model mixtral-8x7b --target v5e-16 --tp 8 --ep 8 --stages 2 --slices auto\n'
  printf 'qwen3-30b-a3b v5e-8 tp 4 ep 4 x 2 stages\t--model qwen3-30b-a3b --target v5e-8 --tp 4 --ep 4 --stages 2 --slices auto\n'
  # An expert-parallel group of its own beside tp (its all-to-alls over
  # "ep"), on the rule's and a strided placement, decode and batched prefill.
  printf 'mixtral-8x7b v5e-16 tp 4 x ep 4 own group, decode b64\t--model mixtral-8x7b --target v5e-16 --mode decode --batch 64 --seq 2048 --tp 4 --ep 4 --ep-layout=data\n'
  printf 'mixtral-8x7b v5e-16 tp 4 x ep 4 own group, tp 2x2 inside ep, decode b64\t--model mixtral-8x7b --target v5e-16 --mode decode --batch 64 --seq 2048 --tp 4 --ep 4 --ep-layout=data --placement 4x4,tp_2x2_inside_ep\n'
  printf 'mixtral-8x7b v5e-16 tp 2 x ep 4 own group x 2 stages, prefill b8\t--model mixtral-8x7b --target v5e-16 --batch 8 --seq 2048 --tp 2 --ep 4 --ep-layout=data --stages 2 --slices auto\n'
  # DiTs: PipeFusion patches, Ulysses, data parallelism, placements.
  printf 'dit-xl-2 v5e-8 tp 1 x 4 stages x dp 2, 4 patches\t--model dit-xl-2 --target v5e-8 --resolution 512 --tp 1 --stages 4 --data-parallel 2 --slices 4\n'
  printf 'dit-xl-2 v5e-8 dp 2 x sp 4\t--model dit-xl-2 --target v5e-8 --resolution 512 --data-parallel 2 --sp 4\n'
  printf 'dit-xl-2 v5e-8 tp 2 x sp 4, sp 2x2 inside tp\t--model dit-xl-2 --target v5e-8 --resolution 256 --steps 4 --tp 2 --sp 4 --placement 2x4,sp_2x2_inside_tp\n'
  printf 'flux-dev v5e-16 tp 4 x 4 stages, 4 patches\t--model flux-dev --target v5e-16 --steps 4 --tp 4 --stages 4 --slices 4\n'
  printf 'flux-dev v5e-16 sp 4 x 4 stages\t--model flux-dev --target v5e-16 --steps 4 --sp 4 --stages 4\n'
  printf 'flux-schnell v5e-4 sp 2 x 2 stages\t--model flux-schnell --target v5e-4 --steps 4 --sp 2 --stages 2\n'
  printf 'pixart-alpha v5e-4 tp 2 x 2 stages\t--model pixart-alpha-xl-2-1024 --target v5e-4 --steps 4 --tp 2 --stages 2 --slices 4\n'
  printf 'sd3-medium v5e-4 tp 4, batch 2\t--model sd3-medium --target v5e-4 --steps 4 --tp 4\n'
  printf 'wan21-1.3b v5e-16 tp 2 x sp 8 ring\t--model wan21-t2v-1-3b --target v5e-16 --steps 2 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'wan21-1.3b v5e-8 sp 8 ring\t--model wan21-t2v-1-3b --target v5e-8 --steps 2 --sp 8 --sp-mode ring\n'
  printf 'wan21-1.3b v5e-4 sp 4 ring\t--model wan21-t2v-1-3b --target v5e-4 --steps 2 --sp 4 --sp-mode ring\n'
  printf 'wan21-1.3b v5e-16 sp 4 Ulysses x 2 stages x dp 2\t--model wan21-t2v-1-3b --target v5e-16 --steps 2 --sp 4 --data-parallel 2 --stages 2 --sp-mode ulysses\n'
  printf 'wan21-1.3b v5e-16 tp 2 x sp 8 ring, sp 4x2 inside tp\t--model wan21-t2v-1-3b --target v5e-16 --steps 2 --tp 2 --sp 8 --sp-mode ring --placement 4x4,sp_4x2_inside_tp\n'
  # Rings whose members are not all neighbours: strided steps shared by
  # interleaved rings (tp inside each sp member) and lines that do not close.
  printf 'dit-xl-2 v5e-16 tp 2 x sp 8 ring, 256 px\t--model dit-xl-2 --target v5e-16 --resolution 256 --steps 4 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'dit-xl-2 v5e-16 tp 2 x sp 8 ring, 512 px\t--model dit-xl-2 --target v5e-16 --resolution 512 --steps 2 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'dit-xl-2 v5e-32 tp 4 x sp 8 ring (a line of 8)\t--model dit-xl-2 --target v5e-32 --resolution 512 --steps 2 --tp 4 --sp 8 --sp-mode ring\n'
  printf 'dit-xl-2 v5e-32 tp 2 x sp 16 ring\t--model dit-xl-2 --target v5e-32 --resolution 512 --steps 2 --tp 2 --sp 16 --sp-mode ring\n'
  printf 'flux-dev v5e-16 tp 2 x sp 8 ring\t--model flux-dev --target v5e-16 --steps 2 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'pixart-alpha v5e-16 tp 2 x sp 8 ring\t--model pixart-alpha-xl-2-1024 --target v5e-16 --steps 2 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'sd3-medium v5e-16 tp 2 x sp 8 ring\t--model sd3-medium --target v5e-16 --steps 2 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'llama3.1-8b v5e-16 tp 2 x sp 8 ring, 16k\t--model llama3.1-8b --target v5e-16 --seq 16384 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'mistral-7b v5e-16 tp 2 x sp 8 ring, 16k\t--model mistral-7b-v0.1 --target v5e-16 --seq 16384 --tp 2 --sp 8 --sp-mode ring\n'
  printf 'wan21-14b v5e-64 tp 4 x sp 2 x 8 stages, 720p\t--model wan21-t2v-14b --target v5e-64 --steps 2 --frames 81 --height 720 --width 1280 --tp 4 --sp 2 --stages 8 --slices 8\n'
}

run() { # label<TAB>args: one JSON line, or the refusal
  local label=${1%%$'\t'*} args=${1#*$'\t'}
  # (placements are written with _ for spaces in the case list)
  local -a argv
  read -r -a argv <<< "$args"
  argv=("${argv[@]//_/ }")
  local err
  err=$(mktemp -p "$tmp")
  if out=$("$plan" "${argv[@]}" --json 2>"$err"); then
    echo "$out" | python3 -c '
import json, sys
p = json.load(sys.stdin)
if isinstance(p, list):
    p = p[0]
print(json.dumps({"label": sys.argv[1], "predicted": p["predicted_s"],
                  "simulated": p.get("simulated_s")}))' "$label"
  else
    python3 -c 'import json, sys; print(json.dumps({"label": sys.argv[1], "error": sys.argv[2]}))' \
      "$label" "$(grep -m1 error "$err" || head -1 "$err")"
  fi
}
export -f run
export plan tmp

# (Appended: the cases run at once share the file, and only O_APPEND makes
# each one's line land whole.)
: > "$tmp/results"
cases | tr '\n' '\0' | xargs -0 -P "${LOOM_SWEEP_JOBS:-2}" -I{} bash -c 'run "$1"' _ {} >> "$tmp/results"

python3 - "$tmp/results" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
bad = [r for r in rows if r.get("simulated") is None]
ok = [r for r in rows if r.get("simulated") is not None]
for r in ok:
    r["err"] = r["simulated"] / r["predicted"] - 1
ok.sort(key=lambda r: (-abs(r["err"]), r["label"]))
print("| case | predicted ms | simulated ms | error |")
print("|---|---:|---:|---:|")
for r in ok:
    print("| %s | %.3f | %.3f | %+.1f%% |" % (r["label"], r["predicted"] * 1e3,
                                            r["simulated"] * 1e3, 100 * r["err"]))
for r in sorted(bad, key=lambda r: r["label"]):
    print("| %s | %s | | |" % (r["label"], r.get("error", "not simulated")))
over = [r for r in ok if abs(r["err"]) > 0.02]
worst = ok[0] if ok else None
print()
print("%d cases simulated (%d not), %d over 2%%; largest %+.1f%% (%s)" % (
    len(ok), len(bad), len(over), 100 * worst["err"] if worst else 0,
    worst["label"] if worst else "-"))
PY
