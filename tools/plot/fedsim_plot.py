#!/usr/bin/python3
"""fedsim plot: regret curves, privacy-utility and straggler views of fedsim run and sweep folders.

Run by `fedsim plot DIR... [--out DIR] [--label L ...]` (tools/fedsim/plot_command.cpp) with
Debian's /usr/bin/python3, or directly:

    /usr/bin/python3 tools/plot/fedsim_plot.py --out OUT [--label L ...] -- DIR...

A DIR is a run folder (observations.csv, summary.json, rounds.csv, events.jsonl from
`fedsim run`) or a sweep folder (sweep_runs.csv from `fedsim sweep`, whose columns before `seed`
are the grid keys; every grid point is one curve, averaged over its seeds). Writes into OUT,
each as .png and .svg:

  regret             mean simple regret vs iteration: per run the mean over agents (the curve of
                     summary.json, each agent's regret carried over iterations it did not run),
                     then the mean over a label's runs with a band of +-1 standard error over
                     runs; private runs show their mean eps in the legend
  regret_time        mean simple regret vs virtual time (observations.csv's time column), on
                     200 evenly spaced times from 0 to a label's last observation: per run the
                     mean over its agents of each one's latest simple regret (from the time all
                     of them have observed; a run keeps its final value after it ends), then
                     the mean over runs with +-1 standard error; not drawn when no virtual time
                     passed (a perfect network)
  cumulative_regret  Fed-PNE and HCT runs (observations.csv with client, step,
                     cumulative_regret): the mean over clients vs step; the band is the standard
                     error over clients for one run, over runs (of the per-run client means) for
                     several; a curve of more than 1000 steps (HCT's, one per evaluation) is
                     thinned to 1000 evenly spaced steps, the last one included
  privacy_utility    eps vs final regret (summary.json), one point per run folder or grid point
                     (means over seeds, +-1 standard error bars of the regret); private runs only
  stragglers         late and dropped reports per round (rounds.csv), mean over a label's runs
  staleness          histogram of how many rounds late each late report was, mean count per run:
                     a "late" event of events.jsonl carries the report's round; the server's
                     round at that moment is the number of rounds in rounds.csv that closed at or
                     before the event's time, so staleness = that number - the report's round
                     (at least 1: the report missed its own round)

and plot_data.csv: every number plotted, one row per point (plot, label, x, y, se, n; se is empty
where fewer than two values were averaged, n is how many runs, or clients, went into the point).
Exit codes: 0 done, 2 a folder that is neither kind, 3 matplotlib or numpy missing.
"""
import argparse
import bisect
import csv
import json
import math
import os
import sys

try:
    import numpy as np
    import matplotlib

    matplotlib.use("Agg")  # files only; no display needed
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError as e:
    print(f"fedsim plot: error: {sys.executable} cannot import {e.name}: install Debian's "
          "python3-matplotlib and python3-numpy (tools/setup), or set FEDSIM_PYTHON to a Python "
          "that has them", file=sys.stderr)
    sys.exit(3)

from regret_timeline import regret_over_time  # noqa: E402  (shared with tools/results/per_run_metrics.py)


def fail(message):
    print(f"fedsim plot: error: {message}", file=sys.stderr)
    sys.exit(2)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_summary(folder):
    path = os.path.join(folder, "summary.json")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def fbo_curve(rows, summary):
    """Mean over agents of simple regret after iterations 0..T, as the recorder computes
    summary.json's curve: an agent's last value carries over iterations it did not run.
    Only the learners count: with FTS's peers (world.peer_observations) the target alone; and
    only those that observed anything (summary.json's agents_without_observations are left
    out). None when no agent observed anything."""
    agents = (summary.get("learners", summary["agents"]) if summary
              else 1 + max(int(r["agent"]) for r in rows))
    iterations = summary["iterations"] if summary else max(int(r["iteration"]) for r in rows)
    regret = np.full((agents, iterations + 1), -1.0)
    observed = set()
    for r in rows:
        a, t = int(r["agent"]), int(r["iteration"])
        if a < agents:
            observed.add(a)
        if 0 <= t <= iterations and a < agents:
            regret[a, t] = float(r["simple_regret"])
    if not observed:
        return None
    curve = [0.0] * (iterations + 1)
    for a in range(agents):
        if a not in observed:
            continue
        last = 0.0
        for t in range(iterations + 1):
            if regret[a, t] >= 0:
                last = regret[a, t]
            curve[t] += last / len(observed)  # same order of additions as the recorder
    return np.array(curve)


