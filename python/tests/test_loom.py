"""The loom package against loom-plan: the same plans from the same
arguments, errors as exceptions with loom-plan's message, dict configs,
plan files, runtime configs and the notebook's HTML."""

import json
import os
import subprocess

import pytest

import loom

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LOOM_PLAN = os.path.join(os.environ.get("LOOM_BIN", os.path.join(ROOT, "build", "bin")),
                         "loom-plan")


def cli(*args):
    out = subprocess.run([LOOM_PLAN, *args, "--json"], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout
    return json.loads(out)


@pytest.mark.parametrize("model,target,options,args", [
    ("llama-7b", "v5e-8", {"tp": 8}, ["--tp", "8"]),
    ("llama-7b", "v5e-4", {"tp": 4, "mode": "decode", "batch": 8, "seq": 1024},
     ["--tp", "4", "--mode", "decode", "--batch", "8", "--seq", "1024"]),
    ("dit-xl-2", "v5e-4", {"tp": 2, "stages": 2},
     ["--tp", "2", "--stages", "2"]),
    ("llama-7b", "v5e-16", {"mode": "train", "batch": 32, "seq": 512, "tp": 8, "stages": 2,
                            "microbatches": 4, "schedule": "1f1b", "remat": "full",
                            "slices": 2},
     ["--mode", "train", "--batch", "32", "--seq", "512", "--tp", "8", "--stages", "2",
      "--microbatches", "4", "--schedule", "1f1b", "--remat", "full", "--slices", "2"]),
])
def test_plan_is_loom_plans(model, target, options, args):
    ours = loom.plan(model, target, **options)
    theirs = cli("--model", model, "--target", target, *args)
    assert ours.report == theirs
    assert ours.predicted_s == theirs["predicted_s"]
    assert ours.layout["tp"] == theirs["tp"]
    # The layout is every dimension loom-plan declares, as the report has it.
    assert set(ours.layout) == set(loom._loom.layout_keys())
    assert {"tp", "stages", "slices", "fsdp", "remat"} <= set(ours.layout)


def test_search_ranks_as_loom_plan_does():
    ranked = loom.search("llama-7b", "v5e-8", search_threads=1)
    theirs = cli("--model", "llama-7b", "--target", "v5e-8", "--search",
                 "--search-threads", "1")
    assert ranked == theirs
    assert len(ranked) > 1 and all("predicted_s" in row for row in ranked)


def test_errors_raise_with_loom_plans_message():
    with pytest.raises(loom.LoomError, match="not divisible by tp = 3"):
        loom.plan("llama-7b", "v5e-8", tp=3)
    with pytest.raises(loom.LoomError, match="Unknown command line argument '--tpp=3'"):
        loom.plan("llama-7b", "v5e-8", tpp=3)
    with pytest.raises(loom.LoomError, match="help"):
        loom.plan("llama-7b", "v5e-8", help=True)
    # A call after a refused one starts from the defaults again.
    assert loom.plan("llama-7b", "v5e-8", tp=8).tp == 8


def test_a_dict_config_plans_as_its_file():
    with open(os.path.join(ROOT, "models", "llama-7b.json")) as f:
        config = json.load(f)
    ours = loom.plan(config, "v5e-8", tp=8)
    named = loom.plan("llama-7b", "v5e-8", tp=8)
    assert ours.predicted_s == named.predicted_s
    assert ours.simulated_s == named.simulated_s
    del config["num_attention_heads"]
    with pytest.raises(loom.LoomError, match="num_attention_heads"):
        loom.plan(config, "v5e-8", tp=8)


def test_a_saved_plan_replays(tmp_path):
    p = loom.plan("llama-7b", "v5e-8", tp=4, data_parallel=2, batch=2)
    path = tmp_path / "plan.json"
    p.save(path)
    q = loom.load_plan(path)
    assert q.layout == p.layout
    assert q.predicted_s == p.predicted_s


def test_emit_and_the_notebooks_html():
    p = loom.plan("llama-7b", "v5e-8", tp=8)
    assert "ici_tensor_parallelism: 8" in p.emit("maxtext")
    html = p._repr_html_()
    assert html.lstrip().startswith("<!DOCTYPE html>")


def test_a_search_lets_python_run():
    # The plan or search runs with the GIL released: Python's other threads
    # go on meanwhile. Holding it, the search would stop this thread's loop
    # for its whole length; released, the loop's longest pause is a small
    # part of it.
    import threading
    import time
    done = threading.Event()
    span = []

    def work():
        start = time.monotonic()
        loom.search("llama-7b", "v5e-8", search_threads=1)
        span.append(time.monotonic() - start)
        done.set()

    thread = threading.Thread(target=work)
    last, longest = time.monotonic(), 0.0
    thread.start()
    while not done.is_set():
        now = time.monotonic()
        longest, last = max(longest, now - last), now
    thread.join()
    assert longest < 0.5 * span[0], (longest, span[0])


@pytest.mark.parametrize("schedule", ["two-chips.json", "multislice.json"])
def test_simulate_is_loom_sims(schedule):
    path = os.path.join(ROOT, "test", "Sim", "Inputs", schedule)
    theirs = json.loads(subprocess.run(
        [os.path.join(os.path.dirname(LOOM_PLAN), "loom-sim"), "--json", path],
        capture_output=True, text=True, check=True).stdout)
    assert loom.simulate(path) == theirs


def test_simulate_refuses_as_loom_sim_does():
    path = os.path.join(ROOT, "test", "Sim", "Inputs", "deadlock.json")
    with pytest.raises(loom.LoomError, match="dependency cycle"):
        loom.simulate(path)
    with pytest.raises(loom.LoomError, match="unknown target 'tpu-v9'"):
        loom.simulate(os.path.join(ROOT, "test", "Sim", "Inputs", "two-chips.json"),
                      target="tpu-v9")


def test_a_search_shows_as_its_ranking():
    ranked = loom.search("llama-7b", "v5e-8", search_threads=1)
    html = ranked._repr_html_()
    assert html.count("<tr>") == len(ranked) + 1
    assert f"<td>{ranked[0]['tp']}</td>" in html


def test_a_target_file_is_loom_plans():
    target = os.path.join(ROOT, "targets", "tpu-v5e.json")
    ours = loom.plan("llama-7b", "v5e-8", tp=8, target_file=target)
    theirs = cli("--model", "llama-7b", "--target", "v5e-8", "--tp", "8",
                 "--target-file", target)
    assert ours.report == theirs
    with pytest.raises(loom.LoomError, match="no-such-target.json"):
        loom.plan("llama-7b", "v5e-8", tp=8, target_file="/no-such-target.json")


def test_calls_from_two_threads_both_end():
    # One call plans while another waits for the options: both end, each
    # with its own plan.
    import threading
    results = {}

    def work(tp):
        results[tp] = loom.plan("llama-7b", "v5e-8", tp=tp).tp

    threads = [threading.Thread(target=work, args=(tp,), daemon=True)
               for tp in (2, 4, 8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(thread.is_alive() for thread in threads)
    assert results == {2: 2, 4: 4, 8: 8}
