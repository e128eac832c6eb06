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
    parts = [f"tp {p['tp']}" + (" + sp" if p.get("sequence_parallel") else "")]
    if p.get("stages", 1) > 1:
        parts.append(f"{p['stages']} stages ({p['schedule']}"
                     + (f", v {p['virtual_stages']}" if p.get("virtual_stages", 1) > 1 else "")
                     + ")")
    parts.append(f"dp {p['data_parallel']}")
    if p.get("fsdp", 1) > 1:
        parts.append(f"fsdp {p['fsdp']} (ZeRO-{p['zero']})")
    parts.append(f"remat {p['remat']}")
    if p.get("microbatches", 1) > 1:
        parts.append(f"{p['microbatches']} microbatches")
    if len(p.get("slices", [])) > 1:
        parts.append(f"{len(p['slices'])} token slices")
    if p.get("num_slices", 1) > 1:
        over = []
        if p.get("dcn_data_parallelism", 1) > 1:
            over.append(f"dp {p['dcn_data_parallelism']}")
        if p.get("dcn_pipeline_parallelism", 1) > 1:
            over.append(f"{p['dcn_pipeline_parallelism']} stage runs")
        parts.append("over the DCN: " + (" x ".join(over) or "nothing"))
    return ", ".join(parts)


def model_file(tmp, script, model):
    """The --model argument and the table's name of a case's model."""
    if not isinstance(model, dict):
        return model, model
    path = os.path.join(tmp, script + ".json")
    json.dump(model, open(path, "w"))
    return path, (f"{model['hidden_size']}/{model['num_attention_heads']}/"
                  f"{model['intermediate_size']}/{model['num_hidden_layers']}")


def compare(tmp, script, path, workload, tp, remat, extra=(), alone=None):
    """MaxText's layout as configured (fsdp over the chips of each slice
    the tensor axis leaves, data parallel over the slices) beside the
    search's winner: the row's cells after the workload's. With `alone`,
    the predicted step of the same layout on one slice, the exposed
    communication's cell is what the slices add to the predicted step."""
    slices = workload_slices(workload)
    # MaxText's gradient accumulation only where the table across slices
    # needs it; the single-slice table shows where one microbatch fails.
    given, why, accumulated = maxtext_layout(workload, tp, remat,
                                             accumulate=slices > 1)
    dp, fsdp = CHIPS * slices // tp, CHIPS // tp
    configured = f"tp {tp}{' + sp' if tp > 1 else ''}, fsdp {fsdp}"
    if dp > fsdp:
        configured += f", dp {dp // fsdp} over the DCN"
    configured += f", remat {remat}{''.join(' ' + e for e in extra)}"
    if accumulated:
        configured += ", gradient_accumulation_steps 2"
    if given:
        t0, mfu0, how0 = figures(given)
        exposed = given.get("exposed_comm_s")
        if alone:
            exposed = f"{100 * (given['predicted_s'] / alone - 1):+.1f}%"
        else:
            exposed = f"{100 * exposed / t0:.1f}%" if exposed is not None else "-"
        left = f"{configured} | {t0:.2f}{how0} | {100 * mfu0:.1f}% | {exposed} |"
    else:
        t0 = None
        left = f"{configured}: does not fit ({why.split('error: ')[-1][:160]}) | | | |"
    winner_file = os.path.join(tmp, script + ".plan.json")
    start = time.time()
    searched = subprocess.run([PLAN, *workload, "--save-plan", winner_file],
                              capture_output=True, text=True)
    seconds = time.time() - start
    if searched.returncode != 0:
        return f"{left} no plan fits | | | | {seconds:.0f} |"
    best, _ = plan(["--plan", winner_file])
    t1, mfu1, how1 = figures(best)
    ratio = f"{t0 / t1:.2f}x" if t0 else "-"
    return (f"{left} {layout_name(best)} | {t1:.2f}{how1} | {100 * mfu1:.1f}% | "
            f"{ratio} | {seconds:.0f} |")


