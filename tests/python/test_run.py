"""fedsim.run: the same files as `fedsim run` for the same scenario and seed, its tables read
back, and its errors."""
import json
import math
import os
import tempfile
import threading

import pandas as pd
import pytest

import fedsim
from conftest import cli_error, fedsim_cli, python_script, scenario_path

# Three shipped scenarios, shrunk to well under a second each: FBO (DP-FTS-DE) under the
# deadline policy with stragglers and crashes (t = 20 s: the run lasts ~40 s of virtual time),
# Fed-PNE, and a private DP-FTS-DE run on a perfect network.
SHRUNK = {
    "deadline": ("stragglers/deadline.toml", {"world.agents": 12, "algorithm.iterations": 30}),
    "fed-pne": ("xarmed/garland.toml", {"world.agents": 4}),
    "private": ("dp-fts-de-synthetic.toml", {"world.agents": 10, "algorithm.iterations": 10}),
}

# summary.json fields not compared: measured, not computed (the wall time), or the commit
# each was linked at (the module and the binary may be built at different commits, as
# tools/golden leaves it out too).
NOT_COMPARED = {"wall_time_s", "build"}


def shrunk(name):
    file, keys = SHRUNK[name]
    s = fedsim.Scenario.load(scenario_path(file))
    for k, v in keys.items():
        s.set(k, v)
    return s


def cli_run(name, out, *extra):
    file, keys = SHRUNK[name]
    sets = [a for k, v in keys.items() for a in ("--set", f"{k}={v}")]
    fedsim_cli("run", scenario_path(file), *sets, "--out", out, "--quiet", *extra)


def run_files(folder):
    return sorted(f for f in os.listdir(folder) if not f.startswith("."))


def summary_without_measures(folder):
    with open(os.path.join(folder, "summary.json")) as f:
        return {k: v for k, v in json.load(f).items() if k not in NOT_COMPARED}


def assert_same_run(a, b):
    """Every file of run folder a equals b's byte for byte, summary.json but NOT_COMPARED."""
    assert run_files(a) == run_files(b)
    for f in run_files(a):
        if f == "summary.json":
            assert summary_without_measures(a) == summary_without_measures(b)
        else:
            with open(os.path.join(a, f), "rb") as x, open(os.path.join(b, f), "rb") as y:
                assert x.read() == y.read(), f


def assert_same_tables(r, q):
    for name in ("observations", "rounds", "phases", "privacy_agents", "events"):
        x, y = getattr(r, name), getattr(q, name)
        assert (x is None) == (y is None), name
        if x is not None:
            pd.testing.assert_frame_equal(x, y, check_exact=True)


@pytest.mark.parametrize("name", sorted(SHRUNK))
def test_run_writes_what_fedsim_run_writes(name):
    r = fedsim.run(shrunk(name), out="py", seed=3)
    cli_run(name, "cli", "--seed", "3")
    assert_same_run("py", "cli")
    assert r.out == "py" and r.completed and r.summary["seed"] == 3
    assert_same_tables(r, fedsim.read_run("cli"))
    assert len(r.observations) > 0


def test_tables_are_the_files_and_none_when_not_written():
    r = fedsim.run(shrunk("deadline"), out="d")
    assert r.observations.equals(pd.read_csv("d/observations.csv", float_precision="round_trip"))
    assert list(r.rounds.columns) == open("d/rounds.csv").readline().strip().split(",")
    assert r.phases is None  # an FBO run writes no phases.csv
    assert r.privacy_agents is not None and len(r.privacy_agents) == 12
    assert {"time", "event"} <= set(r.events.columns)
    assert {"late", "drop"} <= set(r.events["event"])  # the stragglers and crashes happened
    p = fedsim.run(shrunk("fed-pne"))
    assert p.rounds is None and p.privacy_agents is None and len(p.phases) > 0


def test_one_and_four_threads_write_the_same_files():
    s = shrunk("deadline")
    fedsim.run(s, out="t1", threads=1)
    fedsim.run(s, out="t4", threads=4)
    assert_same_run("t1", "t4")


def test_loop_driver_as_fedsim_run():
    s = fedsim.Scenario.load(scenario_path("tiny.toml"))
    fedsim.run(s, out="py", driver="loop")
    fedsim_cli("run", scenario_path("tiny.toml"), "--driver", "loop", "--out", "cli", "--quiet")
    assert_same_run("py", "cli")


def test_without_out_nothing_is_left(tmp_path, monkeypatch):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    r = fedsim.run(shrunk("private"))
    assert r.out is None and len(r.observations) > 0
    assert list(scratch.iterdir()) == []


def test_a_path_is_a_scenario():
    r = fedsim.run(scenario_path("tiny.toml"), driver="loop")
    assert r.summary["scenario"] == "tiny"


@pytest.mark.parametrize("kwargs,cli_args", [
    ({"driver": "bogus"}, ["--driver", "bogus"]),
    ({"driver": "actors"}, []),  # hct runs with the loop only
])
def test_bad_driver_raises_the_cli_message(kwargs, cli_args):
    s = fedsim.Scenario.load(scenario_path("papers/hct-garland.toml"))
    with pytest.raises(ValueError) as e:
        fedsim.run(s, **kwargs)
    assert str(e.value) == cli_error("run", scenario_path("papers/hct-garland.toml"), *cli_args, "--out", "x")


