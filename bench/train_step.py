#!/usr/bin/env python3
"""MaxText's published v5e training configurations, lowered and simulated.

For each model shape of MaxText/configs/v5e/{16b,32b,64b}.sh (model shapes
from MaxText's global_parameter_scale rule, MaxText/configs/base.yml's base_*
sizes, its per-device batch and remat policy; FSDP over the whole v5e-256
slice, as ici_fsdp_parallelism=-1 does), the training step is derived,
placed, lowered and simulated by loom-opt and loom-sim, and its MFU computed
with MaxText's own formula (maxtext_utils.calculate_tflops_training_per_device:
6 x the weights' matmul FLOPs per token, the LM head included and the input
embedding not, plus causal attention's, halved) beside the MFU MaxText's
MaxText/configs/v5e/README.md publishes for 1x v5e-256. Nothing is fitted.

usage: bench/train_step.py BUILD-DIR
"""
import json, math, os, re, subprocess, sys, tempfile

build = sys.argv[1] if len(sys.argv) > 1 else "build"
tool = lambda name: os.path.join(build, "bin", name)

# MaxText/configs/base.yml.
BASE = dict(emb=2048, heads=16, kv_heads=16, mlp=7168, layers=16, head_dim=128, vocab=32000)
PEAK = 197e12  # v5e bf16 peak per chip (targets/tpu-v5e.json)


def scales(scale):
    """MaxText's get_individual_scales: exponents of 2 for emb, heads, mlp, layers."""
    log2 = int(math.log2(scale))
    base, rem = divmod(log2, 3)
    heads = base + int(rem > 0)
    return base + int(rem > 1), heads, heads, base


def shape(scale):
    emb, heads, mlp, layers = (2 ** e for e in scales(scale))
    return dict(emb=BASE["emb"] * emb, heads=BASE["heads"] * heads, kv_heads=BASE["kv_heads"] * heads,
                mlp=BASE["mlp"] * mlp, layers=BASE["layers"] * layers, head_dim=BASE["head_dim"],
                vocab=BASE["vocab"])


def maxtext_flops_per_token(s, seq):
    """maxtext_utils.calculate_tflops_training_per_device, per token."""
    ffn = 2 * s["mlp"] * s["emb"] * 2 + 2 * s["mlp"] * s["emb"]  # gated: two wi, one wo
    qkv = 2 * s["emb"] * (s["heads"] + 2 * s["kv_heads"]) * s["head_dim"]
    proj = 2 * s["emb"] * s["heads"] * s["head_dim"]
    head = 2 * s["emb"] * s["vocab"]
    weights = ((ffn + qkv + proj) * s["layers"] + head) * 3
    attention = 4 * seq * s["heads"] * s["head_dim"] / 2 * s["layers"] * 3
    return weights + attention


# (name, global_parameter_scale, per_device_batch_size, remat_policy, published MFU)
CASES = [("16b", 16, 6, "full", 61.10), ("32b", 32, 4, "full", 66.86), ("64b", 64, 2, "full", 59.90)]
SEQ, TOPOLOGY, CHIPS = 2048, "v5e-256", 256

print("| MaxText config | shape (emb, heads, mlp, layers) | per-device batch | remat | step ms | tokens/s/chip | MFU Loom | MFU published | Loom / published | peak HBM |")
print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|")
with tempfile.TemporaryDirectory() as tmp:
    for name, scale, batch, remat, published in CASES:
        s = shape(scale)
        config = dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=s["emb"],
                      num_attention_heads=s["heads"], num_key_value_heads=s["kv_heads"],
                      head_dim=s["head_dim"], intermediate_size=s["mlp"], num_hidden_layers=s["layers"],
                      vocab_size=s["vocab"], rms_norm_eps=1e-5, max_position_embeddings=SEQ,
                      hidden_act="silu", tie_word_embeddings=False)
        path = os.path.join(tmp, name + ".json")
        json.dump(config, open(path, "w"))
        module = subprocess.run([tool("loom-import"), path, "--seq", str(SEQ), "--batch", str(batch)],
                                capture_output=True, text=True, check=True).stdout
        opt = subprocess.run(
            [tool("loom-opt"), f"--loom-set-target=topology={TOPOLOGY}", "--loom-derive-training-step",
             f"--loom-remat=policy={remat}", f"--loom-partition-layers=data-parallel={CHIPS}",
             "--loom-shard-zero", "--loom-split-tokens=slices=1", "--loom-check-memory",
             "--convert-loom-to-sched"], input=module, capture_output=True, text=True)
        row = f"| {name}.sh | {s['emb']}, {s['heads']}, {s['mlp']}, {s['layers']} | {batch} | {remat} |"
        if opt.returncode != 0:
            # Loom's accounting refuses it: say by how much.
            need = re.search(r"needs ([0-9.]+ [KMG]B)", opt.stderr)
            print(f"{row} does not fit: {need.group(1) if need else opt.stderr.strip()} by "
                  f"loom-check-memory | | | {published:.2f}% | | |")
            continue
        lowered = opt.stdout
        schedule = os.path.join(tmp, name + ".sched.json")
        with open(schedule, "w") as f:
            f.write(subprocess.run([tool("loom-translate"), "--sched-to-json"], input=lowered,
                                   capture_output=True, text=True, check=True).stdout)
        out = subprocess.run([tool("loom-sim"), schedule], capture_output=True, text=True, check=True).stdout
        ms = float(re.search(r"makespan: ([0-9.]+) ms", out).group(1))
        peak = re.search(r"peak HBM ([0-9.]+ [KMG]B)", out).group(1)
        tokens = batch * SEQ / (ms / 1e3)
        mfu = 100 * tokens * maxtext_flops_per_token(s, SEQ) / PEAK
        print(f"{row} {ms:.1f} | {tokens:.0f} | {mfu:.1f}% | {published:.2f}% | {mfu / published:.3f} | {peak} |")
