#!/usr/bin/env python3
"""Rebuilds fuzz/corpus/ from the test inputs (docs/fuzzing.md).

usage: fuzz/seed-corpus.py [BUILD-DIR]   (default: build; its tools import
and plan the small models that seed the IR and schedule targets)
"""
import glob, os, re, shutil, subprocess, sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build"))
corpus = os.path.join(root, "fuzz", "corpus")


def put(target, name, data):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    # Bytes that are not UTF-8 (a test of a bad config) are kept as they are.
    with open(os.path.join(folder, name), "w", encoding="utf-8", errors="surrogateescape") as f:
        f.write(data)


def read(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        return f.read()


def tool(*args, stdin=None):
    return subprocess.run([os.path.join(build, "bin", args[0]), *args[1:]], input=stdin,
                          capture_output=True, text=True, check=True).stdout


# Seeds made by hand, kept across a rebuild: a planned module and a plan
# file with an expert-parallel group of its own beside tp.
by_hand = ["ir/planned-moe-ep-data.mlir", "plan/mixtral-decode-ep-data.json"]
kept = {name: read(os.path.join(corpus, name)) for name in by_hand}
shutil.rmtree(corpus, ignore_errors=True)
for name, data in kept.items():
    put(os.path.dirname(name), os.path.basename(name), data)
# config: the bundled models and the importer's test inputs.
for f in sorted(glob.glob(f"{root}/models/*.json")):
    put("config", "models-" + os.path.basename(f), read(f))
for f in sorted(glob.glob(f"{root}/test/Import/Inputs/*.json")):
    put("config", "test-Import-" + os.path.basename(f), read(f))
# A two-layer LLaMA small enough to plan and lower in milliseconds.
mini = f"{root}/fuzz/mini-llama.json"
put("config", "mini-llama.json", read(mini))
# target: the bundled targets and every target file among the test inputs.
for f in sorted(glob.glob(f"{root}/targets/*.json")):
    if not f.endswith("-measurements.json"):  # bench data, not a target
        put("target", "targets-" + os.path.basename(f), read(f))
# serve: the bundled length histograms and two small traces, one with
# vidur's column names and a column the reader ignores.
for f in sorted(glob.glob(f"{root}/data/serving/*.csv")):
    put("serve", "data-" + os.path.basename(f), read(f))
put("serve", "trace.csv", "# arrivals in seconds\narrival_s,input_tokens,output_tokens\n"
    "0.000,374,44\n0.250,96,300\n0.250,2048,8\n1.500,17,1\n")
put("serve", "trace-vidur.csv", "arrived_at,num_prefill_tokens,num_decode_tokens,extra\n"
    "0,128,16,x\n0.01,4000,64,y\n")
# ... and the bundled price tables and a list of latency targets.
for f in sorted(glob.glob(f"{root}/data/prices/*.json")):
    put("serve", "prices-" + os.path.basename(f), read(f))
put("serve", "slo.txt", "ttft_p99=2s,tpot_p50=100ms,e2e_max=1500us")
# schedule: every schedule file among the test inputs.
for f in sorted(glob.glob(f"{root}/test/**/Inputs/*.json", recursive=True)):
    text = read(f)
    name = "test-" + os.path.relpath(f, f"{root}/test").replace("/Inputs/", "-").replace("/", "-")
    if '"loom-target/' in text:
        put("target", name, text)
    elif '"loom-schedule"' in text:
        put("schedule", name, text)
# ir: every lit .mlir file, cut where -split-input-file cuts it.
for f in sorted(glob.glob(f"{root}/test/**/*.mlir", recursive=True)):
    rel = os.path.relpath(f, f"{root}/test").replace("/", "-")[:-5]
    parts = re.split(r"^// -----.*$", read(f), flags=re.M)
    for i, part in enumerate(parts):
        put("ir", f"test-{rel}.mlir" if len(parts) == 1 else f"test-{rel}-{i}.mlir", part)
# Small imported and planned models, and the schedule of one.
imported = tool("loom-import", mini, "--target", "v5e-4")
put("ir", "import-mini-llama-v5e-4.mlir", imported)
put("ir", "import-dit-xl-2-64px-v5e-4.mlir",
    tool("loom-import", "dit-xl-2", "--target", "v5e-4", "--resolution", "64"))
planned = tool("loom-opt", "--loom-plan-pipeline=tp=2 stages=2", stdin=imported)
put("ir", "planned-mini-llama-tp2-stages2.mlir", planned)
# A training step of the same model, for the passes after it.
put("ir", "training-mini-llama.mlir", tool("loom-opt", "--loom-derive-training-step", stdin=imported))
lowered = tool("loom-opt", "--convert-loom-to-sched", stdin=planned)
put("schedule", "lowered-mini-llama-tp2-stages2.json",
    tool("loom-translate", "--sched-to-json", stdin=lowered))
# Two data-parallel replicas, which the simulator runs once for both.
replicas = tool("loom-opt", "--loom-plan-pipeline=tp=2 data-parallel=2", "--convert-loom-to-sched",
                stdin=tool("loom-import", mini, "--target", "v5e-4", "--batch", "2"))
put("schedule", "lowered-mini-llama-tp2-dp2.json", tool("loom-translate", "--sched-to-json", stdin=replicas))
# plan: plans as --save-plan writes them; the fuzzer replans the small ones.
for name, args in [
        ("llama-7b-tp2-stages2", ["llama-7b", "--target", "v5e-4", "--seq", "256", "--tp", "2", "--stages", "2"]),
        ("llama-7b-int8-tp4", ["llama-7b", "--target", "v5e-4", "--seq", "128", "--tp", "4",
                               "--weights-dtype", "int8", "--kv-dtype", "int8"]),
        ("llama-7b-decode-slices", ["llama-7b", "--target", "v5e-4", "--mode", "decode", "--batch", "4",
                                    "--seq", "512", "--stages", "2"]),
        ("dit-xl-2-256px-stages2", ["dit-xl-2", "--target", "v5e-4", "--resolution", "256", "--steps", "2",
                                    "--stages", "2"]),
        ("dit-xl-2-256px-stages2-dp2", ["dit-xl-2", "--target", "v5e-4", "--resolution", "256", "--steps",
                                        "2", "--stages", "2", "--data-parallel", "2"]),
        ("mixtral-tp8-ep8", ["mixtral-8x7b", "--target", "v5e-8", "--seq", "256", "--tp", "8", "--ep", "8",
                             "--expert-imbalance", "1.5"]),
        # Each KV head's cache split by batch over the two chips holding it.
        ("llama3.1-8b-decode-kv-batch2", ["llama3.1-8b", "--target", "v5e-16", "--mode", "decode",
                                          "--batch", "4", "--seq", "512", "--tp", "16", "--kv-batch", "2"]),
        ("llama-7b-tp4-by-columns", ["llama-7b", "--target", "v5e-4", "--seq", "128", "--tp", "4",
                                     "--stages", "1", "--placement", "2x2, tp 2x2 by columns inside sp"]),
        # Training steps: FSDP with full recomputation; tp with ZeRO-2 and
        # activations offloaded to the host.
        ("dit-xl-2-train-fsdp4", ["dit-xl-2", "--mode", "train", "--target", "v5e-4", "--resolution", "256",
                                  "--batch", "4", "--tp", "1", "--data-parallel", "4", "--fsdp", "4",
                                  "--remat", "full"]),
        ("dit-xl-2-train-offloaded", ["dit-xl-2", "--mode", "train", "--target", "v5e-4", "--resolution",
                                      "256", "--batch", "4", "--tp", "2", "--data-parallel", "2", "--fsdp",
                                      "2", "--zero", "2", "--remat", "minimal_offloaded"]),
        # Two slices joined by the DCN: FSDP within each, data parallel
        # over the DCN.
        ("dit-xl-2-train-2slices", ["dit-xl-2", "--mode", "train", "--target", "2xv5e-4", "--resolution",
                                    "256", "--batch", "8", "--tp", "1", "--data-parallel", "8", "--fsdp", "4",
                                    "--remat", "full"])]:
    out = os.path.join(build, "fuzz-seed-plan.json")
    tool("loom-plan", "--model", *args, "--save-plan", out)
    put("plan", name + ".json", read(out))
    os.remove(out)
