"""The measurement cases Loom can simulate, shared by fidelity.py and calibrate.py.

Reads a measurements file (targets/README.md, "Measurements") and, for every
case whose op Loom has a schedule for, gives the schedule
(docs/schedule-format.md) that loom-sim runs, how to turn loom-sim's result
into the case's unit, and the same case in closed form for the fit (the cost
model's formulas, include/loom/Hardware/CostModel.h). Nothing here knows a
case by its id: the schedule follows from the case's op and config.
"""
import json
import math
import sys

DTYPE_BYTES = {"bf16": 2, "f32": 4, "int32": 4, "int8": 1}
SECTIONS = ("single_op", "other_ops", "end_to_end")
CASE_KEYS = {"id", "kind", "source", "op", "config", "timing", "value", "unit"}
UNITS = {"s", "bytes/s", "tokens/s", "samples/s"}


def fail(path, where, what):
    sys.exit(f"fidelity: {path}: {where}: {what}")


def load(path):
    """The measurements file, checked; exits with the JSON path of a problem."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError) as error:
        sys.exit(f"fidelity: {path}: {error}")
    if data.get("format") != "loom-measurements/1":
        fail(path, "$.format", "expected 'loom-measurements/1'")
    sources, seen = data.get("sources", {}), set()
    for section in SECTIONS:
        for i, case in enumerate(data.get(section, [])):
            where = f"$.{section}[{i}]"
            missing = CASE_KEYS - case.keys()
            if missing:
                fail(path, where, f"missing {', '.join(sorted(missing))}")
            if case["id"] in seen:
                fail(path, where + ".id", f"'{case['id']}' appears twice")
            seen.add(case["id"])
            if case["kind"] not in ("measurement", "estimate"):
                fail(path, where + ".kind", "must be 'measurement' or 'estimate'")
            if case["source"].get("ref") not in sources:
                fail(path, where + ".source.ref",
                     f"unknown source '{case['source'].get('ref')}'")
            if not isinstance(case["value"], (int, float)) or case["value"] <= 0:
                fail(path, where + ".value", "must be a positive number")
            if case["unit"] not in UNITS:
                fail(path, where + ".unit", f"must be one of {', '.join(sorted(UNITS))}")
            if section == "single_op" and case["op"] not in BUILDERS:
                fail(path, where, f"no schedule for op '{case['op']}'")
            if case["op"] in BUILDERS and "includes_dispatch" not in case:
                fail(path, where, "a simulated case needs includes_dispatch "
                     "(whether its timing includes the program's launch)")
    return data


class Case:
    """One simulated case: groups of identical compute tasks run in order on
    one chip, or one collective per group along an axis."""

    def __init__(self, case, section):
        self.id, self.section = case["id"], section
        self.measured, self.unit = case["value"], case["unit"]
        self.approx = bool(case.get("approximate"))
        self.dispatch = bool(case["includes_dispatch"])
        self.compute = []        # [(count, flops, bytes)] in program order
        self.collective = None   # dict, see collective()
        self.shape = [1, 1]
        BUILDERS[case["op"]](self, case["config"])

    # Compute cases -------------------------------------------------------

    def matmul(self, c):
        # XLA's matmul: one fused kernel, 2mkn FLOPs, both operands read and
        # the result written once.
        m, k, n = c["m"], c["k"], c["n"]
        size = DTYPE_BYTES[c["dtype"]]
        self.shape = c["topology"]
        self.compute = [(1, 2 * m * k * n, (m * k + k * n + m * n) * size)]

    def matmul_then_multiply(self, c):
        # XLA fuses the multiply into the matmul's output: the product never
        # reaches HBM; the epilogue reads the mask and writes the result.
        m, k, n = c["m"], c["k"], c["n"]
        size = DTYPE_BYTES[c["dtype"]]
        mask = DTYPE_BYTES[c["mask_dtype"]]
        self.shape = c["topology"]
        self.compute = [(1, 2 * m * k * n, (m * k + k * n) * size),
                        (1, m * n, m * n * (mask + size))]

    def pallas_matmul(self, c):
        # A Pallas kernel's grid (m/bm, n/bn, k/bk), k innermost: each step
        # multiplies one block pair (both blocks fetched), and the last k
        # step writes the output block. Output blocks a mask skips still take
        # their grid steps, with no work and no fetch (the index map repeats
        # the previous block).
        m, k, n = c["m"], c["k"], c["n"]
        b = c["blocks"]
        size = DTYPE_BYTES[c["dtype"]]
        gm, gn, gk = m // b["bm"], n // b["bn"], k // b["bk"]
        blocks = gm * gn
        computed = c.get("computed_output_blocks", blocks)
        flops = 2 * b["bm"] * b["bk"] * b["bn"]
        fetch = (b["bm"] * b["bk"] + b["bk"] * b["bn"]) * size
        write = b["bm"] * b["bn"] * size
        self.compute = [(computed * (gk - 1), flops, fetch),
                        (computed, flops, fetch + write)]
        if computed < blocks:
            self.compute.append(((blocks - computed) * gk, 0, 0))
        self.compute = [g for g in self.compute if g[0] > 0]

    # Collective cases ----------------------------------------------------

    def all_gather(self, c):
        shape, axis = c["topology"], c["axis"]
        nbytes = c.get("simulated_array_bytes") or \
            math.prod(c["array"]) * DTYPE_BYTES[c["dtype"]]
        self.shape = shape
        self.collective = {"kind": "all_gather", "axis": axis, "n": shape[axis],
                           "ring": bool(c["wraparound"]), "bytes": nbytes}

    # Schedules -----------------------------------------------------------

    def schedule(self, target):
        if self.collective:
            return self._collective_schedule(target)
        tasks = []
        for count, flops, nbytes in self.compute:
            task = {"kind": "compute", "name": self.id, "op": "loom.linear",
                    "layer": -1, "slice": 0, "step": 0, "flops": flops,
                    "bytes": nbytes, "deps": []}
            tasks.extend([task] * count)
        return {"format": "loom-schedule", "version": 2,
                "target": {"name": target, "shape": self.shape},
                "chips": [{"id": 0, "tasks": tasks}]}

    def _collective_schedule(self, target):
        # One collective per group along `axis`, all groups at once; `bytes`
        # is the whole array the group gathers.
        shape, axis = self.shape, self.collective["axis"]
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
                    "kind": "collective_start",
                    "collective": self.collective["kind"],
                    "group": group, "tag": tag,
                    "bytes": self.collective["bytes"], "deps": []},
                    {"kind": "collective_done", "start": 0, "deps": []}]})
        chips.sort(key=lambda chip: chip["id"])
        return {"format": "loom-schedule", "version": 2,
                "target": {"name": target, "shape": shape}, "chips": chips}

    def from_run(self, makespan, dispatch):
        """loom-sim's result in the case's unit: the time (with or without
        the program's launch, as the case was timed), or for a bandwidth the
        per-link, per-direction rate of a ring AllGather,
        (n - 1)/n x V / (2 x time)."""
        seconds = makespan if self.dispatch else makespan - dispatch
        if self.unit == "s":
            return seconds
        n, v = self.collective["n"], self.collective["bytes"]
        links = 2 if self.collective["ring"] else 1
        return (n - 1) / n * v / (links * seconds)

    def seconds_measured(self):
        """The measured value as a time, for the fit."""
        if self.unit == "s":
            return self.measured
        n, v = self.collective["n"], self.collective["bytes"]
        links = 2 if self.collective["ring"] else 1
        return (n - 1) / n * v / (links * self.measured)


BUILDERS = {"matmul": Case.matmul, "matmul_then_multiply": Case.matmul_then_multiply,
            "pallas_matmul": Case.pallas_matmul, "all_gather": Case.all_gather}


def simulated_cases(data):
    """Every case of the file that Loom can simulate, in file order."""
    return [Case(case, section) for section in SECTIONS
            for case in data.get(section, []) if case["op"] in BUILDERS]


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