def pne_curves(rows):
    """Fed-PNE: steps and a clients x steps matrix of cumulative regret (NaN where missing)."""
    steps = sorted({int(r["step"]) for r in rows})
    clients = sorted({int(r["client"]) for r in rows})
    col = {s: k for k, s in enumerate(steps)}
    row = {c: k for k, c in enumerate(clients)}
    m = np.full((len(clients), len(steps)), np.nan)
    for r in rows:
        m[row[int(r["client"])], col[int(r["step"])]] = float(r["cumulative_regret"])
    return np.array(steps), m


def staleness_of(folder, rounds):
    """How many rounds late each late report was (see the module doc), or None without
    events.jsonl."""
    path = os.path.join(folder, "events.jsonl")
    if not os.path.exists(path):
        return None
    closed = sorted(float(r["time"]) for r in rounds)
    out = []
    with open(path) as f:
        for line in f:
            if '"late"' not in line:
                continue
            e = json.loads(line)
            if e.get("event") != "late":
                continue
            current = bisect.bisect_right(closed, float(e["time"]))
            out.append(max(1, current - int(e["round"])))
    return out


class Run:
    """One run folder's numbers."""

    def __init__(self, folder):
        self.folder = folder
        self.summary = read_summary(folder)
        rows = read_csv(os.path.join(folder, "observations.csv"))
        header = rows[0].keys() if rows else []
        self.pne = "cumulative_regret" in header and "client" in header
        if self.pne:
            self.steps, self.client_regret = pne_curves(rows)
        else:
            curve = fbo_curve(rows, self.summary) if rows else None
            self.curve = curve if curve is not None else np.array([])
            self.timeline = regret_over_time(rows)
        path = os.path.join(folder, "rounds.csv")
        self.rounds = read_csv(path) if os.path.exists(path) else None
        self.staleness = staleness_of(folder, self.rounds) if self.rounds is not None else None

    def epsilon(self):
        return self.summary.get("epsilon") if self.summary else None

    def final_regret(self):
        if self.summary and "mean_final_simple_regret" in self.summary:
            return self.summary["mean_final_simple_regret"]
        if self.pne:
            return float(np.nanmean(self.client_regret[:, -1]))
        return float(self.curve[-1])


def mean_se(matrix):
    """Column means and standard errors (ddof 1) over rows, ignoring NaN; counts per column."""
    matrix = np.asarray(matrix, dtype=float)
    n = np.sum(~np.isnan(matrix), axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.nansum(matrix, axis=0) / n
        dev = np.where(np.isnan(matrix), 0.0, matrix - mean)
        var = np.sum(dev * dev, axis=0) / (n - 1)
        se = np.where(n >= 2, np.sqrt(var / n), np.nan)
    return mean, se, n


def stack(arrays):
    """Rows of different lengths as one matrix padded with NaN."""
    width = max((len(a) for a in arrays), default=0)
    m = np.full((len(arrays), width), np.nan)
    for k, a in enumerate(arrays):
        m[k, : len(a)] = a
    return m


def load_groups(dirs, labels):
    """(label, [Run]) per run folder or grid point, in the order given."""
    groups = []
    for k, d in enumerate(dirs):
        given = labels[k] if labels else None
        prefix = given if given is not None else (d if len(dirs) > 1 else "")
        sweep_runs = os.path.join(d, "sweep_runs.csv")
        if os.path.exists(sweep_runs):
            with open(sweep_runs, newline="") as f:
                reader = csv.reader(f)
                header = next(reader)
                rows = list(reader)
            keys = header[: header.index("seed")]
            folder_col = header.index("folder")
            points = {}
            for r in rows:
                grid = " ".join(f"{key}={v}" for key, v in zip(keys, r))
                points.setdefault(grid, []).append(Run(os.path.join(d, r[folder_col])))
            for grid, runs in points.items():
                groups.append(((prefix + " " + grid).strip() or d, runs))
        elif os.path.exists(os.path.join(d, "observations.csv")):
            groups.append((given if given is not None else d.rstrip("/") or d, [Run(d)]))
        else:
            fail(f"DIR '{d}': neither a run folder (observations.csv) nor a sweep folder "
                 "(sweep_runs.csv)")
    seen = {}
    unique = []
    for label, runs in groups:  # two inputs with one label still get two legend entries
        seen[label] = seen.get(label, 0) + 1
        unique.append((label if seen[label] == 1 else f"{label} ({seen[label]})", runs))
    return unique


def fmt(v):
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    return "" if math.isnan(v) else repr(v)


class Figures:
    """Saves each figure as PNG and SVG, and collects the numbers plotted."""

    def __init__(self, out):
        self.out = out
        self.data = []
        self.written = []

    def record(self, plot, label, xs, ys, ses, ns):
        for x, y, se, n in zip(xs, ys, ses, ns):
            self.data.append((plot, label, x, y, se, n))

    def save(self, fig, name):
        fig.tight_layout()
        # bbox_inches="tight" keeps a legend placed outside the axes inside the image.
        fig.savefig(os.path.join(self.out, name + ".png"), dpi=120, bbox_inches="tight",
                    metadata={"Software": None})
        fig.savefig(os.path.join(self.out, name + ".svg"), bbox_inches="tight",
                    metadata={"Date": None})
        plt.close(fig)
        self.written.append(name)

    def write_data(self):
        with open(os.path.join(self.out, "plot_data.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")  # like every other CSV of fedsim
            w.writerow(["plot", "label", "x", "y", "se", "n"])
            for plot, label, x, y, se, n in self.data:
                w.writerow([plot, label, fmt(x), fmt(y), fmt(se), fmt(n)])


def legend(ax):
    """Inside the axes for a few labels; to the right of them for more, so no data is hidden."""
    if len(ax.get_legend_handles_labels()[1]) <= 3:
        ax.legend(fontsize="small")
    else:
        ax.legend(fontsize="small", loc="upper left", bbox_to_anchor=(1.02, 1.0))


def integer_ticks(ax):
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))


