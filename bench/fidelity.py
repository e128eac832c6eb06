#!/usr/bin/env python3
"""Fidelity of loom-sim against published TPU v5e measurements.

Reads a measurements file (targets/README.md, "Measurements"), writes one
schedule (docs/schedule-format.md) per case Loom can simulate
(bench/cases.py), runs loom-sim --json on it with the bundled (calibrated)
target and prints a markdown table: case, measured, loom-sim, error, and
the geometric mean of |error|. Then leave-one-out: for each case, the
constants are refitted without it (bench/calibrate.py) into a copy of the
target file, and loom-sim --target-file predicts the case from that fit.
The cases Loom does not simulate are listed.

Usage: bench/fidelity.py LOOM_SIM MEASUREMENTS.json [TARGET.json]
  TARGET.json: the target file to refit for leave-one-out (default: the
  measurements' target, targets/<name>.json beside the measurements file).
"""
import json
import math
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import calibrate  # noqa: E402
import cases as cases_mod  # noqa: E402


class Runner:
    """Runs loom-sim, once per distinct (schedule, target file)."""

    def __init__(self, loom_sim, workdir):
        self.loom_sim, self.workdir, self.seen = loom_sim, workdir, {}

    def run(self, schedule, target_file=None):
        text = json.dumps(schedule)
        key = (text, target_file)
        if key not in self.seen:
            path = os.path.join(self.workdir, f"case{len(self.seen)}.json")
            with open(path, "w") as f:
                f.write(text)
            command = [self.loom_sim, "--json", path]
            if target_file:
                command += ["--target-file", target_file]
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode != 0:
                sys.exit(f"fidelity: loom-sim failed on {path}:\n{run.stderr}")
            out = json.loads(run.stdout)
            self.seen[key] = (out["makespan_s"], out["dispatch_s"])
        return self.seen[key]


def show(value, unit):
    if unit != "s":
        return f"{value:.4g} {unit}"
    for scale, suffix in ((1, "s"), (1e-3, "ms"), (1e-6, "us")):
        if value >= scale:
            return f"{value / scale:.4g} {suffix}"
    return f"{value * 1e9:.4g} ns"


def gmean(errors):
    # An exact prediction counts as 0.01%, so that the logarithm exists.
    return math.exp(sum(math.log(max(abs(e), 1e-4)) for e in errors) / len(errors))


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__.strip().splitlines()[-3].strip())
    loom_sim, path = sys.argv[1], sys.argv[2]
    data = cases_mod.load(path)
    target_path = sys.argv[3] if len(sys.argv) == 4 else os.path.join(
        os.path.dirname(os.path.abspath(path)), data["target"] + ".json")
    with open(target_path) as f:
        target_text = f.read()
    target = json.loads(target_text)
    cal = target.get("calibration", {})
    fig = calibrate.figures(target)
    cases = cases_mod.simulated_cases(data)

    with tempfile.TemporaryDirectory() as workdir:
        runner = Runner(loom_sim, workdir)
        print(f"Cases of {os.path.basename(path)} simulated by loom-sim on {data['target']}, "
              f"calibration {cal.get('name', 'nominal')} version {cal.get('version', 0)}:\n")
        print("| case | measured | loom-sim | error | leave-one-out | error |")
        print("|---|---|---|---|---|---|")
        errors, loo_errors = [], []
        for i, case in enumerate(cases):
            schedule = case.schedule(data["target"])
            predicted = case.from_run(*runner.run(schedule))
            error = predicted / case.measured - 1
            errors.append(error)
            # Refit without this case, into a copy of the target file.
            constants, fitted_from = calibrate.fit(cases, fig, exclude=case.id)
            loo_path = os.path.join(workdir, f"loo{i}.json")
            calibrate.write_target(loo_path, target_text, constants, fitted_from,
                                   os.path.basename(path))
            loo = case.from_run(*runner.run(schedule, loo_path))
            loo_error = loo / case.measured - 1
            loo_errors.append(loo_error)
            approx = "~" if case.approx else ""
            print(f"| {case.id} | {approx}{show(case.measured, case.unit)} | "
                  f"{show(predicted, case.unit)} | {100 * error:+.1f}% | "
                  f"{show(loo, case.unit)} | {100 * loo_error:+.1f}% |")
    print(f"\nGeometric mean of |error| over {len(errors)} cases: {100 * gmean(errors):.1f}%; "
          f"largest {100 * max(abs(e) for e in errors):.1f}%")
    print(f"Leave-one-out: geometric mean {100 * gmean(loo_errors):.1f}%, largest "
          f"{100 * max(abs(e) for e in loo_errors):.1f}%; "
          f"{sum(abs(e) <= 0.15 for e in loo_errors)} of {len(loo_errors)} within 15%")
    print("(error = loom-sim / measured - 1; ~ marks a value the source gives approximately;"
          " leave-one-out: loom-sim on the constants refitted without that case)")

    simulated = {case.id for case in cases}
    for section, what in (("other_ops", "other measured ops, not simulated"),
                          ("end_to_end", "end-to-end runs, not simulated here (bench/README.md, "
                           "\"End to end\")")):
        rows = [c for c in data.get(section, []) if c["id"] not in simulated]
        if not rows:
            continue
        print(f"\n{what[0].upper() + what[1:]}:\n")
        print("| case | measured | source |")
        print("|---|---|---|")
        for case in rows:
            print(f"| {case['id']} | {show(case['value'], case['unit'])} | {case['source']['ref']} |")


if __name__ == "__main__":
    main()
