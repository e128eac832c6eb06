#!/usr/bin/env python3
"""Refits the cost model's calibration constants from published measurements.

Reads a measurements file and a target file, fits the constants of the
target's `calibration` section (and `efficiency.mxu_fraction.fitted`) by
weighted least squares on the relative error of every simulated case
(bench/cases.py), and writes them back into the target file with the ids of
the cases each was fitted from. Deterministic: the same files give the same
constants. python3 standard library only.

The model (include/loom/Hardware/CostModel.h), with P the bf16 peak, H the HBM
bandwidth, e_h its assumed efficiency, W a link's bandwidth and alpha the
published hop latency, all read from the target file:

  compute case    t = d [if timed with dispatch]
                      + sum over tasks (k + max(u F / P, B / (H e_h)))
  AllGather       t = c + (n - 1) (alpha + V / (L n W) v_ring|line)
                  (L = 2 links on a ring, 1 on a line)

fitted: d = program_dispatch, k = kernel_step, u = 1 / mxu_efficiency,
c = collective_sync, v = 1 / link_efficiency_{ring,line}. A constant no
remaining case constrains (leave-one-out) falls back to a weak prior: no
fixed cost, and a ring and a line at the same efficiency.

Usage: bench/calibrate.py MEASUREMENTS.json TARGET.json [--check]
  --check: refit and exit 1 if the target file's constants differ.
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as cases_mod  # noqa: E402

# A prior's weight against a case's relative error: enough to fix a constant
# no case constrains, too little to move one a case does.
PRIOR = 1e-3


def figures(target):
    """The target file's fixed figures the fit holds."""
    def choice(o):
        return o[o["use"]]["value"] if "use" in o else o["value"]
    return {"peak": target["chip"]["peak_bf16"]["value"],
            "hbm": target["chip"]["hbm_bandwidth"]["value"],
            "hbm_eff": choice(target["efficiency"]["hbm_bandwidth_fraction"]),
            "link": choice(target["interconnect"]["link_bandwidth"]),
            "hop": choice(target["interconnect"]["hop_latency"])}


