#!/usr/bin/python3
"""fedsim plot: regret curves, privacy-utility and straggler views of fedsim run and sweep folders.

Run by `fedsim plot DIR... [--out DIR] [--label L ...] [--format F] [--log-y] [--no-title]`
(tools/fedsim/plot_command.cpp) with Debian's /usr/bin/python3, or directly:

    /usr/bin/python3 tools/plot/fedsim_plot.py --out OUT [options] -- DIR...

A DIR is a run folder (observations.csv, summary.json, rounds.csv or phases.csv, events.jsonl
from `fedsim run`) or a sweep folder (sweep_runs.csv from `fedsim sweep`, whose columns before
`seed` are the grid keys; every grid point is one curve, averaged over its seeds).

Labels: a grid point is named by its values, the algorithm's name (algorithm.name) and the
round policy (policy.kind) alone and first, the other keys by their last part or their symbol
in the papers (world.agents N, algorithm.iterations and algorithm.budget T, algorithm.clip S,
algorithm.subregions P, algorithm.features M, algorithm.dp_epsilon ε): `algorithm.q=0.25
algorithm.name=fts-de` is "fts-de, q = 0.25". A --label of a sweep comes before its points'
names ("", the empty label, leaves them alone); a --label of a run folder is its name; without
--label a run folder is named by its path, and with several DIRs a sweep's points are preceded
by its path. Each label keeps one colour in every figure of an invocation.

The title names the scenarios with their N (agents, or Fed-PNE's clients) and T (iterations,
or pulls per client) from summary.json, e.g. "dp-fts-de-fig2 (N = 200, T = 40)"; --no-title
leaves it out. --log-y draws the regret figures (regret, regret_time, cumulative_regret,
privacy_utility) on a logarithmic y axis. A legend of up to four labels sits inside the axes,
a longer one below them. Bands and error bars are ±1 standard error. Writes into OUT, each as
FORMAT (png, pdf or svg; png by default):

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
  alive              agents alive (rounds.csv's, or Fed-PNE's phases.csv's, alive column: the
                     agents the server still expects reports from) against virtual time, on 200
                     evenly spaced times like regret_time (a run counts from its first round and
                     keeps its last value after its end), or against the round when no virtual
                     time passed; not drawn when no run's count changes
  stragglers         late and dropped reports per round (rounds.csv), mean over a label's runs;
                     runs under the sync, deadline or quorum policy; not drawn when every count
                     is 0 (a perfect network)
  too_stale          async runs (summary.json's policy): the vectors dropped at each aggregation
                     for being more than policy.max_staleness rounds old (rounds.csv's dropped
                     column: async drops nothing else), mean over a label's runs; not drawn when
                     none was dropped. The outputs do not record the staleness of the vectors
                     that were aggregated
  staleness          histogram of how many rounds late each late report was, mean count per run:
                     a "late" event of events.jsonl carries the report's round; the server's
                     round at that moment is the number of rounds in rounds.csv that closed at or
                     before the event's time, so staleness = that number - the report's round
                     (at least 1: the report missed its own round); not drawn without late events

and plot_data.csv: every number plotted, one row per point (plot, label, x, y, se, n; se is empty
where fewer than two values were averaged, n is how many runs, or clients, went into the point;
plot is a figure's name, or late / dropped for the two panels of stragglers), and plots.json:
what each figure shows (its file, title, axis labels, y scale, legend labels and their colours).
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
    import matplotlib.colors
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError as e:
    print(f"fedsim plot: error: {sys.executable} cannot import {e.name}: install Debian's "
          "python3-matplotlib and python3-numpy (tools/setup), or set FEDSIM_PYTHON to a Python "
          "that has them", file=sys.stderr)
    sys.exit(3)

from regret_timeline import regret_over_time  # noqa: E402  (shared with tools/results/per_run_metrics.py)

FORMATS = ("png", "pdf", "svg")


def fail(message):
    print(f"fedsim plot: error: {message}", file=sys.stderr)
    sys.exit(2)


def note(message):
    print(f"fedsim plot: {message}", file=sys.stderr)


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
        self.summary = read_summary(folder) or {}
        rows = read_csv(os.path.join(folder, "observations.csv"))
        header = rows[0].keys() if rows else []
        self.pne = "cumulative_regret" in header and "client" in header
        if self.pne:
            self.steps, self.client_regret = pne_curves(rows)
        else:
            curve = fbo_curve(rows, self.summary or None) if rows else None
            self.curve = curve if curve is not None else np.array([])
            self.timeline = regret_over_time(rows)
        path = os.path.join(folder, "rounds.csv")
        self.rounds = read_csv(path) if os.path.exists(path) else None
        self.staleness = staleness_of(folder, self.rounds) if self.rounds is not None else None
        # Agents alive per round (FBO) or per phase (Fed-PNE), with the time it closed.
        phases = os.path.join(folder, "phases.csv")
        table = self.rounds if self.rounds is not None else (
            read_csv(phases) if os.path.exists(phases) else [])
        self.alive = (np.array([float(r["time"]) for r in table]),
                      np.array([float(r["alive"]) for r in table]))
        self.is_async = self.summary.get("policy") == "async"

    def epsilon(self):
        return self.summary.get("epsilon")

    def final_regret(self):
        if self.summary.get("mean_final_simple_regret") is not None:
            return self.summary["mean_final_simple_regret"]
        if self.pne:
            return float(np.nanmean(self.client_regret[:, -1]))
        return float(self.curve[-1])

    def scenario(self):
        """(name, N, T) from summary.json; None without one."""
        s = self.summary
        if "scenario" not in s:
            return None
        return (s["scenario"], s.get("agents", s.get("clients")),
                s.get("iterations", s.get("budget")))


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


def on_time_grid(steps, points=200):
    """Step functions (times, values), one per run, averaged on `points` evenly spaced times
    from 0 to the last time of any: a run counts from its first time and keeps its last value
    after its end. (x, mean, se, n) where at least one run counts."""
    grid = np.linspace(0.0, max(t[-1] for t, _ in steps if len(t)), points)
    values = []
    for times, v in steps:
        k = np.searchsorted(times, grid, side="right") - 1
        values.append(np.where(k >= 0, v[np.maximum(k, 0)], np.nan) if len(times)
                      else np.full(points, np.nan))
    y, se, n = mean_se(np.array(values))
    ok = n > 0
    return grid[ok], y[ok], se[ok], n[ok]


# Grid keys shown by a symbol of the papers; algorithm.name and policy.kind by their value alone.
SYMBOLS = {"world.agents": "N", "algorithm.iterations": "T", "algorithm.budget": "T",
           "algorithm.clip": "S", "algorithm.subregions": "P", "algorithm.features": "M",
           "algorithm.dp_epsilon": "ε"}
BARE = ("algorithm.name", "policy.kind")


def humanize(keys, values):
    """A grid point's name: "fts-de, q = 0.25" for algorithm.q=0.25 algorithm.name=fts-de."""
    bare = [v for k, v in zip(keys, values) if k in BARE]
    rest = [f"{SYMBOLS.get(k, k.rsplit('.', 1)[-1])} = {v}"
            for k, v in zip(keys, values) if k not in BARE]
    return ", ".join(bare + rest)


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
                name = ", ".join(p for p in (prefix, humanize(keys, r)) if p)
                points.setdefault(name or d, []).append(Run(os.path.join(d, r[folder_col])))
            groups.extend(points.items())
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


