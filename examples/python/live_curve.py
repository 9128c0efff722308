"""fedsim from Python: a run's regret per round, printed (and drawn) while the run goes.

Runs scenarios/stragglers/deadline.toml (DP-FTS-DE under the deadline policy, with stragglers
and crash-stops) shrunk to 20 agents and 40 iterations, with an observer (docs/python.md,
"Observers") that receives each round's record as the round closes and prints its virtual
time, how many reports it aggregated and came late, and the mean simple regret so far. With
matplotlib, the curve is drawn too, redrawn as rounds come; `--png FILE` saves the final
figure (for a machine without a display). Run from the source tree after building:

    PYTHONPATH=build/python /usr/bin/python3 examples/python/live_curve.py [SCENARIO] [--png FILE]

The observer is called on the run's own threads: a GUI toolkit must be driven from the main
thread, so the run goes on a thread of its own and the main thread redraws what the observer
collected. (Without drawing, fedsim.run can simply be called from the main thread; Ctrl-C
then stops it. Here Ctrl-C is seen by the main thread only, between redraws.)
"""
import argparse
import os
import threading
import time

import fedsim

here = os.path.dirname(os.path.abspath(__file__))
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("scenario", nargs="?",
                    default=os.path.join(here, "..", "..", "scenarios", "stragglers", "deadline.toml"))
parser.add_argument("--png", help="save the final figure to this file (needs matplotlib)")
args = parser.parse_args()

scenario = fedsim.Scenario.load(args.scenario).set("world.agents", 20).set("algorithm.iterations", 40)


class RegretCurve:
    """Receives the run's round records (and its end record) as they come."""

    def __init__(self):
        self.rounds, self.regret = [], []
        self.ended = None

    def round(self, r):
        self.rounds.append(r["round"])
        self.regret.append(r["regret"] if r["regret"] is not None else float("nan"))
        regret = "   n/a" if r["regret"] is None else f"{r['regret']:.4f}"
        print(f"round {r['round']:3d}  t {r['t']:7.2f}  aggregated {r['participants']:2d}"
              f"  late {r['late']:2d}  alive {r['alive']:2d}  regret {regret}", flush=True)

    def end(self, r):
        self.ended = r
        print(f"end: completed {r['completed']}, {r['rounds']} rounds, final simple regret "
              f"{r.get('final_simple_regret')}", flush=True)


curve = RegretCurve()
try:
    import matplotlib
    if args.png:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    plt = None
if args.png and plt is None:
    parser.error("--png: matplotlib is not installed")

if plt is None:
    fedsim.run(scenario, seed=1, observer=curve)  # prints as it goes
else:
    failure = []

    def work():
        try:
            fedsim.run(scenario, seed=1, observer=curve)
        except BaseException as e:  # shown by the main thread
            failure.append(e)

    runner = threading.Thread(target=work)
    runner.start()
    interactive = not args.png
    if interactive:
        plt.ion()
    fig, ax = plt.subplots()
    (line,) = ax.plot([], [], marker=".")
    ax.set_xlabel("round")
    ax.set_ylabel("mean simple regret so far")
    ax.set_title(scenario.name)
    shown = 0
    while runner.is_alive() or shown < len(curve.rounds):
        n = len(curve.rounds)  # the observer appends; the main thread only reads
        if n != shown:
            line.set_data(curve.rounds[:n], curve.regret[:n])
            ax.relim()
            ax.autoscale_view()
            shown = n
        if interactive:
            plt.pause(0.1)
        else:
            time.sleep(0.1)
    runner.join()
    if failure:
        raise failure[0]
    if args.png:
        fig.savefig(args.png)
        print("figure:", args.png)
    elif interactive:
        plt.ioff()
        plt.show()