def finish(figs, fig, ax, name, xlabel, ylabel, title):
    """Labels one-axes figure, adds its legend and saves it as name.png and name.svg."""
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend(ax)
    figs.save(fig, name)


def band(ax, x, y, se, label):
    # Markers show where the data are; a dense curve (HCT's every step) is drawn as a line.
    line, = ax.plot(x, y, marker="o" if len(x) <= 100 else None, markersize=3, label=label)
    ok = ~np.isnan(se)
    if ok.any():
        ax.fill_between(x[ok], (y - se)[ok], (y + se)[ok], color=line.get_color(), alpha=0.2,
                        linewidth=0)


def plot_regret(figs, groups):
    groups = [(l, rs) for l, rs in groups if not rs[0].pne]
    if not groups:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, runs in groups:
        y, se, n = mean_se(stack([r.curve for r in runs]))
        x = np.arange(len(y))
        eps = [r.epsilon() for r in runs]
        # Private curves carry their privacy loss in the legend (plot_data.csv keeps the label).
        shown = label if any(e is None for e in eps) else f"{label} (ε = {np.mean(eps):.2f})"
        band(ax, x, y, se, shown)
        figs.record("regret", label, x, y, se, n)
    integer_ticks(ax)
    finish(figs, fig, ax, "regret", "iteration", "simple regret (mean over agents)",
           "Simple regret, mean over seeds ± 1 standard error")