def test_bad_arguments():
    s = fedsim.Scenario.load(scenario_path("tiny.toml"))
    with pytest.raises(ValueError, match="threads must be >= 0"):
        fedsim.run(s, threads=-1)
    with pytest.raises(TypeError):
        fedsim.run(s, threads="2")
    with pytest.raises(TypeError):
        fedsim.run(42)
    for seed in (-1, 2**63, 1.5, True):
        with pytest.raises(ValueError, match="expected an integer in"):
            fedsim.run(s, seed=seed)
    with pytest.raises(fedsim.ScenarioError):
        fedsim.run("no-such.toml")


def test_an_out_holding_another_run_is_refused_as_by_fedsim_run():
    s = fedsim.Scenario.load(scenario_path("tiny.toml"))
    fedsim.run(s, out="o", driver="loop")
    other = s.copy().set("world.agents", 4)
    with pytest.raises(ValueError) as e:
        fedsim.run(other, out="o", driver="loop")
    assert str(e.value) == cli_error("run", scenario_path("tiny.toml"), "--set", "world.agents=4",
                                     "--driver", "loop", "--out", "o")
    fedsim.run(other, out="o", driver="loop", force=True)
    assert fedsim.read_run("o").summary["agents"] == 4


def test_a_failed_run_raises_run_error_and_the_interpreter_goes_on(monkeypatch):
    s = shrunk("private")
    monkeypatch.setenv("FEDSIM_DEBUG_FAIL_AGENT", "2")
    cli = fedsim_cli("run", scenario_path("dp-fts-de-synthetic.toml"), "--set", "world.agents=10",
                     "--set", "algorithm.iterations=10", "--out", "cli", "--quiet", check=False)
    assert cli.returncode == 1
    with pytest.raises(fedsim.RunError) as e:
        fedsim.run(s, out="py")
    assert cli.stderr.strip().splitlines() == ["fedsim: failed: " + str(e.value)]
    assert not os.path.exists("py/summary.json")
    monkeypatch.delenv("FEDSIM_DEBUG_FAIL_AGENT")
    assert fedsim.run(s, out="py").completed
    assert threading.active_count() == 1


def test_the_interpreter_exits_cleanly_after_a_failed_run():
    proc = python_script(
        "import os, fedsim\n"
        "os.environ['FEDSIM_DEBUG_FAIL_AGENT'] = '1'\n"
        "s = fedsim.Scenario.load('scenarios/tiny.toml')\n"
        "try:\n"
        "    fedsim.run(s)\n"
        "except fedsim.RunError as e:\n"
        "    print('RunError:', e)\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("RunError: agent 1")


INTERRUPT = """
import os, signal, sys, threading, time, fedsim
out, root = sys.argv[1] or None, sys.argv[2]
s = fedsim.Scenario.load('scenarios/stragglers/deadline.toml').set('algorithm.iterations', 400)
def staged():  # the run's staging folder (.NAME.tmp-PID) exists: the run is under way
    return any('.tmp-' in d for _, dirs, _ in os.walk(root) for d in dirs)
def interrupt():  # as a user's Ctrl-C
    while not staged():
        time.sleep(0.01)
    time.sleep(0.2)
    os.kill(os.getpid(), signal.SIGINT)
t = threading.Thread(target=interrupt)
t.start()
try:
    fedsim.run(s, out=out)
    print('finished')
except KeyboardInterrupt as e:
    print('KeyboardInterrupt:', e)
t.join()
print('threads', threading.active_count())
"""


@pytest.mark.parametrize("keep", [True, False])
def test_ctrl_c_stops_the_run_with_keyboard_interrupt(tmp_path, keep):
    out = str(tmp_path / "kept") if keep else ""
    scratch = tmp_path / "tmp"  # the interpreter's temporary folders
    scratch.mkdir()
    proc = python_script(INTERRUPT, str(out), str(tmp_path), env={"TMPDIR": str(scratch)})
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("KeyboardInterrupt:"), proc.stdout
    assert lines[-1] == "threads 1"  # no thread of the run is left
    if keep:
        assert "checkpoint saved in" in lines[0] and "fedsim run --resume" in lines[0]
        assert os.path.isdir(os.path.join(out, "checkpoint"))
        assert not os.path.exists(os.path.join(out, "summary.json"))
    else:
        assert lines[0].startswith("KeyboardInterrupt: run interrupted after ")  # at a checkpoint
        assert list(scratch.iterdir()) == []


def test_a_run_that_cannot_complete_warns_and_returns_why():
    # tests/tools/incomplete_run_test.cpp's run: agent 1 crashes for good at t = 0 and rounds
    # wait for ever.
    s = (fedsim.Scenario.load(scenario_path("tiny.toml")).set("policy.round_timeout", math.inf)
         .set("world.network.crashes", [{"agents": [1], "time": 0.0, "recover": math.inf}]))
    with pytest.warns(fedsim.IncompleteRunWarning, match="round 0 never closed"):
        r = fedsim.run(s, out="py")
    assert not r.completed and "round 0 never closed" in r.reason
    assert r.summary["completed"] is False and r.summary["reason"] == r.reason
    cli = fedsim_cli("run", scenario_path("tiny.toml"), "--set", "policy.round_timeout=inf",
                     "--set", "world.network.crashes=[{agents=[1],time=0.0,recover=inf}]",
                     "--out", "cli", "--quiet", check=False)
    assert cli.returncode == 3
    assert_same_run("py", "cli")
