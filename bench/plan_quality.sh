#!/usr/bin/env bash
# Plan quality: for each model, the simulated time of
#   (a) tensor parallelism alone,
#   (b) a layer pipeline without token slicing (one slice, GPipe-style),
#   (c) the same pipeline with the best uniform slices (1 to 8 per stage),
#   (d) the same pipeline with Loom's dynamic-programming slices,
#   (e) the --search winner (which also chooses whether to interleave units
#       so that collectives overlap compute, docs/overlap.md, and whether to
#       interleave the stages, docs/virtual-stages.md),
#   (f) what JetStream / MaxText serving runs today: tensor parallelism
#       over the whole slice with XLA-style overlap of its collectives, here
#       two micro-batches interleaved (--interleave 2 on two slices),
#   (g) DiTs: the PipeFusion x Ulysses x CFG layout xDiT's documentation
#       recommends, chosen by hand (bench/README.md, "xDiT-style hybrid"),
# next to the lower bound (all FLOPs over the slice's peak, or the weights
# read once over its HBM bandwidth) and each plan's ratio to it, and each
# plan's parallel efficiency (the ideal, the model's one-chip time over the
# chips, divided by the simulated time) with the rest of its run split into
# pipeline bubble, exposed communication and other (docs/planning.md, "efficiency").
# Usage: bench/plan_quality.sh [build-dir] > bench/plan_quality.md
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plan=${1:-$here/../build}/bin/loom-plan

row() { # label, loom-plan arguments...
  local label=$1; shift
  if out=$("$plan" "$@" --json 2>/dev/null); then
    echo "$out" | python3 -c '
import json, sys
label = sys.argv[1]
p = json.load(sys.stdin)
if isinstance(p, list):
    p = p[0]
t = p.get("simulated_s", p["predicted_s"])
# A program past the simulator task limit is reported from the cost model.
shown = "%.1f" % (t * 1e3) if "simulated_s" in p else "not simulated"
plural = lambda n, word: "%d %s%s" % (n, word, "" if n == 1 else "s")
loss = p.get("loss")
split = ("%.0f / %.0f / %.0f%%" % (100 * loss["bubble"], 100 * loss["exposed_comm"],
         100 * loss["other"])) if loss else "-"
zip = ", %d interleaved" % p["interleave"] if p.get("interleave", 1) > 1 else ""
sp = " x sp %d" % p["sp"] if p.get("sp", 1) > 1 else ""
mb = " in each of %d microbatches" % p["microbatches"] if p.get("microbatches", 1) > 1 else ""
# Megatron sequence parallelism, and collective matmuls decomposed into ring
# steps under partial matmuls (docs/overlap.md).
megatron = " + sp" if p.get("sequence_parallel") else ""
dec = ", collective matmuls" if p.get("decompose") else ""
# Megatron-LM scatter/gather stage handovers (docs/pipelines.md, "Scattered handovers").
dec += ", scattered handovers" if p.get("scatter_handover") else ""
# 2-D weight-stationary: the tp_x x tp_y block (Pope et al. 2023).
twod = " (2-D %d x %d)" % (p["tp_x"], p["tp"] // p["tp_x"]) if p.get("tp_x", 1) > 1 else ""
# Interleaved (virtual) stages (docs/virtual-stages.md).
vs = " x %d virtual" % p["virtual_stages"] if p.get("virtual_stages", 1) > 1 else ""
print("| %s | tp %d%s%s x %s%s x dp %d%s, %s%s%s%s | %.1f | %s | %.2fx | %.1f%% | %s |" % (
    label, p["tp"], twod, sp, plural(p["stages"], "stage"), vs, p["data_parallel"],
    megatron, plural(len(p["slices"]), "slice"), mb, zip, dec,
    p["predicted_s"] * 1e3, shown, t / p["roofline_s"],
    100 * p["efficiency"], split))' "$label"
  else
    # Say why (the stale K/V of PipeFusion, for a video) and what would fit.
    local why
    # The first stage's figures stand for the others.
    why=$("$plan" "$@" 2>&1 >/dev/null | sed -n 's/^loom-plan: \(error: \)\{0,1\}//p' |
          tr '\n' ' ' | sed 's/; stage [1-9][0-9]* (layers.* note:/; note:/' |
          sed 's/ (largest layer: [^)]*)//g; s/this plan cannot work: //' |
          sed 's/|/\\|/g; s/ *$//' || true)
    echo "| $label | does not fit: $why | | | | | |"
  fi
}

bound() {
  "$plan" "$@" --json 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
print("Lower bound: %.1f ms. Ideal: %.1f ms." % (p["roofline_s"] * 1e3,
                                                 p["ideal_s"] * 1e3))'
}

best_uniform() { # model args, tp, stages: the count of equal slices, among
  # 1 to 8 per stage, whose simulated time is shortest (TeraPipe's slices
  # are then compared with the best a uniform slicing can do).
  local args=$1 tp=$2 stages=$3 best="" bestTime=""
  for per in 1 2 3 4 6 8; do
    local n=$((per * stages)) out t
    out=$("$plan" $args --tp "$tp" --stages "$stages" --slices "$n" --json 2>/dev/null) || continue
    t=$(echo "$out" | python3 -c 'import json, sys; p = json.load(sys.stdin); print(p.get("simulated_s", p["predicted_s"]))')
    if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $bestTime else 1)"; then
      best=$n bestTime=$t
    fi
  done
  echo "${best:-$stages}"
}