def plot_regret_time(figs, groups, points=200):
    """Mean simple regret vs virtual time, on `points` evenly spaced times from 0 to the
    label's last observation; a run contributes from the time all its agents have observed,
    and keeps its final value after its end."""
    groups = [(l, rs) for l, rs in groups if not rs[0].pne and any(
        len(r.timeline[0]) and r.timeline[0][-1] > 0 for r in rs)]
    if not groups:
        print("fedsim plot: no virtual time passed (a perfect network): regret_time not drawn",
              file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, runs in groups:
        grid = np.linspace(0.0, max(r.timeline[0][-1] for r in runs if len(r.timeline[0])), points)
        values = []
        for r in runs:
            times, means = r.timeline
            k = np.searchsorted(times, grid, side="right") - 1
            values.append(np.where(k >= 0, means[np.maximum(k, 0)], np.nan) if len(times)
                          else np.full(points, np.nan))
        y, se, n = mean_se(np.array(values))
        ok = n > 0
        band(ax, grid[ok], y[ok], se[ok], label)
        figs.record("regret_time", label, grid[ok], y[ok], se[ok], n[ok])
    finish(figs, fig, ax, "regret_time", "virtual time (s)", "simple regret (mean over agents)",
           "Simple regret against virtual time, mean over seeds ± 1 standard error")


MAX_CURVE_POINTS = 1000


def thinned(x, y, se, n):
    """At most MAX_CURVE_POINTS evenly spaced points of a curve, the first and last included."""
    if len(x) <= MAX_CURVE_POINTS:
        return x, y, se, n
    keep = np.unique(np.linspace(0, len(x) - 1, MAX_CURVE_POINTS).astype(int))
    return x[keep], y[keep], se[keep], n[keep]


def plot_cumulative(figs, groups):
    groups = [(l, rs) for l, rs in groups if rs[0].pne]
    if not groups:
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, runs in groups:
        if len(runs) == 1:
            x = runs[0].steps
            y, se, n = mean_se(runs[0].client_regret)
        else:
            per_run = [mean_se(r.client_regret)[0] for r in runs]
            y, se, n = mean_se(stack(per_run))
            x = max((r.steps for r in runs), key=len)[: len(y)]
        x, y, se, n = thinned(np.asarray(x), y, se, n)
        band(ax, x, y, se, label)
        figs.record("cumulative_regret", label, x, y, se, n)
    integer_ticks(ax)
    finish(figs, fig, ax, "cumulative_regret", "step", "cumulative regret (mean over clients)",
           "Fed-PNE cumulative regret ± 1 standard error")


def plot_privacy(figs, groups):
    points = []
    for label, runs in groups:
        eps = [r.epsilon() for r in runs]
        if any(e is None for e in eps):
            continue
        regret_mean, regret_se, n = mean_se(np.array([[r.final_regret() for r in runs]]).T)
        points.append((label, float(np.mean(eps)), regret_mean[0], regret_se[0], n[0]))
    if not points:
        print("fedsim plot: no private runs (no eps): privacy_utility not drawn", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for label, eps, y, se, n in points:
        ax.errorbar([eps], [y], yerr=None if math.isnan(se) else [se], fmt="o", capsize=3,
                    label=label)
        figs.record("privacy_utility", label, [eps], [y], [se], [n])
    finish(figs, fig, ax, "privacy_utility", "ε (privacy loss)", "final simple regret",
           "Privacy-utility trade-off")


def plot_stragglers(figs, groups):
    groups = [(l, [r for r in rs if r.rounds]) for l, rs in groups]
    groups = [(l, rs) for l, rs in groups if rs]
    if not groups:
        print("fedsim plot: no rounds.csv with rounds: stragglers not drawn", file=sys.stderr)
        return
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for column, ax in zip(("late", "dropped"), axes):
        for label, runs in groups:
            y, se, n = mean_se(stack([[float(r[column]) for r in run.rounds] for run in runs]))
            x = np.arange(len(y))
            band(ax, x, y, se, label)
            figs.record(column, label, x, y, se, n)
        ax.set_ylabel(f"{column} reports per round")
    axes[0].set_title("Stragglers: mean over seeds ± 1 standard error")
    legend(axes[0])
    integer_ticks(axes[1])
    axes[1].set_xlabel("round")
    figs.save(fig, "stragglers")


def plot_staleness(figs, groups):
    groups = [(l, [r for r in rs if r.staleness is not None]) for l, rs in groups]
    groups = [(l, rs) for l, rs in groups if rs]
    if not groups:
        print("fedsim plot: no events.jsonl: staleness not drawn", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    width = 0.8 / len(groups)
    any_late = False
    for k, (label, runs) in enumerate(groups):
        top = max((max(r.staleness, default=0) for r in runs), default=0)
        if top == 0:
            continue
        any_late = True
        counts = np.array([[r.staleness.count(s) for s in range(1, top + 1)] for r in runs],
                          dtype=float)
        y, se, n = mean_se(counts)
        x = np.arange(1, top + 1)
        ax.bar(x - 0.4 + width * (k + 0.5), y, width=width,
               yerr=np.where(np.isnan(se), 0.0, se), capsize=2, label=label)
        figs.record("staleness", label, x, y, se, n)
    integer_ticks(ax)
    if any_late:
        legend(ax)
    else:
        ax.text(0.5, 0.5, "no late reports", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("rounds late")
    ax.set_ylabel("late reports per run")
    ax.set_title("Staleness of late reports")
    figs.save(fig, "staleness")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+", help="run or sweep folders")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--label", action="append", default=[], help="legend label per DIR")
    a = parser.parse_args()
    if a.label and len(a.label) != len(a.dirs):
        fail(f"--label: given {len(a.label)} times for {len(a.dirs)} folders")
    plt.rcParams["svg.hashsalt"] = "fedsim"  # the same SVG for the same data
    groups = load_groups(a.dirs, a.label)
    os.makedirs(a.out, exist_ok=True)
    figs = Figures(a.out)
    plot_regret(figs, groups)
    plot_regret_time(figs, groups)
    plot_cumulative(figs, groups)
    plot_privacy(figs, groups)
    plot_stragglers(figs, groups)
    plot_staleness(figs, groups)
    figs.write_data()
    print(f"plot: {', '.join(figs.written)} (.png, .svg) and plot_data.csv -> {a.out}")


if __name__ == "__main__":
    main()