def values_text(values):
    values = sorted(set(values))
    return (f" = {values[0]}" if len(values) == 1
            else " ∈ {" + ", ".join(str(v) for v in values) + "}")


def title_of(groups):
    """The scenarios with their N and T, in the order met: "dp-fts-de-fig2 (N = 200, T = 40)";
    several on one line separated by "; ", or on one line each when that is long."""
    found = {}
    for _, runs in groups:
        for r in runs:
            s = r.scenario()
            if s:
                ns, ts = found.setdefault(s[0], (set(), set()))
                if s[1] is not None:
                    ns.add(s[1])
                if s[2] is not None:
                    ts.add(s[2])
    parts = []
    for name, (ns, ts) in found.items():
        nt = ", ".join(p for p in ((f"N{values_text(ns)}" if ns else ""),
                                   (f"T{values_text(ts)}" if ts else "")) if p)
        parts.append(f"{name} ({nt})" if nt else name)
    line = "; ".join(parts)
    return line if len(line) <= 70 else "\n".join(parts)  # one line each when long


def fmt(v):
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    v = float(v)
    return "" if math.isnan(v) else repr(v)


class Figures:
    """Saves each figure in the chosen format, and collects the numbers plotted and what each
    figure shows (plots.json)."""

    def __init__(self, out, fmt_, log_y, title, labels):
        self.out, self.format, self.log_y, self.title = out, fmt_, log_y, title
        palette = plt.get_cmap("tab10" if len(labels) <= 10 else "tab20").colors
        self.colors = {label: matplotlib.colors.to_hex(palette[k % len(palette)])
                       for k, label in enumerate(labels)}
        self.data = []
        self.shown = []

    def record(self, plot, label, xs, ys, ses, ns):
        for x, y, se, n in zip(xs, ys, ses, ns):
            self.data.append((plot, label, x, y, se, n))

    def new(self, rows=1, height=4.5):
        fig, axes = plt.subplots(rows, 1, figsize=(7, height), sharex=True, squeeze=False)
        return fig, list(axes[:, 0])

    def save(self, fig, axes, name, xlabel, ylabels, labels, log_y=False):
        """Labels the axes, titles the figure, adds the legend of `labels` and saves
        name.FORMAT."""
        for ax, ylabel in zip(axes, ylabels):
            ax.set_ylabel(ylabel)
            if log_y:
                ax.set_yscale("log")
        axes[-1].set_xlabel(xlabel)
        if self.title:
            axes[0].set_title(self.title)
        legend(fig, axes, labels)
        fig.tight_layout()
        path = os.path.join(self.out, f"{name}.{self.format}")
        meta = {"png": {"Software": None}, "pdf": {"CreationDate": None},
                "svg": {"Date": None}}[self.format]
        fig.savefig(path, dpi=150, bbox_inches="tight", metadata=meta)
        plt.close(fig)
        self.shown.append({"name": name, "file": os.path.basename(path), "title": self.title,
                           "xlabel": xlabel, "ylabels": list(ylabels),
                           "yscale": "log" if log_y else "linear",
                           "legend": [[shown, self.colors[label]] for label, shown in labels]})

    def write(self):
        with open(os.path.join(self.out, "plot_data.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")  # like every other CSV of fedsim
            w.writerow(["plot", "label", "x", "y", "se", "n"])
            for plot, label, x, y, se, n in self.data:
                w.writerow([plot, label, fmt(x), fmt(y), fmt(se), fmt(n)])
        with open(os.path.join(self.out, "plots.json"), "w") as f:
            json.dump({"format": self.format, "log_y": self.log_y, "title": self.title,
                       "figures": self.shown}, f, indent=1, ensure_ascii=False)
            f.write("\n")


INSIDE = 4  # at most this many legend entries inside the axes; more go below them


def legend(fig, axes, labels):
    """Inside the first axes for a few labels; below the last one, in columns, for more, so the
    axes keep the figure's width."""
    handles, names = axes[0].get_legend_handles_labels()
    if not names:
        return
    if len(names) <= INSIDE:
        axes[0].legend(fontsize="small")
        return
    fig.tight_layout()
    box = axes[-1].get_tightbbox(fig.canvas.get_renderer()).transformed(
        fig.transFigure.inverted())
    centre = (axes[-1].get_position().x0 + axes[-1].get_position().x1) / 2
    columns = 2 if max(len(n) for n in names) > 24 else 3
    fig.legend(handles, names, loc="upper center", bbox_to_anchor=(centre, box.y0),
               bbox_transform=fig.transFigure, ncol=columns, fontsize="small", frameon=False)


def integer_ticks(ax):
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))


