#!/usr/bin/env python3
"""Fidelity of loom-sim against published TPU v5e measurements.

Reads a measurements file (targets/README.md, "Measurements"), writes one
schedule (docs/schedule-format.md) per single-op case, runs loom-sim --json
on it and prints a markdown table: case, measured, loom-sim, error, and the
geometric mean of |error|. The other sections are listed, not run.

Usage: bench/fidelity.py LOOM_SIM MEASUREMENTS.json
"""
import json
import math
import os
import subprocess
import sys
import tempfile

DTYPE_BYTES = {"bf16": 2, "f32": 4, "int8": 1}


def compute_task(name, flops, nbytes):
    return {"kind": "compute", "name": name, "op": "loom.linear", "layer": -1,
            "slice": 0, "step": 0, "flops": flops, "bytes": nbytes, "deps": []}


def matmul_schedule(target, case):
    # One compute task: 2mkn FLOPs, reading both operands and writing the result.
    c = case["config"]
    m, k, n, size = c["m"], c["k"], c["n"], DTYPE_BYTES[c["dtype"]]
    task = compute_task(case["id"], 2 * m * k * n, (m * k + k * n + m * n) * size)
    return {"format": "loom-schedule", "version": 1,
            "target": {"name": target, "shape": c["topology"]},
            "chips": [{"id": 0, "tasks": [task]}]}


def collective_schedule(target, case):
    # One collective per group along `axis` of the topology, all groups at once;
    # `bytes` is the whole array the group gathers.
    c = case["config"]
    shape, axis = c["topology"], c["axis"]
    nbytes = math.prod(c["array"]) * DTYPE_BYTES[c["dtype"]]
    others = [i for i in range(len(shape)) if i != axis]
    chips = []
    for tag, rest in enumerate(_coords([shape[i] for i in others])):
        group = []
        for a in range(shape[axis]):
            coord = [0] * len(shape)
            coord[axis] = a
            for i, v in zip(others, rest):
                coord[i] = v
            group.append(_chip_id(coord, shape))
        for chip in group:
            chips.append({"id": chip, "tasks": [{
                "kind": "collective", "collective": case["op"], "group": group,
                "tag": tag, "bytes": nbytes, "deps": []}]})
    chips.sort(key=lambda chip: chip["id"])
    return {"format": "loom-schedule", "version": 1,
            "target": {"name": target, "shape": shape}, "chips": chips}


def _coords(dims):
    if not dims:
        yield []
        return
    for head in range(dims[0]):
        for tail in _coords(dims[1:]):
            yield [head] + tail


def _chip_id(coord, shape):  # row-major, as the schedule format numbers chips
    chip = 0
    for c, d in zip(coord, shape):
        chip = chip * d + c
    return chip


SCHEDULES = {"matmul": matmul_schedule, "all_gather": collective_schedule,
             "reduce_scatter": collective_schedule, "all_reduce": collective_schedule}


SECTIONS = ("single_op", "other_ops", "end_to_end")
CASE_KEYS = {"id", "kind", "source", "op", "config", "timing", "value", "unit"}
UNITS = {"s", "bytes/s", "tokens/s", "samples/s"}


def check(data, path):
    """Exits with the JSON path of the first thing wrong with the file."""
    def fail(where, what):
        sys.exit(f"fidelity: {path}: {where}: {what}")
    if data.get("format") != "loom-measurements/1":
        fail("$.format", "expected 'loom-measurements/1'")
    sources, seen = data.get("sources", {}), set()
    for section in SECTIONS:
        for i, case in enumerate(data.get(section, [])):
            where = f"$.{section}[{i}]"
            missing = CASE_KEYS - case.keys()
            if missing:
                fail(where, f"missing {', '.join(sorted(missing))}")
            if case["id"] in seen:
                fail(where + ".id", f"'{case['id']}' appears twice")
            seen.add(case["id"])
            if case["kind"] not in ("measurement", "estimate"):
                fail(where + ".kind", "must be 'measurement' or 'estimate'")
            if case["source"].get("ref") not in sources:
                fail(where + ".source.ref", f"unknown source '{case['source'].get('ref')}'")
            if not isinstance(case["value"], (int, float)) or case["value"] <= 0:
                fail(where + ".value", "must be a positive number")
            if case["unit"] not in UNITS:
                fail(where + ".unit", f"must be one of {', '.join(sorted(UNITS))}")
            if section == "single_op" and (case["op"] not in SCHEDULES or case["unit"] != "s"):
                fail(where, f"no schedule for op '{case['op']}' timed in '{case['unit']}'")


def simulate(loom_sim, schedule, workdir, name):
    path = os.path.join(workdir, name + ".json")
    with open(path, "w") as f:
        json.dump(schedule, f)
    run = subprocess.run([loom_sim, "--json", path], capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"fidelity: loom-sim failed on {name}:\n{run.stderr}")
    return json.loads(run.stdout)["makespan_s"]


def show(value, unit):
    if unit != "s":
        return f"{value:g} {unit}"
    for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if value >= scale:
            return f"{value / scale:.4g} {suffix}"
    return f"{value * 1e9:.4g} ns"


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    loom_sim, path = sys.argv[1], sys.argv[2]
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"fidelity: {path}: {error}")
    check(data, path)

    print(f"Single-op cases of {os.path.basename(path)}, simulated by loom-sim on {data['target']}:\n")
    print("| case | measured | loom-sim | error |")
    print("|---|---|---|---|")
    errors = []
    with tempfile.TemporaryDirectory() as workdir:
        for case in data["single_op"]:
            schedule = SCHEDULES[case["op"]](data["target"], case)
            predicted = simulate(loom_sim, schedule, workdir, case["id"])
            error = predicted / case["value"] - 1
            errors.append(abs(error))
            approx = "~" if case.get("approximate") else ""
            print(f"| {case['id']} | {approx}{show(case['value'], 's')} | "
                  f"{show(predicted, 's')} | {100 * error:+.0f}% |")
    # An exact prediction counts as 0.01%, so that the logarithm exists.
    gmean = math.exp(sum(math.log(max(e, 1e-4)) for e in errors) / len(errors))
    print(f"\nGeometric mean of |error| over {len(errors)} cases: {100 * gmean:.1f}%")
    print("(error = loom-sim / measured - 1; ~ marks a value the source gives approximately)")

    for section, what in (("other_ops", "other measured ops (listed, not yet simulated)"),
                          ("end_to_end", "end-to-end runs (listed, not yet modelled or fitted)")):
        print(f"\n{what.capitalize()}:\n")
        print("| case | measured | source |")
        print("|---|---|---|")
        for case in data.get(section, []):
            print(f"| {case['id']} | {show(case['value'], case['unit'])} | {case['source']['ref']} |")


if __name__ == "__main__":
    main()