def solve(rows, unknowns):
    """Least squares for rows of (coefficients, rhs): normal equations,
    Gaussian elimination with partial pivoting."""
    a = [[0.0] * unknowns for _ in range(unknowns)]
    b = [0.0] * unknowns
    for coef, rhs in rows:
        for i in range(unknowns):
            b[i] += coef[i] * rhs
            for j in range(unknowns):
                a[i][j] += coef[i] * coef[j]
    for col in range(unknowns):
        pivot = max(range(col, unknowns), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        b[col], b[pivot] = b[pivot], b[col]
        for r in range(unknowns):
            if r != col and a[col][col] != 0:
                f = a[r][col] / a[col][col]
                for c in range(col, unknowns):
                    a[r][c] -= f * a[col][c]
                b[r] -= f * b[col]
    return [b[i] / a[i][i] for i in range(unknowns)]


def fit_compute(cases, fig):
    """d, k, u from the compute cases: linear once each task's bound (MXU or
    HBM) is known; iterate on the bounds."""
    compute = [c for c in cases if c.compute]
    u = 1 / 0.9
    for _ in range(50):
        rows = []
        for c in compute:
            t = c.seconds_measured()
            mxu = hbm = steps = 0.0
            for count, flops, nbytes in c.compute:
                m, h = flops / fig["peak"], nbytes / (fig["hbm"] * fig["hbm_eff"])
                steps += count
                if u * m >= h:
                    mxu += count * m
                else:
                    hbm += count * h
            rows.append(([(1.0 if c.dispatch else 0.0) / t, steps / t, mxu / t],
                         (t - hbm) / t))
        rows += [([PRIOR / 1e-4, 0, 0], 0), ([0, PRIOR / 1e-6, 0], 0), ([0, 0, PRIOR], PRIOR)]
        d, k, new_u = solve(rows, 3)
        if abs(new_u - u) < 1e-12:
            break
        u = new_u
    return {"program_dispatch": d, "kernel_step": k, "mxu_efficiency": 1 / u}, \
        [c.id for c in compute if c.dispatch], [c.id for c in compute], [c.id for c in compute]


def fit_collectives(cases, fig):
    """c, v_ring, v_line from the AllGather cases; linear."""
    coll = [c for c in cases if c.collective]
    rows = []
    for c in coll:
        t = c.seconds_measured()
        n, v, ring = c.collective["n"], c.collective["bytes"], c.collective["ring"]
        transfer = (n - 1) * v / ((2 if ring else 1) * n * fig["link"])
        rows.append(([1 / t, transfer / t if ring else 0, 0 if ring else transfer / t],
                     (t - (n - 1) * fig["hop"]) / t))
    # Priors: no synchronisation cost (in units of 1 us); a ring as efficient
    # as a line. A latency-bound case says little of bandwidth, so the tie
    # weighs more than the cost.
    rows += [([PRIOR / 1e-6, 0, 0], 0), ([0, 10 * PRIOR, -10 * PRIOR], 0)]
    csync, v_ring, v_line = solve(rows, 3)
    return {"collective_sync": csync, "link_efficiency_ring": 1 / v_ring,
            "link_efficiency_line": 1 / v_line}, \
        [c.id for c in coll], [c.id for c in coll if c.collective["ring"]], \
        [c.id for c in coll if not c.collective["ring"]]


def fit(cases, fig, exclude=None):
    """The constants, and for each the ids of the cases it was fitted from."""
    use = [c for c in cases if c.id != exclude]
    comp, dispatch_ids, step_ids, mxu_ids = fit_compute(use, fig)
    coll, sync_ids, ring_ids, line_ids = fit_collectives(use, fig)
    constants = {**comp, **coll}
    for key in ("program_dispatch", "kernel_step", "collective_sync"):
        constants[key] = max(constants[key], 0.0)
    for key in ("mxu_efficiency", "link_efficiency_ring", "link_efficiency_line"):
        constants[key] = min(max(constants[key], 0.01), 1.0)
    fitted_from = {"program_dispatch": dispatch_ids, "kernel_step": step_ids,
                   "mxu_efficiency": mxu_ids, "collective_sync": sync_ids,
                   "link_efficiency_ring": ring_ids, "link_efficiency_line": line_ids}
    return constants, fitted_from


def rounded(x):
    return float(f"{x:.4g}")


def write_target(path, text, constants, fitted_from, measurements):
    """Rewrites the constants' values, sources and fitted_from lists in
    place, leaving the rest of the file as it is."""
    source = (f"fitted by bench/calibrate.py from {measurements} "
              "(the cases in fitted_from)")

    def put(text, at, key):
        # The figure object starting at `at`: its value, source, fitted_from.
        end = text.index("}", at)
        block = text[at:end]
        block = re.sub(r'"value": [-0-9.eE+]+',
                       f'"value": {rounded(constants[key])!r}', block, count=1)
        block = re.sub(r'"source": "[^"]*"', '"source": ' + json.dumps(source),
                       block, count=1)
        block = re.sub(r'"fitted_from": \[[^\]]*\]',
                       '"fitted_from": ' + json.dumps(fitted_from[key]), block, count=1)
        return text[:at] + block + text[end:]

    calibration = text.index('"calibration"')
    for key in ("program_dispatch", "kernel_step", "collective_sync",
                "link_efficiency_ring", "link_efficiency_line"):
        text = put(text, text.index(f'"{key}"', calibration), key)
    fraction = text.index('"mxu_fraction"')
    text = put(text, text.index('"fitted"', fraction), "mxu_efficiency")
    with open(path, "w") as f:
        f.write(text)


def target_constants(target):
    cal = target["calibration"]
    out = {key: cal[key]["value"] for key in
           ("program_dispatch", "kernel_step", "collective_sync",
            "link_efficiency_ring", "link_efficiency_line")}
    out["mxu_efficiency"] = target["efficiency"]["mxu_fraction"]["fitted"]["value"]
    return out


def main():
    args = [a for a in sys.argv[1:] if a != "--check"]
    if len(args) != 2:
        sys.exit(__doc__.strip().splitlines()[-2].strip())
    measurements, target_path = args
    data = cases_mod.load(measurements)
    with open(target_path) as f:
        text = f.read()
    target = json.loads(text)
    fig = figures(target)
    constants, fitted_from = fit(cases_mod.simulated_cases(data), fig)
    name = os.path.relpath(measurements, os.path.dirname(os.path.abspath(target_path)) + "/..")
    if "--check" in sys.argv:
        have = target_constants(target)
        wrong = [k for k in constants if rounded(constants[k]) != have[k]]
        if wrong:
            sys.exit(f"calibrate: {target_path}: {', '.join(wrong)} differ from a refit; "
                     f"run bench/calibrate.py {measurements} {target_path}")
        print(f"calibrate: {target_path} matches a refit from {measurements}")
        return
    write_target(target_path, text, constants, fitted_from, name)
    for key, value in constants.items():
        print(f"{key}: {rounded(value)!r}")


if __name__ == "__main__":
    main()