model() { # title, model args, tp alone, tp, stages[, xDiT-style hybrid[, 2-D]]
  local title=$1 args=$2 tpAlone=$3 tp=$4 stages=$5 hybrid=${6:-} twod=${7:-}
  echo
  echo "### $title"
  echo
  bound $args --tp "$tp" --stages "$stages"
  echo
  echo "| plan | layout | predicted ms | simulated ms | x bound | efficiency | bubble / exposed / other |"
  echo "|---|---|---:|---:|---:|---:|---:|"
  row "(a) tensor parallel alone" $args --tp "$tpAlone" --stages 1
  row "(b) pipeline, no slicing" $args --tp "$tp" --stages "$stages" --slices 1
  row "(c) best uniform slices" $args --tp "$tp" --stages "$stages" --slices "$(best_uniform "$args" "$tp" "$stages")"
  row "(d) Loom's slices" $args --tp "$tp" --stages "$stages" --slices auto
  row "(e) --search winner" $args --search
  row "(f) tensor parallel + overlap (JetStream / MaxText)" $args --tp "$tpAlone" --stages 1 --slices 2 --interleave 2
  # (h) tensor parallelism alone with its collective matmuls decomposed
  # (Wang et al., ASPLOS 2023; XLA's collective matmul), in Megatron's
  # sequence-parallel form (docs/overlap.md).
  row "(h) tensor parallel + collective matmuls" $args --tp "$tpAlone" --stages 1 --sequence-parallel --decompose
  # (g) DiTs: the PipeFusion x Ulysses x CFG layout xDiT's documentation
  # recommends, chosen by hand (bench/README.md, "xDiT-style hybrid").
  if [ -n "$hybrid" ]; then
    row "(g) xDiT-style hybrid" $args $hybrid
  fi
  # (i) LLMs: 2-D weight-stationary tensor parallelism (Pope et al. 2023,
  # docs/tensor-parallelism.md, "2-D weight-stationary"): the block over the whole slice, and
  # the best 2-D plan the search finds.
  if [ -n "$twod" ]; then
    row "(i) 2-D weight-stationary, one stage" $args $twod
    row "(i) best 2-D plan (--search --tp-layout=2d)" $args --search --tp-layout=2d
  fi
}

efficiency() { # loom-plan arguments: "efficiency simulated_ms layout"
  "$plan" "$@" --json 2>/dev/null | python3 -c '
import json, sys
p = json.load(sys.stdin)
if isinstance(p, list):
    p = p[0]
zip = ", %d interleaved" % p["interleave"] if p.get("interleave", 1) > 1 else ""
mb = ", %d microbatches" % p["microbatches"] if p.get("microbatches", 1) > 1 else ""
megatron = " + sp" if p.get("sequence_parallel") else ""
dec = ", collective matmuls" if p.get("decompose") else ""
# Megatron-LM scatter/gather stage handovers (docs/pipelines.md, "Scattered handovers").
dec += ", scattered handovers" if p.get("scatter_handover") else ""
vs = ", %d virtual" % p["virtual_stages"] if p.get("virtual_stages", 1) > 1 else ""
bubble = ", busiest stage idle %.0f%%" % (100 * p["stage_idle"]) if len(sys.argv) > 1 else ""
print("%.1f%% (%.1f ms, tp %d x %d x dp %d%s%s%s%s%s%s)" % (100 * p["efficiency"],
      p.get("simulated_s", p["predicted_s"]) * 1e3, p["tp"], p["stages"],
      p["data_parallel"], megatron, vs, mb, zip, dec, bubble))' ${BUBBLE:+bubble}
}

