"""Per-run metrics that the sweep tables lack, written to a CSV for tools/reproduce
(results_page.py --study-metrics, --run-metrics and --fed-pne-study-metrics)."""
import csv
import json
import os
import sys

import numpy as np

from .common import read_csv

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plot"))
from regret_timeline import regret_over_time  # noqa: E402  (the curve `fedsim plot` draws)


def time_to_threshold(run_dir, threshold):
    """The first virtual time at which the agents' mean simple regret is below threshold.

    The mean at time t is (1/N) sum_n r_n(t), r_n(t) being the simple_regret column of agent
    n's latest row of observations.csv with time <= t (an agent that crashed keeps its last
    value), over the N' agents that have any row in the file (summary.json's final regret
    averages over the same agents; an agent that never observed anything is left out).
    It is defined once each of the N' agents has at least one observation; all rows with the
    same time are applied before the mean is compared — the curve `fedsim plot` draws as
    regret_time (tools/plot/regret_timeline.py). Returns (time or None for never, N').
    """
    rows = read_csv(os.path.join(run_dir, "observations.csv"))
    times, means = regret_over_time(rows)
    below = np.nonzero(means < threshold)[0]
    return (float(times[below[0]]) if len(below) else None), len({r["agent"] for r in rows})


def per_agent_epsilon(summary):
    """summary.json's epsilon_per_agent as three CSV cells (empty when the run has none)."""
    e = summary.get("epsilon_per_agent") or {}
    return {f"epsilon_agent_{k}": e.get(k, "") for k in ("min", "median", "max")}


