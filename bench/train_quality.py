#!/usr/bin/env python3
"""MaxText's published v5e training configurations: the layout as MaxText
configures it, priced by Loom's simulator, beside loom-plan's search winner.

For each script of MaxText's src/maxtext/configs/tpu/v5e/ (AI-Hypercomputer/
maxtext at e591f30cbbf217ed67ef71263ec0538239f9c3b8: 16b.sh, 32b.sh, 64b.sh,
128b.sh, gpt3_175b.sh, llama2_7b.sh, llama2_13b.sh, llama2_70b.sh), on one
v5e-256: the model shape (global_parameter_scale's rule over base.yml's
base_* sizes for 16B-128B, MaxText's configs/models/*.yml for the others),
per_device_batch_size x 256 sequences of max_target_length 2048 a step, the
script's ici_fsdp/ici_tensor degrees (ici_fsdp_parallelism -1: every chip
the tensor axis leaves) and remat_policy, AdamW with f32 weights and state
(base.yml's weight_dtype and mu_dtype). The winner is `loom-plan --mode
train` with the same workload and no layout. Nothing is fitted.

A remat policy that offloads to host memory (qkv_proj_offloaded) is priced
as Loom's policy of that name: the values copied to the host over each
chip's PCIe link after a layer and back before its backward pass
(docs/training.md, "Offload to host memory"). MaxText's tensor axis also
splits the activations' embedding dimension between the
matmuls (base.yml's activation_embed rule): priced as Megatron sequence
parallelism (+ sp), which holds the same 1/tp.

usage: bench/train_quality.py BUILD-DIR [SCRIPT...] > table.md
(the rows of the scripts named, e.g. 16b.sh; all of them by default)
"""
import json, math, os, subprocess, sys, tempfile, time

build = sys.argv[1] if len(sys.argv) > 1 else "build"
PLAN = os.path.join(build, "bin", "loom-plan")
SEQ, TOPOLOGY, CHIPS = 2048, "v5e-256", 256

# MaxText base.yml's base_* sizes, scaled by get_individual_scales.
BASE = dict(emb=2048, heads=16, mlp=7168, layers=16, head_dim=128, vocab=32000)


def scaled(scale):
    log2 = int(math.log2(scale))
    base, rem = divmod(log2, 3)
    heads = base + int(rem > 0)
    emb, mlp, layers = base + int(rem > 1), heads, base
    return llama(BASE["emb"] << emb, BASE["heads"] << heads, BASE["heads"] << heads,
                 BASE["mlp"] << mlp, BASE["layers"] << layers)


def llama(emb, heads, kv_heads, mlp, layers):
    """A LLaMA-style config.json (gated SiLU MLP, RMSNorm, head_dim 128)."""
    return dict(architectures=["LlamaForCausalLM"], model_type="llama", hidden_size=emb,
                num_attention_heads=heads, num_key_value_heads=kv_heads, head_dim=128,
                intermediate_size=mlp, num_hidden_layers=layers, vocab_size=32000,
                rms_norm_eps=1e-5, max_position_embeddings=4096, hidden_act="silu",
                tie_word_embeddings=False)


# (script, model: a bundled name or a config dict, per_device_batch_size,
#  remat_policy, ici_tensor_parallelism)
CASES = [
    ("16b.sh", scaled(16), 6, "full", 1),
    ("32b.sh", scaled(32), 4, "full", 1),
    ("64b.sh", scaled(64), 2, "full", 1),
    ("128b.sh", scaled(128), 1, "qkv_proj_offloaded", 16),
    ("gpt3_175b.sh", "gpt3-175b", 0.5, "full", 16),
    # configs/models/llama2-7b.yml is LLaMA-1 7B's shape (Loom's llama-7b).
    ("llama2_7b.sh", "llama-7b", 4, "save_qkv_proj", 1),
    ("llama2_13b.sh", llama(5120, 40, 40, 13824, 40), 8, "qkv_proj_offloaded", 1),
    ("llama2_70b.sh", "llama2-70b", 2, "qkv_proj_offloaded", 1),
]


def plan(args):
    """loom-plan's JSON of a plan, or its error."""
    out = subprocess.run([PLAN, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        return None, out.stderr.strip().splitlines()[0]
    return json.loads(out.stdout), None


def figures(p):
    """The step's seconds (simulated, else predicted), its MFU, and how
    the time was found."""
    t = p.get("simulated_s", p["predicted_s"])
    mfu = p["training"].get("mfu", p["ideal_s"] / t)
    return t, mfu, "" if "simulated_s" in p else " (predicted: too large to simulate)"



def layout_name(p):
    parts = [f"tp {p['tp']}" + (" + sp" if p.get("sequence_parallel") else ""),
             f"dp {p['data_parallel']}"]
    if p.get("fsdp", 1) > 1:
        parts.append(f"fsdp {p['fsdp']} (ZeRO-{p['zero']})")
    parts.append(f"remat {p['remat']}")
    if p.get("microbatches", 1) > 1:
        parts.append(f"{p['microbatches']} microbatches")
    return ", ".join(parts)


print("| MaxText script | model | sequences a step | MaxText layout (as configured) | step s | MFU | "
      "Loom's search winner | step s | MFU | winner / MaxText | search s |")
print("|---|---|---:|---|---:|---:|---|---:|---:|---:|---:|")
only = set(sys.argv[2:])
with tempfile.TemporaryDirectory() as tmp:
    for script, model, per_device, remat, tp in CASES:
        if only and script not in only:
            continue
        if isinstance(model, dict):
            path = os.path.join(tmp, script + ".json")
            json.dump(model, open(path, "w"))
            name = (f"{model['hidden_size']}/{model['num_attention_heads']}/"
                    f"{model['intermediate_size']}/{model['num_hidden_layers']}")
        else:
            path = name = model
        batch = int(per_device * CHIPS)
        workload = ["--model", path, "--mode", "train", "--target", TOPOLOGY,
                    "--batch", str(batch), "--seq", str(SEQ)]
        dp = CHIPS // tp
        # base.yml's logical_axis_rules shard activation_embed over the
        # tensor axis (src/maxtext/configs/base.yml:598): between the
        # matmuls each chip holds 1/tp of the activations, which Loom
        # prices as Megatron sequence parallelism.
        split = ["--sequence-parallel"] if tp > 1 else []
        given, why = plan(workload + ["--tp", str(tp), "--data-parallel", str(dp),
                                      "--fsdp", str(dp), "--remat", remat] + split)
        configured = f"tp {tp}{' + sp' if split else ''}, fsdp {dp}, remat {remat}"
        if given:
            t0, mfu0, how0 = figures(given)
            left = f"{configured} | {t0:.2f}{how0} | {100 * mfu0:.1f}% |"
        else:
            t0 = None
            left = f"{configured}: does not fit ({why.split('error: ')[-1][:160]}) | | |"
        winner_file = os.path.join(tmp, script + ".plan.json")
        start = time.time()
        searched = subprocess.run([PLAN, *workload, "--save-plan", winner_file],
                                  capture_output=True, text=True)
        seconds = time.time() - start
        if searched.returncode != 0:
            print(f"| {script} | {name} | {batch} | {left} no plan fits | | | | {seconds:.0f} |")
            continue
        best, _ = plan(["--plan", winner_file])
        t1, mfu1, how1 = figures(best)
        ratio = f"{t0 / t1:.2f}x" if t0 else "-"
        print(f"| {script} | {name} | {batch} | {left} {layout_name(best)} | {t1:.2f}{how1} | "
              f"{100 * mfu1:.1f}% | {ratio} | {seconds:.0f} |")
        sys.stdout.flush()