overlap() { # title, model args: the search winner without and with overlap
  local title=$1 args=$2
  echo "| $title | $(efficiency $args --search --interleave 1 --decompose=false --virtual-stages 1) | $(efficiency $args --search --decompose=false --virtual-stages 1) | $(efficiency $args --search --virtual-stages 1) |"
}

virtual() { # title, model args: the search winner without and with virtual stages
  local title=$1 args=$2
  echo "| $title | $(BUBBLE=1 efficiency $args --search --virtual-stages 1) | $(BUBBLE=1 efficiency $args --search) |"
}

echo "# Plan quality"
echo
echo "Made by \`bench/plan_quality.sh\` on $(date -u +%Y-%m-%d). Times are the"
echo "simulator's (loom-sim's engine, in process); predicted is the cost"
echo "model's. One replica, batch as imported. Efficiency is the ideal (the"
echo "model's per-op time on one chip over the topology's chips) over the"
echo "simulated time; the last column splits the rest of the run, in"
echo "chip-seconds, into pipeline bubble, exposed communication and other"
echo "(README, \"efficiency\")."
model "LLaMA-65B prefill, 2048 tokens, v5e-16" "--model llama-65b --target v5e-16" 16 4 4 "" "--tp 16 --tp-layout=2d"
# A batched prefill, where microbatches of the batch's sequences fill the
# pipeline (docs/pipelines.md, "Microbatches").
model "LLaMA-65B prefill, batch 8 x 2048 tokens, v5e-16" "--model llama-65b --target v5e-16 --batch 8" 16 4 4 "" "--tp 16 --tp-layout=2d"
model "GPT-3 175B prefill, 2048 tokens, v5e-64" "--model gpt3-175b --target v5e-64" 32 8 8 "" "--tp 64 --tp-layout=2d"
model "DiT-XL/2, 512 px, 50 steps, v5e-8" "--model dit-xl-2 --target v5e-8 --resolution 512" 8 2 4 "--data-parallel 2 --sp 4 --stages 1"
model "Flux-dev, 1024 px, 28 steps, v5e-16" "--model flux-dev --target v5e-16" 8 4 4 "--sp 4 --stages 4"
# Flux (no CFG): xDiT's docs/performance/flux.md, ulysses=4 x pipefusion=4
# on 16 GPUs for Flux-dev at 1024 px; for schnell ulysses_degree = #gpu
# without PipeFusion, which does not fit v5e's 16 GB (Ulysses keeps the
# 24 GB of weights whole), so Ulysses is lowered to 2 and PipeFusion takes 2.
model "Flux.1-schnell, 1024 px, 4 steps, v5e-4" "--model flux-schnell --target v5e-4 --steps 4" 4 2 2 "--sp 2 --stages 2"
model "Wan 2.1 14B, 720p (1280x720), 81 frames, 50 steps, v5e-16" "--model wan21-t2v-14b --target v5e-16 --frames 81 --height 720 --width 1280 --steps 50" 8 8 2 "--data-parallel 2 --sp 2 --stages 4"
model "Wan 2.1 14B, 720p (1280x720), 81 frames, 50 steps, v5e-64" "--model wan21-t2v-14b --target v5e-64 --frames 81 --height 720 --width 1280 --steps 50" 8 8 8 "--data-parallel 2 --sp 4 --stages 8"