def maxtext_layout(workload, tp, remat, accumulate):
    """`workload` planned with MaxText's mesh: in each slice fsdp over the
    chips the tensor axis leaves, the slices data parallel over the DCN.
    Returns the plan (or None), the error, and whether it took MaxText's
    gradient_accumulation_steps 2 (base.yml) because one microbatch did not
    fit (only with `accumulate`)."""
    dp, fsdp = CHIPS * workload_slices(workload) // tp, CHIPS // tp
    # base.yml's logical_axis_rules shard activation_embed over the
    # tensor axis (src/maxtext/configs/base.yml:598): between the
    # matmuls each chip holds 1/tp of the activations, which Loom
    # prices as Megatron sequence parallelism.
    split = ["--sequence-parallel"] if tp > 1 else []
    mesh = workload + ["--tp", str(tp), "--data-parallel", str(dp),
                       "--fsdp", str(fsdp), "--remat", remat] + split
    given, why = plan(mesh)
    if not given and accumulate and "HBM" in why:
        retried, _ = plan(mesh + ["--microbatches", "2"])
        if retried:
            return retried, None, True
    return given, why, False


def one_slice(path, batch, tp, remat, extra=()):
    """The predicted step of MaxText's layout on one v5e-256 (None when it
    does not fit): what the DCN adds is measured against it."""
    workload = ["--model", path, "--mode", "train", "--target", TOPOLOGY, "--batch",
                str(int(batch)), "--seq", str(SEQ), *extra]
    p, _, _ = maxtext_layout(workload, tp, remat, accumulate=True)
    return p["predicted_s"] if p else None


def workload_slices(workload):
    topology = workload[workload.index("--target") + 1]
    return int(topology.split("x")[0]) if "x" in topology.split("v5e")[0] else 1


# MaxText's v5e scripts across slices: each slice runs the script's mesh,
# the slices data-parallel over the DCN (base.yml's dcn_data_parallelism
# -1), per_device_batch_size unchanged, so the global batch grows with the
# slices.
SLICES = (2, 8, 32)
# MLPerf Training v3.1's GPT-3 175B on v5e (Google's closed-division
# submission, 4096 chips): 16 slices of v5e-256, in each slice fsdp 16 x
# tensor 16, data parallel 16 over the DCN, global batch 2048 sequences of
# 2048 tokens, int8 matmuls (AQT).
MLPERF = ("gpt3-175b", 16, 2048, 16, "full", ["--weights-dtype", "int8",
                                              "--activations-dtype", "int8"])

only = set(a for a in sys.argv[2:] if a != "--slices")
slices_only = "--slices" in sys.argv[2:]
with tempfile.TemporaryDirectory() as tmp:
    if not slices_only:
        print("| MaxText script | model | sequences a step | MaxText layout (as configured) | "
              "step s | MFU | exposed comm | Loom's search winner | step s | MFU | "
              "winner / MaxText | search s |")
        print("|---|---|---:|---|---:|---:|---:|---|---:|---:|---:|---:|")
        for script, model, per_device, remat, tp in CASES:
            if only and script not in only:
                continue
            path, name = model_file(tmp, script, model)
            batch = int(per_device * CHIPS)
            workload = ["--model", path, "--mode", "train", "--target", TOPOLOGY,
                        "--batch", str(batch), "--seq", str(SEQ)]
            print(f"| {script} | {name} | {batch} | "
                  + compare(tmp, script, path, workload, tp, remat))
            sys.stdout.flush()
        print()
    print("| MaxText script | slices | sequences a step | MaxText layout (as configured) | "
          "step s | MFU | predicted step vs one slice | Loom's search winner | step s | MFU | "
          "winner / MaxText | search s |")
    print("|---|---:|---:|---|---:|---:|---:|---|---:|---:|---:|---:|")
    for script, model, per_device, remat, tp in CASES[:4]:
        if only and script not in only:
            continue
        path, _ = model_file(tmp, script, model)
        alone = one_slice(path, per_device * CHIPS, tp, remat)
        for n in SLICES:
            batch = int(per_device * CHIPS * n)
            workload = ["--model", path, "--mode", "train", "--target",
                        f"{n}x{TOPOLOGY}", "--batch", str(batch), "--seq", str(SEQ)]
            print(f"| {script} | {n} | {batch} | "
                  + compare(tmp, f"{script}.{n}", path, workload, tp, remat, alone=alone))
            sys.stdout.flush()
    model, n, batch, tp, remat, int8 = MLPERF
    if not only or "mlperf" in only:
        workload = ["--model", model, "--mode", "train", "--target", f"{n}x{TOPOLOGY}",
                    "--batch", str(batch), "--seq", str(SEQ)] + int8
        alone = one_slice(model, batch // n, tp, remat, int8)
        print(f"| MLPerf v3.1 gpt3-175b | {n} | {batch} | "
              + compare(tmp, "mlperf", model, workload, tp, remat, ["int8"], alone))
