"""fedsim from Python: a shipped scenario, shrunk, run twice, summarised with pandas.

Runs scenarios/stragglers/deadline.toml (DP-FTS-DE under the deadline policy, with stragglers
and crash-stops) shrunk to 20 agents and 30 iterations, once per deadline, and prints per run
the final regret, the privacy spent and how many reports came late, then the per-agent
observations of the last run. Run from the source tree after building (docs/python.md):

    PYTHONPATH=build/python /usr/bin/python3 examples/python/stragglers.py
"""
import os
import sys

import pandas as pd

import fedsim

here = os.path.dirname(os.path.abspath(__file__))
path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "scenarios", "stragglers", "deadline.toml")
scenario = fedsim.Scenario.load(path).set("world.agents", 20).set("algorithm.iterations", 30)

rows = []
for deadline in (0.5, 1.0, 2.0):
    s = scenario.copy().set("policy.deadline", deadline)
    r = fedsim.run(s, seed=1)  # no out: a temporary folder, removed once read
    rows.append({
        "deadline": deadline,
        "final regret": r.summary["mean_final_simple_regret"],
        "epsilon": r.summary["epsilon"],
        "rounds": len(r.rounds),
        "late reports": int(r.rounds["late"].sum()),
        "messages lost": int((r.events["event"] == "drop").sum()),
    })
print(pd.DataFrame(rows).to_string(index=False))

print()
per_agent = r.observations.groupby("agent").agg(observations=("y", "size"), best_y=("y", "max"))
print("last run, per agent:")
print(per_agent.describe().loc[["mean", "min", "max"]].to_string())
