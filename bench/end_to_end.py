"""End-to-end LLM runs on v5e against Loom.

For every end_to_end case of the measurements file that says how Loom runs
it (its "loom" object: model, target, mode, seq, batch, tp, stages,
slices, precisions, attention, placement), runs loom-plan twice: as Loom
would run it (the flash kernels' attention, Loom's placement) and as the
measured runtime ran it (its source's attention and device order), and
prints a markdown table: case, measured, Loom, and measured time over the
run's time (above 1: Loom is faster than the run).
A serving throughput is compared as one decode step of the whole batch with
the cache full; the serving rate is a lower bound on that decode-only rate,
so its ratio (Loom's rate over the serving rate) is an upper bound.
Nothing here is fitted: the constants are the single-op calibration's.
Usage: end_to_end.py <loom-plan> <measurements.json>
"""
import json
import math
import subprocess
import sys

import cases as measurements

FLAGS = ("model", "target", "mode", "seq", "batch", "tp", "stages", "slices",
         "weights_dtype", "kv_dtype", "attention", "placement")
# What the runtime did that Loom would not: dropped for Loom's own plan.
RUNTIME = {"attention": "flash", "placement": None}


def run(plan, loom, as_run):
    args = [plan]
    for key in FLAGS:
        value = loom.get(key) if as_run or key not in RUNTIME else RUNTIME[key]
        if value is not None:
            args.append(f"--{key.replace('_', '-')}={value}")
    args.append("--json")
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"end_to_end: {' '.join(args)} failed:\n{out.stderr}")
    result = json.loads(out.stdout)
    return result["simulated_s"], result["predicted_s"]


def show(seconds):
    return f"{seconds * 1e3:.2f} ms"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    plan, path = sys.argv[1:]
    data = measurements.load(path)
    rows = [c for c in data.get("end_to_end", []) if "loom" in c]
    if not rows:
        sys.exit(f"end_to_end: {path}: no end_to_end case says how Loom runs it")
    print("| case | measured | Loom's plan | as the run ran it | "
          "measured / Loom | prediction vs simulation |")
    print("|---|---|---|---|---|---|")
    ratios, worst = [], 0.0
    for case in rows:
        loom = case["loom"]
        flash, _ = run(plan, loom, as_run=False)
        own, predicted = run(plan, loom, as_run=True)
        worst = max(worst, abs(predicted / own - 1))
        if case["unit"] == "s":
            measured = show(case["value"])
            cells = (show(flash), show(own))
            ratio = case["value"] / own
        elif case["unit"] == "tokens/s":
            batch = loom["batch"]
            measured = f">= {case['value']:.0f} tokens/s (serving)"
            cells = tuple(f"{show(t)} a step, {batch / t:.0f} tokens/s" for t in (flash, own))
            ratio = (batch / own) / case["value"]
        else:
            sys.exit(f"end_to_end: {case['id']}: unit {case['unit']} has no comparison")
        ratios.append((case["unit"], ratio))
        print(f"| {case['id']} | {measured} | {cells[0]} | {cells[1]} | "
              f"{ratio:.2f}{'' if case['unit'] == 's' else ' (at most)'} | "
              f"{100 * (predicted / own - 1):+.1f}% |")
    for unit, what in (("s", "latency"), ("tokens/s", "serving (upper bounds of the ratio)")):
        r = [x for u, x in ratios if u == unit]
        if r:
            print(f"\n{what}: {len(r)} cases, measured / Loom from {min(r):.2f} to "
                  f"{max(r):.2f}, geometric mean {math.exp(sum(map(math.log, r)) / len(r)):.2f}")
    print(f"prediction vs simulation: largest {100 * worst:.1f}%")


if __name__ == "__main__":
    main()
