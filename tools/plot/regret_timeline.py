"""The agents' mean simple regret as a step function of virtual time, from a run's
observations.csv rows: shared by `fedsim plot` (its regret_time view) and
tools/results/per_run_metrics.py (`tools/results_page.py --study-metrics`: the straggler study's
time to a regret threshold). numpy only, no matplotlib.
"""
import numpy as np


def regret_over_time(rows):
    """The agents' mean simple regret as a step function of virtual time: (times, means), one
    point per distinct time of observations.csv. The mean is over the agents that have any row,
    each at its latest row so far (a crashed agent keeps its last value), and starts once each
    of them has observed (rows of one time are applied together)."""
    # Sorted by time alone: the sort is stable, so an agent's rows of one time (its initial
    # design) keep the file's order, the last being its regret after them.
    events = sorted(((float(r["time"]), int(r["agent"]), float(r["simple_regret"])) for r in rows),
                    key=lambda e: e[0])
    agents = len({n for _, n, _ in events})
    last, total, times, means = {}, 0.0, [], []
    i = 0
    while i < len(events):
        t = events[i][0]
        while i < len(events) and events[i][0] == t:
            _, n, r = events[i]
            total += r - last.get(n, 0.0)
            last[n] = r
            i += 1
        if len(last) == agents:
            times.append(t)
            means.append(total / agents)
    return np.array(times), np.array(means)
