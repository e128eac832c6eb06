"""Loom from Python: plan, search and export layouts of transformer and DiT
models on TPU v5e slices, in process, with the library loom-plan runs.

    import loom
    p = loom.plan("llama-7b", "v5e-8", tp=8)
    p.predicted_s, p.simulated_s, p.layout
    ranked = loom.search("llama-7b", "v5e-8")
    print(p.emit("maxtext"))

Keyword arguments are loom-plan's options with `_` for `-` (`data_parallel=2`
is `--data-parallel 2`), with its names and defaults: the package passes
them to the same option declarations. docs/python.md says more.
"""

import json
import os
import tempfile

from . import _loom

__all__ = ["LoomError", "Plan", "Ranking", "plan", "search", "load_plan", "simulate"]


class LoomError(Exception):
    """What loom-plan would have printed as its error: the located message
    (a config field, a refused layout, an option out of range)."""


def _option(key, value):
    name = "--" + key.replace("_", "-")
    if value is True:
        return [name]
    if value is False:
        return [name + "=false"]
    if isinstance(value, (list, tuple)):
        value = ",".join(str(v) for v in value)
    return [f"{name}={value}"]


class _Config:
    """A model given as a dict: written to a temporary config.json for the
    call's length (the importer reads files)."""

    def __init__(self, model):
        self.model, self.path = model, None

    def __enter__(self):
        if isinstance(self.model, dict):
            fd, self.path = tempfile.mkstemp(suffix=".json", prefix="loom-model-")
            with os.fdopen(fd, "w") as f:
                json.dump(self.model, f)
            return self.path
        return None if self.model is None else os.fspath(self.model)

    def __exit__(self, *exc):
        if self.path:
            os.unlink(self.path)


def _run(model, target, options, extra):
    with _Config(model) as path:
        args = []
        if path is not None:
            args += ["--model", path]
        if target is not None:
            args += ["--target", str(target)]
        for key, value in options.items():
            if value is not None:
                args += _option(key, value)
        code, out, err = _loom.run_plan(args + extra)
    if code != 0:
        raise LoomError(err.strip() or out.strip())
    return out


class Plan:
    """A plan as loom-plan reports it. `report` is its --json report (a
    dict); each of its keys reads as an attribute (`p.tp`, `p.predicted_s`,
    `p.simulated_s`, `p.slices`, `p.memory`, `p.training`...)."""

    def __init__(self, report, model, target, options):
        self.report = report
        self._call = (model, target, dict(options))
        self._html = None

    def __getattr__(self, name):
        report = self.__dict__.get("report", {})
        if name in report:
            return report[name]
        raise AttributeError(name)

    @property
    def layout(self):
        """The layout's dimensions (tp, stages, data_parallel, ...), as the
        plan-file keys name them."""
        return {k: self.report[k] for k in _loom.layout_keys() if k in self.report}

    def _again(self, extra):
        model, target, options = self._call
        return _run(model, target, options, extra)

    def save(self, path):
        """Writes the plan file loom-plan --save-plan writes
        (docs/plan-format.md); loom.load_plan reads it back."""
        self._again(["--save-plan", os.fspath(path)])

    def emit(self, runtime):
        """The runtime's configuration (`maxtext` or `maxdiffusion`), as
        --emit writes it."""
        return self._again(["--emit", runtime])

    def _repr_html_(self):
        if self._html is None:
            fd, path = tempfile.mkstemp(suffix=".html", prefix="loom-report-")
            os.close(fd)
            os.unlink(path)
            try:
                self._again(["--html", path])
                with open(path) as f:
                    self._html = f.read()
            finally:
                if os.path.exists(path):
                    os.unlink(path)
        return self._html

    def __repr__(self):
        time = self.report.get("simulated_s", self.report.get("predicted_s"))
        return f"<loom.Plan {self.report.get('model')} on {self.report.get('topology')}: {time} s>"



def plan(model=None, target=None, **options):
    """Plans `model` (a bundled name, a config.json path, or a config as a
    dict) on `target` (a topology such as "v5e-16" or "2xv5e-256") with
    loom-plan's options; with no layout option, searches and returns the
    winner. Raises LoomError with loom-plan's message when it cannot."""
    out = _run(model, target, options, ["--json"])
    return Plan(json.loads(out), model, target, options)


class Ranking(list):
    """A search's plans, best first: a list of reports (dicts), each a row of
    a table (pandas.DataFrame(ranking)); a notebook shows the ranking."""

    COLUMNS = (("plan", None), ("tp", "tp"), ("stages", "stages"),
               ("dp", "data_parallel"), ("predicted ms", "predicted_s"),
               ("simulated ms", "simulated_s"), ("efficiency", "efficiency"))

    def _repr_html_(self):
        import html
        head = "".join(f"<th>{html.escape(name)}</th>" for name, _ in self.COLUMNS)
        rows = []
        for rank, row in enumerate(self, 1):
            cells = [str(rank)]
            for _, key in self.COLUMNS[1:]:
                value = row.get(key)
                if key.endswith("_s") and value is not None:
                    value = f"{value * 1e3:.3f}"
                elif key == "efficiency" and value is not None:
                    value = f"{100 * value:.1f}%"
                cells.append("-" if value is None else str(value))
            rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def search(model=None, target=None, **options):
    """The ranked plans of a search (loom-plan --search --json), best first:
    a Ranking of reports (dicts)."""
    return Ranking(json.loads(_run(model, target, options, ["--search", "--json"])))


def simulate(path, target=None, target_file=None):
    """Runs a schedule file (docs/schedule-format.md) on the simulator, on
    its own target, a bundled one (`target`) or a target file's: the
    report loom-sim --json prints, as a dict."""
    report, error = _loom.simulate(os.fspath(path), target or "",
                                   os.fspath(target_file) if target_file else "")
    if error:
        raise LoomError(error)
    return json.loads(report)


def load_plan(path):
    """Replays a plan file (loom-plan --plan)."""
    return plan(plan=os.fspath(path))