# Mixtures of experts: the layout with its expert-parallel
# degree, experts sliced by width (ep 1) against split whole (ep = tp),
# and the --search winner.
moerow() { # label, loom-plan arguments...
  local label=$1; shift
  if out=$("$plan" "$@" --json 2>/dev/null); then
    echo "$out" | python3 -c '
import json, sys
label = sys.argv[1]
p = json.load(sys.stdin)
if isinstance(p, list):
    p = p[0]
t = p.get("simulated_s", p["predicted_s"])
plural = lambda n, word: "%d %s%s" % (n, word, "" if n == 1 else "s")
zip = ", %d interleaved" % p["interleave"] if p.get("interleave", 1) > 1 else ""
megatron = " + sp" if p.get("sequence_parallel") else ""
dec = ", collective matmuls" if p.get("decompose") else ""
# Megatron-LM scatter/gather stage handovers (docs/pipelines.md, "Scattered handovers").
dec += ", scattered handovers" if p.get("scatter_handover") else ""
# An expert-parallel group of its own sits beside tp (docs/experts.md, "An
# expert-parallel group of its own").
group = ("tp %d x ep %d (own group)" if p.get("ep_layout") == "data"
         else "tp %d (ep %d)") % (p["tp"], p.get("ep", 1))
print("| %s | %s x %s x dp %d%s, %s%s%s | %d | %.1f | %.1f | %.2fx |" % (
    label, group, plural(p["stages"], "stage"),
    p["data_parallel"], megatron, plural(len(p["slices"]), "slice"), zip, dec,
    p.get("experts_per_chip", 0), p["predicted_s"] * 1e3, t * 1e3,
    t / p["roofline_s"]))' "$label"
  else
    echo "| $label | does not fit | | | | |"
  fi
}

moe() { # title, model args, tp, stages (for the fixed rows)[, tp and ep of
         # an expert group of its own]
  local title=$1 args=$2 tp=$3 stages=$4 groupTp=${5:-} groupEp=${6:-}
  echo
  echo "### $title"
  echo
  echo "| plan | layout | experts per chip | predicted ms | simulated ms | x bound |"
  echo "|---|---|---:|---:|---:|---:|"
  moerow "(a) experts sliced by width" $args --tp "$tp" --ep 1 --stages "$stages"
  moerow "(b) expert parallel" $args --tp "$tp" --ep "$tp" --stages "$stages"
  if [ -n "$groupEp" ]; then
    moerow "(c) expert group of its own" $args --tp "$groupTp" --ep "$groupEp" \
      --ep-layout=data --stages 1
  fi
  moerow "(e) --search winner" $args --search
}

if [ "${LOOM_BENCH_MOE:-1}" = 1 ]; then
  moe "Mixtral-8x7B prefill, 2048 tokens, v5e-8" "--model mixtral-8x7b --target v5e-8" 8 1
  moe "Mixtral-8x7B prefill, 2048 tokens, v5e-16" "--model mixtral-8x7b --target v5e-16" 8 2
  moe "DeepSeek-V3 decode, batch 256, 4096 cached, v5e-256" \
    "--model deepseek-v3 --target v5e-256 --mode decode --batch 256 --seq 4096" 64 4 8 32
  moe "Mixtral-8x7B decode, batch 64, 2048 cached, v5e-16" \
    "--model mixtral-8x7b --target v5e-16 --mode decode --batch 64 --seq 2048" 8 2 4 4
fi

echo
echo "### Overlap: each case's search winner without and with it"
echo
echo "Before: the search with no overlap (\`--interleave 1 --decompose=false\`,"
echo "units run one after another); interleaving: the search that"
echo "may interleave units (\`--decompose=false\`); after: the search that may"
echo "also decompose the collective matmuls (docs/overlap.md). Efficiency,"
echo "simulated time, layout."
echo
echo "| case | before | interleaving | after |"
echo "|---|---|---|---|"
overlap "LLaMA-65B, v5e-16" "--model llama-65b --target v5e-16"
overlap "GPT-3 175B, v5e-64" "--model gpt3-175b --target v5e-64"
overlap "DiT-XL/2, v5e-8" "--model dit-xl-2 --target v5e-8 --resolution 512"
overlap "Flux-dev, v5e-16" "--model flux-dev --target v5e-16"

echo
echo "### Virtual stages: each case's search winner without and with them"
echo
echo "Before: the search without interleaved stages (\`--virtual-stages 1\`);"
echo "after: the search that may also interleave them (\`--virtual-stages\`,"
echo "docs/virtual-stages.md). Efficiency, simulated time, layout and how"
echo "long the busiest stage is predicted to sit idle."
echo
echo "| case | before | after |"
echo "|---|---|---|"
virtual "LLaMA-65B, v5e-16" "--model llama-65b --target v5e-16"
virtual "LLaMA-65B batch 8, v5e-16" "--model llama-65b --target v5e-16 --batch 8"
virtual "GPT-3 175B, v5e-64" "--model gpt3-175b --target v5e-64"
virtual "DiT-XL/2, v5e-8" "--model dit-xl-2 --target v5e-8 --resolution 512"
virtual "Flux-dev, v5e-16" "--model flux-dev --target v5e-16"