def band(ax, x, y, se, label, color):
    # Markers show where the data are; a dense curve (HCT's every step) is drawn as a line.
    ax.plot(x, y, marker="o" if len(x) <= 100 else None, markersize=3, label=label, color=color)
    ok = ~np.isnan(se)
    if ok.any():
        ax.fill_between(x[ok], (y - se)[ok], (y + se)[ok], color=color, alpha=0.2, linewidth=0)


def plot_regret(figs, groups):
    groups = [(l, rs) for l, rs in groups if not rs[0].pne]
    if not groups:
        return
    fig, (ax,) = figs.new()
    labels = []
    for label, runs in groups:
        y, se, n = mean_se(stack([r.curve for r in runs]))
        x = np.arange(len(y))
        eps = [r.epsilon() for r in runs]
        # Private curves carry their privacy loss in the legend (plot_data.csv keeps the label).
        shown = label if any(e is None for e in eps) else f"{label} (ε = {np.mean(eps):.2f})"
        band(ax, x, y, se, shown, figs.colors[label])
        labels.append((label, shown))
        figs.record("regret", label, x, y, se, n)
    integer_ticks(ax)
    figs.save(fig, [ax], "regret", "iteration", ["simple regret (mean over agents)"], labels,
              figs.log_y)


def plot_regret_time(figs, groups):
    """Mean simple regret vs virtual time (see on_time_grid)."""
    groups = [(l, rs) for l, rs in groups if not rs[0].pne and any(
        len(r.timeline[0]) and r.timeline[0][-1] > 0 for r in rs)]
    if not groups:
        note("no virtual time passed (a perfect network): regret_time not drawn")
        return
    fig, (ax,) = figs.new()
    for label, runs in groups:
        x, y, se, n = on_time_grid([r.timeline for r in runs])
        band(ax, x, y, se, label, figs.colors[label])
        figs.record("regret_time", label, x, y, se, n)
    figs.save(fig, [ax], "regret_time", "virtual time (s)", ["simple regret (mean over agents)"],
              [(l, l) for l, _ in groups], figs.log_y)


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
    fig, (ax,) = figs.new()
    for label, runs in groups:
        if len(runs) == 1:
            x = runs[0].steps
            y, se, n = mean_se(runs[0].client_regret)
        else:
            per_run = [mean_se(r.client_regret)[0] for r in runs]
            y, se, n = mean_se(stack(per_run))
            x = max((r.steps for r in runs), key=len)[: len(y)]
        x, y, se, n = thinned(np.asarray(x), y, se, n)
        band(ax, x, y, se, label, figs.colors[label])
        figs.record("cumulative_regret", label, x, y, se, n)
    integer_ticks(ax)
    figs.save(fig, [ax], "cumulative_regret", "step (pulls per client)",
              ["cumulative regret (mean over clients)"], [(l, l) for l, _ in groups], figs.log_y)


