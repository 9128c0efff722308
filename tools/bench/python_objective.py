#!/usr/bin/env python3
"""Benchmark (not a test; issue 36, part 3): what a Python objective costs per evaluation.

Runs scenarios/objectives/branin.toml (FTS-DE, N agents x (N_init + T) evaluations, shift 0,
no noise, the algorithm's own work made small) three ways, each `repeats` times, best wall time kept:
  - C++: the scenario's own objective (world.objective.kind = "branin", engine/objectives);
  - Python: fedsim.run(objective=...) with the same function in pure Python, called in process
    on the actors' threads with the GIL taken around each call;
  - command: the same Python function behind a command objective (one JSON line per
    evaluation through a pipe to a worker process; docs/external-objectives.md).
and prints each run's wall time and (run - C++ run) / evaluations: the overhead per evaluation.

    PYTHONPATH=build/python /usr/bin/python3 tools/bench/python_objective.py [--agents N] [--iterations T]
"""
import argparse
import math
import os
import sys
import tempfile
import time

import fedsim

HERE = os.path.dirname(os.path.abspath(__file__))
SCENARIO = os.path.join(HERE, "..", "..", "scenarios", "objectives", "branin.toml")

BRANIN = """
import math
def branin(u):  # engine/objectives/test_functions.cpp's Branin::value, negated, on [0, 1]^2
    x1, x2 = -5.0 + 15.0 * u[0], 15.0 * u[1]
    b, c, t = 5.1 / (4.0 * math.pi ** 2), 5.0 / math.pi, 1.0 / (8.0 * math.pi)
    q = x2 - b * x1 * x1 + c * x1 - 6.0
    return -(q * q + 10.0 * (1.0 - t) * math.cos(x1) + 10.0)
"""
WORKER = BRANIN + """
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    f = branin(r["x"])
    print(json.dumps({"id": r["id"], "y": f, "f": f}), flush=True)
"""
exec(BRANIN)


class PythonBranin:
    dimension = 2
    lower = [0.0, 0.0]
    upper = [1.0, 1.0]
    optimum = -5.0 / (4.0 * math.pi)

    def evaluate(self, agent, x):
        f = branin(x)
        return f, f


def best_time(repeats, run):
    best = math.inf
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--agents", type=int, default=20)
    p.add_argument("--iterations", type=int, default=50)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    # The algorithm made cheap (10 features, 10 random candidates, no refinement), so that the
    # evaluations' cost shows.
    s = (fedsim.Scenario.load(SCENARIO).set("world.agents", a.agents)
         .set("algorithm.iterations", a.iterations).set("world.objective.shift", 0.0)
         .set("world.noise_variance", 0.0).set("algorithm.features", 10)
         .set("algorithm.acquisition_candidates", 10).set("algorithm.acquisition_refine", 0))
    evaluations = a.agents * (a.iterations + s.to_dict()["algorithm"]["n_init"])
    with tempfile.TemporaryDirectory() as tmp:
        worker = os.path.join(tmp, "branin_worker.py")
        with open(worker, "w") as f:
            f.write(WORKER)
        command = s.copy().set("world.objective", {
            "kind": "command", "command": [sys.executable, worker], "dimension": 2,
            "lower": [0.0, 0.0], "upper": [1.0, 1.0], "workers": 2})
        cpp = best_time(a.repeats, lambda: fedsim.run(s))
        py = best_time(a.repeats, lambda: fedsim.run(s, objective=PythonBranin()))
        cmd = best_time(a.repeats, lambda: fedsim.run(command))
    print(f"{evaluations} evaluations (N = {a.agents}, T = {a.iterations}), best of {a.repeats}:")
    print(f"  C++ objective      {cpp:7.3f} s")
    for name, t in (("Python objective", py), ("command objective", cmd)):
        print(f"  {name:18} {t:7.3f} s   {1e6 * (t - cpp) / evaluations:8.1f} us per evaluation over C++")


if __name__ == "__main__":
    main()
