"""fedsim.sweep: the sweep.csv of `fedsim sweep` for the same scenario, grid and seeds."""
import pandas as pd
import pytest

import fedsim
from conftest import cli_error, fedsim_cli, scenario_path

TINY = scenario_path("tiny.toml")


def test_sweep_returns_the_table_fedsim_sweep_writes():
    s = fedsim.Scenario.load(TINY).set("world.agents", 4)
    table = fedsim.sweep(s, grid={"algorithm.q": [0.25, 0.5]}, seeds=2, jobs=2, out="py")
    fedsim_cli("sweep", TINY, "--set", "world.agents=4", "--grid", "algorithm.q=0.25,0.5",
               "--seeds", "2", "--jobs", "2", "--out", "cli", "--quiet")
    with open("py/sweep.csv", "rb") as a, open("cli/sweep.csv", "rb") as b:
        assert a.read() == b.read()
    pd.testing.assert_frame_equal(table, pd.read_csv("cli/sweep.csv", float_precision="round_trip"),
                                  check_exact=True)
    assert list(table["algorithm.q"]) == [0.25, 0.5] and list(table["runs"]) == [2, 2]


def test_sweep_of_a_dict_scenario_with_seed_list_and_no_out(tmp_path, monkeypatch):
    import tempfile
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    s = fedsim.Scenario.from_dict(fedsim.Scenario.load(TINY).set("world.agents", 3).to_dict())
    table = fedsim.sweep(s, grid={"world.agents": [2, 3]}, seeds=[5, 9], driver="loop")
    assert list(table["world.agents"]) == [2, 3] and list(table["runs"]) == [2, 2]
    assert list(scratch.iterdir()) == []


def test_a_grid_value_the_loader_refuses_raises_the_cli_message():
    s = fedsim.Scenario.load(TINY)
    with pytest.raises(ValueError) as e:
        fedsim.sweep(s, grid={"algorithm.q": [0.5, 1.5]}, out="x")
    assert str(e.value) == cli_error("sweep", TINY, "--grid", "algorithm.q=0.5,1.5", "--out", "y")


@pytest.mark.parametrize("kwargs,match", [
    ({"grid": {"algorithm.q": 0.5}}, "give a list of values"),
    ({"grid": [("algorithm.q", [0.5])]}, "grid: give a dict"),
    ({"seeds": 0}, "--seeds must be >= 1"),
    ({"seeds": [-1]}, "is not a seed"),
    ({"seeds": "3"}, "give a count"),
    ({"seeds": 2**40}, "seeds: at most 2147483647"),
    ({"jobs": 0}, "--jobs must be >= 1"),
    ({"driver": "bogus"}, "--driver: unknown value 'bogus'"),
    ({"grid": {"algorithm.q": [None]}}, "key 'algorithm.q'"),
])
def test_bad_arguments(kwargs, match):
    s = fedsim.Scenario.load(TINY)
    with pytest.raises((ValueError, TypeError), match=match):
        fedsim.sweep(s, out="x", **kwargs)


SWEEP_INTERRUPT = """
import glob, os, signal, sys, threading, time, fedsim
out = sys.argv[1]
s = fedsim.Scenario.load('scenarios/stragglers/deadline.toml').set('world.agents', 12).set('algorithm.iterations', 30)
def interrupt():  # once a run is finished, as a user's Ctrl-C
    while not glob.glob(os.path.join(out, 'seed=*', 'summary.json')):
        time.sleep(0.01)
    os.kill(os.getpid(), signal.SIGINT)
t = threading.Thread(target=interrupt)
t.start()
try:
    fedsim.sweep(s, seeds=40, out=out)
    print('finished')
except KeyboardInterrupt as e:
    print('KeyboardInterrupt:', e)
t.join()
print('threads', threading.active_count())
"""


def test_ctrl_c_stops_a_sweep_between_runs_keeping_the_finished_ones(tmp_path):
    from conftest import python_script
    out = tmp_path / "sweep"
    proc = python_script(SWEEP_INTERRUPT, str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("KeyboardInterrupt: sweep interrupted"), proc.stdout
    assert lines[-1] == "threads 1"
    finished = list(out.glob("seed=*/summary.json"))
    assert 1 <= len(finished) < 40 and not (out / "sweep.csv").exists()
    # A sweep into the same folder takes the finished runs as they are.
    before = {p: p.stat().st_mtime_ns for p in finished}
    s = fedsim.Scenario.load(scenario_path("stragglers/deadline.toml")).set("world.agents", 12).set("algorithm.iterations", 30)
    table = fedsim.sweep(s, seeds=len(finished) + 1, out=str(out))
    assert list(table["runs"]) == [len(finished) + 1]
    assert {p: p.stat().st_mtime_ns for p in finished} == before