def plot_privacy(figs, groups):
    points = []
    for label, runs in groups:
        eps = [r.epsilon() for r in runs]
        if any(e is None for e in eps):
            continue
        regret_mean, regret_se, n = mean_se(np.array([[r.final_regret() for r in runs]]).T)
        points.append((label, float(np.mean(eps)), regret_mean[0], regret_se[0], n[0]))
    if not points:
        note("no private runs (no eps): privacy_utility not drawn")
        return
    fig, (ax,) = figs.new()
    for label, eps, y, se, n in points:
        ax.errorbar([eps], [y], yerr=None if math.isnan(se) else [se], fmt="o", capsize=3,
                    label=label, color=figs.colors[label])
        figs.record("privacy_utility", label, [eps], [y], [se], [n])
    figs.save(fig, [ax], "privacy_utility", "ε (privacy loss)", ["final simple regret"],
              [(p[0], p[0]) for p in points], figs.log_y)


def plot_alive(figs, groups):
    groups = [(l, [r for r in rs if len(r.alive[0])]) for l, rs in groups]
    groups = [(l, rs) for l, rs in groups if rs]
    if not any(r.alive[1].min() != r.alive[1].max() for _, rs in groups for r in rs):
        note("no run's count of agents alive changed: alive not drawn")
        return
    timed = any(r.alive[0][-1] > 0 for _, rs in groups for r in rs)
    fig, (ax,) = figs.new()
    for label, runs in groups:
        if timed:
            x, y, se, n = on_time_grid([r.alive for r in runs])
        else:
            y, se, n = mean_se(stack([r.alive[1] for r in runs]))
            x = np.arange(len(y))
        band(ax, x, y, se, label, figs.colors[label])
        figs.record("alive", label, x, y, se, n)
    if not timed:
        integer_ticks(ax)
    figs.save(fig, [ax], "alive", "virtual time (s)" if timed else "round",
              ["agents alive"], [(l, l) for l, _ in groups])