def study_metrics(sweep_dir, threshold, out_path):
    """Per-run metrics of one study sweep (sweep_runs.csv plus the run folders) to a CSV."""
    runs = read_csv(os.path.join(sweep_dir, "sweep_runs.csv"))
    fields = ["policy", "seed", "mean_final_simple_regret", "time_to_threshold", "threshold",
              "epsilon", "private_releases", "iterations", "agents", "agents_observing",
              "messages_sent", "messages_dropped",
              "virtual_time", "epsilon_agent_min", "epsilon_agent_median", "epsilon_agent_max"]
    with open(out_path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        wr.writeheader()
        for r in runs:
            d = os.path.join(sweep_dir, r["folder"])
            s = json.load(open(os.path.join(d, "summary.json")))
            t, observing = time_to_threshold(d, threshold)
            wr.writerow({"policy": r["policy.kind"], "seed": r["seed"],
                         "mean_final_simple_regret": s["mean_final_simple_regret"],
                         "time_to_threshold": "" if t is None else t, "threshold": threshold,
                         "epsilon": s["epsilon"], "private_releases": s.get("private_releases", ""),
                         "iterations": s["iterations"], "agents": s["agents"],
                         "agents_observing": observing,
                         "messages_sent": s["messages"]["sent"],
                         "messages_dropped": s["messages"]["dropped"],
                         "virtual_time": s["virtual_time"],
                         **per_agent_epsilon(s)})


def run_metrics(sweep_dir, from_iteration, out_path):
    """Per-run metrics of an FBO sweep that sweep_runs.csv lacks, to a CSV.

    One row per run: the sweep's grid values and seed; `selected` and `clipped`, the vectors the
    server selected and clipped, summed over the rounds of rounds.csv (0 without one, e.g. TS),
    and `clipped_percent` = 100 clipped / selected (empty when none was selected); and
    `late_regret`, the mean of summary.json's mean simple-regret curve over iterations
    from_iteration..T (from_iteration = 0 gives the run's regret area).
    """
    runs = read_csv(os.path.join(sweep_dir, "sweep_runs.csv"))
    header = list(runs[0]) if runs else ["seed"]
    keys = header[: header.index("seed")]
    fields = keys + ["seed", "selected", "clipped", "clipped_percent", "from_iteration", "late_regret"]
    out = []  # every row is computed (and checked) before the file is written
    for r in runs:
        d = os.path.join(sweep_dir, r["folder"])
        path = os.path.join(d, "rounds.csv")
        rounds = read_csv(path) if os.path.exists(path) else []
        selected = sum(int(x["selected"]) for x in rounds)
        clipped = sum(int(x["clipped"]) for x in rounds)
        curve = json.load(open(os.path.join(d, "summary.json")))["mean_simple_regret_by_iteration"]
        if not 0 <= from_iteration < len(curve):
            raise SystemExit(f"--from-iteration {from_iteration}: the runs have iterations 0..{len(curve) - 1}")
        out.append({**{k: r[k] for k in keys}, "seed": r["seed"], "selected": selected,
                    "clipped": clipped,
                    "clipped_percent": 100.0 * clipped / selected if selected else "",
                    "from_iteration": from_iteration,
                    "late_regret": float(np.mean(curve[from_iteration:]))})
    with open(out_path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        wr.writeheader()
        wr.writerows(out)


FED_PNE_FIELDS = ["condition", "algorithm", "policy", "seed", "clients", "budget",
                  "clients_finished", "regret_finished", "average_cumulative_regret", "pulls_mean",
                  "phases_closed", "excluded", "late", "finish_mean", "virtual_time",
                  "epsilon", "messages_sent", "messages_dropped"]


def fed_pne_study_metrics(pairs, out_path):
    """Per-run metrics of Fed-PNE study sweeps (CONDITION=SWEEP_DIR pairs) to one CSV.

    Per run: the clients that made their T pulls (the last `step` of a client in
    observations.csv equals the budget), the mean cumulative regret of those clients, the mean
    pulls over all clients, the phases the server closed and the clients it excluded from them
    (phases.csv: sums of `excluded` and `late`), the mean virtual time at which a finishing
    client made its last pull, and from summary.json the average cumulative regret per client
    (every client, so a crashed client's few pulls pull it down), the end of the run
    (`virtual_time`: the last pull), ε and the message counts.
    """
    with open(out_path, "w", newline="") as f:
        wr = csv.DictWriter(f, fieldnames=FED_PNE_FIELDS, lineterminator="\n")
        wr.writeheader()
        for pair in pairs:
            if "=" not in pair:
                raise SystemExit(f"--fed-pne-study-metrics: '{pair}' is not CONDITION=SWEEP_DIR")
            condition, sweep_dir = pair.split("=", 1)
            for r in read_csv(os.path.join(sweep_dir, "sweep_runs.csv")):
                d = os.path.join(sweep_dir, r["folder"])
                s = json.load(open(os.path.join(d, "summary.json")))
                M, T = int(s["clients"]), int(s["budget"])
                last = {m: (0, float("nan"), 0.0) for m in range(M)}  # step, time, regret
                for o in read_csv(os.path.join(d, "observations.csv")):
                    m, step = int(o["client"]), int(o["step"])
                    if step >= last[m][0]:
                        last[m] = (step, float(o["time"]), float(o["cumulative_regret"]))
                done = [v for v in last.values() if v[0] == T]
                phases = read_csv(os.path.join(d, "phases.csv"))
                wr.writerow({
                    "condition": condition, "algorithm": s["algorithm"],
                    "policy": r["policy.kind"], "seed": r["seed"], "clients": M, "budget": T,
                    "clients_finished": len(done),
                    "regret_finished": np.mean([v[2] for v in done]) if done else "",
                    "average_cumulative_regret": s["average_cumulative_regret_per_client"],
                    "pulls_mean": np.mean([v[0] for v in last.values()]),
                    "phases_closed": len(phases),
                    "excluded": sum(int(p["excluded"]) for p in phases),
                    "late": sum(int(p["late"]) for p in phases),
                    "finish_mean": np.mean([v[1] for v in done]) if done else "",
                    "virtual_time": s["virtual_time"],
                    "epsilon": "" if s["epsilon"] is None else s["epsilon"],
                    "messages_sent": s["messages"]["sent"],
                    "messages_dropped": s["messages"]["dropped"]})
