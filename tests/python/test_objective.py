"""Objectives in Python (issue 36, part 3): fedsim.run(..., objective=obj) evaluates obj in
process, on the actors' threads, with the GIL taken around each call."""
import math
import sys
import threading

import pytest

import fedsim
from conftest import fedsim_cli, scenario_path
from test_run import assert_same_run

COMMAND = scenario_path("objectives/command-quadratic.toml")

# The same function as a command objective's worker (docs/external-objectives.md) and as a
# Python objective: f(x) = -sum_i (x_i - 0.3)^2 on [-1, 1]^2, observed without noise, the same
# floating-point operations in the same order.
WORKER = """
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    f = -sum((xi - 0.3) ** 2 for xi in r["x"])
    print(json.dumps({"id": r["id"], "y": f, "f": f}), flush=True)
"""


class Quadratic:
    dimension = 2
    lower = [-1.0, -1.0]
    upper = [1.0, 1.0]
    optimum = 0.0

    def __init__(self):
        self.calls = 0
        self.threads = set()

    def evaluate(self, agent, x):
        self.calls += 1
        self.threads.add(threading.get_ident())
        f = -sum((xi - 0.3) ** 2 for xi in x.tolist())
        return f, f


def command_scenario(tmp_path):
    worker = tmp_path / "worker.py"
    worker.write_text(WORKER)
    command = [sys.executable, str(worker)]
    s = fedsim.Scenario.load(COMMAND).set("world.objective.command", command)
    return s, "world.objective.command=" + str(command).replace("'", '"')


def test_a_python_objective_gives_the_files_of_the_same_command_objective(tmp_path):
    s, command_set = command_scenario(tmp_path)
    fedsim_cli("run", COMMAND, "--set", command_set, "--out", "cli", "--quiet")
    q = Quadratic()
    r = fedsim.run(s, objective=q, out="py")
    for f in ("observations.csv", "rounds.csv", "privacy_agents.csv", "events.jsonl",
              "config.resolved.toml"):
        with open(f"cli/{f}", "rb") as a, open(f"py/{f}", "rb") as b:
            assert a.read() == b.read(), f
    assert q.calls == len(r.observations) == 8 * (3 + 10)
    assert threading.get_ident() not in q.threads  # called on the actors' threads
    assert r.summary["mean_final_simple_regret"] >= 0  # regret from f and the optimum


def test_one_and_four_threads_give_the_same_files(tmp_path):
    s, _ = command_scenario(tmp_path)
    fedsim.run(s, objective=Quadratic(), out="t1", threads=1)
    fedsim.run(s, objective=Quadratic(), out="t4", threads=4)
    assert_same_run("t1", "t4")


def test_cost_is_virtual_compute_time(tmp_path):
    class Costly(Quadratic):
        def evaluate(self, agent, x):
            y, f = super().evaluate(agent, x)
            return y, None, 0.5 + agent
    s, _ = command_scenario(tmp_path)
    free = fedsim.run(s, objective=Quadratic())
    costly = fedsim.run(s, objective=Costly())
    assert free.summary["virtual_time"] == 0
    assert costly.summary["virtual_time"] >= 13 * 7.5  # agent 7's 13 evaluations, one after another
    assert costly.observations["f"].isna().all()  # f None: no regret


def test_an_exception_fails_the_run_naming_the_agent_with_its_traceback(tmp_path):
    class Failing(Quadratic):
        def evaluate(self, agent, x):
            if agent == 5:
                raise ValueError("no value for agent five")
            return super().evaluate(agent, x)
    s, _ = command_scenario(tmp_path)
    with pytest.raises(fedsim.RunError) as e:
        fedsim.run(s, objective=Failing(), out="f")
    assert str(e.value) == ("agent 5: the Python objective's evaluate raised ValueError: "
                            "no value for agent five")
    assert isinstance(e.value.__cause__, ValueError)
    assert e.value.__cause__.__traceback__ is not None
    assert fedsim.run(s, objective=Quadratic()).completed  # the interpreter goes on
    assert threading.active_count() == 1


@pytest.mark.parametrize("answer,message", [
    (math.nan, "observed a value that is not finite"),
    (math.inf, "observed a value that is not finite"),
    ("high", "evaluate returned 'high': expected a number y"),
    ((1.0, 2.0, 3.0, 4.0), "expected a number y, or a tuple"),
    ((1.0, None, -1.0), "returned cost -1.000000: expected a finite number of seconds >= 0"),
])
def test_a_bad_answer_fails_the_run_naming_the_agent(tmp_path, answer, message):
    class Bad(Quadratic):
        def evaluate(self, agent, x):
            return answer if agent == 2 else super().evaluate(agent, x)
    s, _ = command_scenario(tmp_path)
    with pytest.raises(fedsim.RunError, match="^agent 2: .*" + message.replace("(", r"\(")):
        fedsim.run(s, objective=Bad())


@pytest.mark.parametrize("change,error,message", [
    ({"dimension": 0}, ValueError, r"objective.dimension: must be in \[1, 10000\]"),
    ({"dimension": 2.0}, TypeError, "objective.dimension: give an int"),
    ({"lower": [0.0]}, ValueError, "objective.lower: has 1 entries, dimension is 2"),
    ({"upper": [1.0, math.inf]}, ValueError, r"objective.upper\[1\]: not finite"),
    ({"upper": [-1.0, 1.0]}, ValueError, r"objective.lower\[0\] must be below objective.upper\[0\]"),
    ({"evaluate": None}, TypeError, "objective.evaluate: missing"),
])
def test_a_bad_objective_is_refused_before_the_run(tmp_path, change, error, message):
    s, _ = command_scenario(tmp_path)
    obj = Quadratic()
    for k, v in change.items():
        setattr(obj, k, v)
    with pytest.raises(error, match=message):
        fedsim.run(s, objective=obj, out="never")
    assert not (tmp_path / "never").exists()


def test_where_a_python_objective_cannot_serve(tmp_path):
    s, _ = command_scenario(tmp_path)
    with pytest.raises(ValueError, match='runs with driver="actors"'):
        fedsim.run(s, objective=Quadratic(), driver="loop")
    with pytest.raises(ValueError, match="--driver: unknown value 'bogus'"):
        fedsim.run(s, objective=Quadratic(), driver="bogus")
    with pytest.raises(ValueError, match="serves the FBO family"):
        fedsim.run(scenario_path("xarmed/garland.toml"), objective=Quadratic())