def per_round(figs, ax, plot, groups, column):
    """A rounds.csv column per round, mean over each label's runs."""
    for label, runs in groups:
        y, se, n = mean_se(stack([[float(r[column]) for r in run.rounds] for run in runs]))
        x = np.arange(len(y))
        band(ax, x, y, se, label, figs.colors[label])
        figs.record(plot, label, x, y, se, n)


def with_rounds(groups, keep):
    """The labels' runs with a rounds.csv that `keep` accepts; labels left with none dropped."""
    groups = [(l, [r for r in rs if r.rounds and keep(r)]) for l, rs in groups]
    return [(l, rs) for l, rs in groups if rs]


def any_nonzero(groups, columns):
    return any(float(row[c]) != 0 for _, rs in groups for r in rs for row in r.rounds
               for c in columns)


def plot_stragglers(figs, groups):
    groups = with_rounds(groups, lambda r: not r.is_async)
    if not any_nonzero(groups, ("late", "dropped")):
        note("no late or dropped reports in rounds.csv: stragglers not drawn")
        return
    fig, axes = figs.new(2, 6)
    for column, ax in zip(("late", "dropped"), axes):
        per_round(figs, ax, column, groups, column)
    integer_ticks(axes[1])
    figs.save(fig, axes, "stragglers", "round",
              ["late reports per round", "dropped reports per round"],
              [(l, l) for l, _ in groups])


def plot_too_stale(figs, groups):
    groups = with_rounds(groups, lambda r: r.is_async)
    if not any_nonzero(groups, ("dropped",)):
        note("no async run dropped a vector as too stale: too_stale not drawn")
        return
    fig, (ax,) = figs.new()
    per_round(figs, ax, "too_stale", groups, "dropped")
    integer_ticks(ax)
    figs.save(fig, [ax], "too_stale", "aggregation",
              ["vectors dropped, > max_staleness rounds old"], [(l, l) for l, _ in groups])


def plot_staleness(figs, groups):
    groups = [(l, [r for r in rs if r.staleness]) for l, rs in groups]
    groups = [(l, rs) for l, rs in groups if rs]
    if not groups:
        note("no late reports in events.jsonl (or no events.jsonl): staleness not drawn")
        return
    fig, (ax,) = figs.new()
    width = 0.8 / len(groups)
    for k, (label, runs) in enumerate(groups):
        top = max(max(r.staleness) for r in runs)
        counts = np.array([[r.staleness.count(s) for s in range(1, top + 1)] for r in runs],
                          dtype=float)
        y, se, n = mean_se(counts)
        x = np.arange(1, top + 1)
        ax.bar(x - 0.4 + width * (k + 0.5), y, width=width, color=figs.colors[label],
               yerr=np.where(np.isnan(se), 0.0, se), capsize=2, label=label)
        figs.record("staleness", label, x, y, se, n)
    integer_ticks(ax)
    figs.save(fig, [ax], "staleness", "rounds late", ["late reports per run"],
              [(l, l) for l, _ in groups])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dirs", nargs="+", help="run or sweep folders")
    parser.add_argument("--out", required=True, help="output folder")
    parser.add_argument("--label", action="append", default=[], help="legend label per DIR")
    parser.add_argument("--format", default="png", choices=FORMATS, help="image format")
    parser.add_argument("--log-y", action="store_true", help="regret on a log scale")
    parser.add_argument("--no-title", action="store_true", help="no titles")
    a = parser.parse_args()
    if a.label and len(a.label) != len(a.dirs):
        fail(f"--label: given {len(a.label)} times for {len(a.dirs)} folders")
    plt.rcParams["svg.hashsalt"] = "fedsim"  # the same SVG for the same data
    groups = load_groups(a.dirs, a.label)
    os.makedirs(a.out, exist_ok=True)
    figs = Figures(a.out, a.format, a.log_y, "" if a.no_title else title_of(groups),
                   [l for l, _ in groups])
    for draw in (plot_regret, plot_regret_time, plot_cumulative, plot_privacy, plot_alive,
                 plot_stragglers, plot_too_stale, plot_staleness):
        draw(figs, groups)
    figs.write()
    print(f"plot: {', '.join(f['name'] for f in figs.shown)} (.{a.format}), plot_data.csv and "
          f"plots.json -> {a.out}")


if __name__ == "__main__":
    main()
