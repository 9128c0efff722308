"""Shared by every part of the results page: reading the run's tables, formatting a mean ± se,
and the verdicts: `fedsim compare` on the runs tables, its answers formatted, and the page's
statement of the design."""
import atexit
import csv
import json
import math
import os
import shutil
import subprocess
import tempfile

import numpy as np


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def read_commands(path):
    """tools/reproduce's commands.tsv: {key: [command line, ...]} in the order they ran."""
    commands = {}
    with open(path) as f:
        for line in f:
            key, cmd = line.rstrip("\n").split("\t", 1)
            commands.setdefault(key, []).append(cmd)
    return commands


def num(s):
    return float(s) if s not in (None, "") else float("nan")


def pm(mean, se, digits=4):
    if math.isnan(mean):
        return "–"
    if math.isnan(se):
        return f"{mean:.{digits}f}"
    return f"{mean:.{digits}f} ± {se:.{digits}f}"


def code_block(w, lines):
    """A shell code block of the given command lines, then a blank line."""
    w("```sh")
    for line in lines:
        w(line)
    w("```")
    w("")


def mean_se(values):
    """(mean, standard error) over the values that are numbers: the tables' descriptive cells."""
    v = np.array([x for x in values if not math.isnan(x)], dtype=float)
    if len(v) == 0:
        return float("nan"), float("nan")
    return float(v.mean()), (float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan"))


def stat(row, metric="regret_area"):
    """(mean, se) of a metric in a sweep.csv row."""
    return num(row[f"{metric}_mean"]), num(row[f"{metric}_se"])


def pick(rows, grid):
    """The one row of a table whose columns have the values of the dict grid."""
    hits = [r for r in rows if all(r[k] == v for k, v in grid.items())]
    if len(hits) != 1:
        raise SystemExit(f"results_page: expected one row with {grid}, found {len(hits)}")
    return hits[0]


# ------------------------------------------------------------------------------ verdicts
#
# Every verdict on the page is `fedsim compare --json` on a sweep's runs table (NAME_runs.csv,
# the sweep_runs.csv tools/reproduce copied), or on a table in that layout that metric_table
# writes for a per-run metric sweep_runs.csv lacks. docs/compare.md states the design; the
# page states it once (design_section) and shows, per claim, n, a - b and its interval.

MARGIN_FRACTION = 0.10  # an equivalence claim's margin: this fraction of b's mean (the reference)
LEVEL = 0.95
_fedsim = None
_cache = {}
_tables = None  # the folder of the tables metric_table writes, removed at exit


def use_fedsim(path):
    """The fedsim binary whose `compare` judges every claim (results_page.py --fedsim)."""
    global _fedsim
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        raise SystemExit(f"results_page: --fedsim: no fedsim binary at '{path}' (build it, or give "
                         "--fedsim or $FEDSIM): every verdict on the page comes from `fedsim compare`")
    _fedsim = path


def compare(a_file, a_point, b_file, b_point, claim, metric="regret_area", margin=None):
    """`fedsim compare --json` of grid point a_point ({key: value}) of the runs table a_file
    against b_point of b_file (the same file or another run on the same seeds), cached.
    Returns its JSON object."""
    if _fedsim is None:
        raise SystemExit("results_page: no fedsim binary given (use_fedsim)")
    files = [a_file] if b_file == a_file else [a_file, b_file]
    args = [_fedsim, "compare", *files, "--claim", claim, "--metric", metric, "--json"]
    for side, point in (("--a", a_point), ("--b", b_point)):
        for k, v in point.items():
            args += [side, f"{k}={v}"]
    if margin is not None:
        args += ["--margin", repr(float(margin))]
    key = tuple(args)
    if key not in _cache:
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            raise SystemExit(f"results_page: {' '.join(args)} failed (exit {p.returncode}): "
                             f"{p.stderr.strip()}")
        r = json.loads(p.stdout)
        if r["looks"] != 1 or abs(r["interval_level"] - LEVEL) > 1e-12:
            raise SystemExit(f"results_page: fedsim compare answered at level {r['interval_level']}, "
                             f"the page states {LEVEL}")
        _cache[key] = r
    return _cache[key]


def equivalent(a_file, a_point, b_file, b_point, metric="regret_area"):
    """The equivalence claim |a - b| < margin, the margin MARGIN_FRACTION of b's mean over the
    paired seeds (b is the reference side)."""
    ref = compare(a_file, a_point, b_file, b_point, "different", metric)["b"]["mean"]
    if ref is None or ref == 0:
        raise SystemExit(f"results_page: no equivalence margin for {metric} of {b_point} in "
                         f"{b_file}: its mean is {ref}")
    return compare(a_file, a_point, b_file, b_point, "equivalent", metric,
                   MARGIN_FRACTION * abs(ref))


def metric_table(name, rows, grid, metrics):
    """A per-run metric that sweep_runs.csv lacks, written in its layout (the grid columns,
    seed, folder, the metric columns) so that fedsim compare judges it: rows are dicts with the
    columns `grid`, "seed" and `metrics` (empty or NaN for a run without the metric). Returns
    the file's path (in a folder removed when the page is written)."""
    global _tables
    if _tables is None:
        _tables = tempfile.mkdtemp(prefix="results-page-tables-")
        atexit.register(shutil.rmtree, _tables, True)
    path = os.path.join(_tables, f"{name}_runs.csv")
    with open(path, "w", newline="") as f:
        wr = csv.writer(f, lineterminator="\n")
        wr.writerow([*grid, "seed", "folder", *metrics])
        for r in rows:
            cells = []
            for m in metrics:
                v = r[m]
                cells.append("" if v in (None, "") or (isinstance(v, float) and math.isnan(v))
                             else repr(float(v)))
            wr.writerow([*(r[k] for k in grid), r["seed"], "", *cells])
    return path


def sig(x, digits=3):
    """A number with `digits` significant digits (all the integer digits of a number of more)
    and a true minus sign."""
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if x == 0:
        return "0"
    whole = len(str(int(abs(x)))) if abs(x) >= 1 else 0
    text = f"{x:.{max(0, digits - whole)}f}" if whole else f"{x:.{digits}g}"
    return text.replace("-", "−")


def word(verdict):
    """A verdict in bold: reproduced, contradicted or undecided."""
    if verdict not in ("reproduced", "contradicted", "undecided"):
        raise SystemExit(f"results_page: unknown verdict '{verdict}'")
    return f"**{verdict}**"


def interval(r, digits=3, scale=1.0):
    """'a − b = d, 95 % CI [lo, hi], n = k' of a compare result (scale -1 turns it into b − a's
    sign convention of a derived quantity: the error 1 − score)."""
    n = r["n"]
    if n < 2 or r["lower"] is None:
        return f"n = {n}, no interval (fewer than 2 paired seeds)"
    lo, hi = sorted((scale * r["lower"], scale * r["upper"]))
    text = (f"a − b = {sig(scale * r['mean_difference'], digits)}, 95 % CI "
            f"[{sig(lo, digits)}, {sig(hi, digits)}], n = {n}")
    if r["claim"] == "equivalent":
        text += f", margin ±{sig(r['margin'], 2)}"
    return text


def judged(r, digits=3, scale=1.0):
    """'**verdict** (a − b = d, 95 % CI [lo, hi], n = k)' of a compare result."""
    return f"{word(r['verdict'])} ({interval(r, digits, scale)})"


def combine(verdicts):
    """An ordering or a conjunction of claims: reproduced when every step is, contradicted when
    any step is, undecided otherwise."""
    verdicts = list(verdicts)
    if any(v == "contradicted" for v in verdicts):
        return "contradicted"
    if all(v == "reproduced" for v in verdicts):
        return "reproduced"
    return "undecided"


def exact_verdict(ok):
    """The verdict of a claim on exact numbers (a privacy loss): reproduced or contradicted."""
    return "reproduced" if ok else "contradicted"


def design_section(w, link, rel):
    """The page's statement of how every claim is judged, once, near the top."""
    pct = f"{100 * MARGIN_FRACTION:.0f} %"
    w("## How the claims are judged")
    w("")
    w(f"Every verdict on this page is the answer of `fedsim compare` ([docs/compare.md]({link})) "
      f"to a claim about two grid points, run on the runs tables of `{rel}/` (`NAME_runs.csv`: "
      "each sweep's `sweep_runs.csv`); the page runs it with `--json` and prints what it "
      "answers, so each claim can be checked by hand with `fedsim compare` on the files named.")
    w("")
    w("- **Paired by seed.** A seed fixes every random stream of a run (objective, noise, "
      "random features, initial points), so two configurations run on the same seed share them "
      "(common random numbers). A claim about a and b is judged on the per-seed differences "
      "d_i = a_i − b_i of its metric, never on two unpaired means. Where a and b come from two "
      "sweeps (two scenarios, or a grid point of one and a setting of another) the seeds pair by "
      "number all the same; where they share little randomness (Fed-PNE against HCT) the "
      "pairing gains little but the interval is still valid.")
    w(f"- **One interval.** The two-sided Student t interval of the mean difference, mean(d) ± "
      f"t(0.975, n − 1) · sd(d) / √n, at {100 * LEVEL:.0f} %, one look per claim. Each claim "
      "shows **n** (the paired seeds), the mean difference **a − b** and its interval; a and b "
      "are named with the claim.")
    w("- **Verdicts.** A claim that a is below (above) b is **reproduced** when the interval "
      "lies below (above) 0, **contradicted** when it lies on the other side, and "
      "**undecided** when it holds 0. An ordering (P = 3 < P = 2 < FTS < TS) or a claim made of "
      "several comparisons is a chain of such claims: reproduced when every step is, "
      "contradicted when any step is, undecided otherwise; each step is shown.")
    w(f"- **Similarity** (“comparable”, “hardly matters”, “similar early”) is an "
      f"equivalence claim |a − b| < m: reproduced when the interval lies inside (−m, m), "
      f"contradicted when it lies outside [−m, m], undecided otherwise. The margin is the same "
      f"rule for the whole page: **m = {pct} of the reference side b's mean** of the metric "
      "over the paired seeds, computed and shown per claim. Why a relative margin: the "
      f"metrics (regret areas, cumulative regrets, times) have no common unit. Why {pct}: it "
      "is small against the differences the papers call clear and draw as separate curves; "
      "another margin changes only the equivalence verdicts, and each shows its interval, so "
      "a reader can apply their own.")
    w("- **Seed counts.** The seed counts are the committed ones (the header above); a claim "
      "these seeds do not decide is reported **undecided** with its interval, not as a "
      "verdict. Adding seeds (`tools/reproduce --seeds K`) may decide it; docs/compare.md says "
      "how to add them in batches without the bias of looking repeatedly.")
    w("- **Exact numbers** (privacy losses: ε is a deterministic function of q, z, the "
      "iterations and N, the same on every seed) are compared exactly and say so; the tables' "
      "**mean ± standard error** cells describe each configuration and decide nothing.")
    w("- **Per-run metrics the runs tables lack** (the clipped percentage, the late regret, the "
      "time to a threshold, ...) are read from the per-run CSVs of the same folder "
      "(`NAME_metrics.csv`), written per run in the runs table's layout (grid columns, seed, "
      "folder, metrics), and judged by the same `fedsim compare`.")
    w("")


def bench_circumstances(d, source, w):
    """The paragraph that says which benchmark (`source`) measured a JSON `d` of
    tools/bench/circumstances.hpp's report_header and finish_report: when, where, on what build."""
    m, b = d["machine"], d["build"]
    start, end = m.get("load_average_at_start"), m.get("load_average_at_end")
    load = (f"load average {start[0]:.2f} at the start and {end[0]:.2f} at the end"
            if start and end else "load average unknown")
    w(f"Measured by `{d['command']}` (`{source}`; `tools/reproduce --bench` runs it and "
      f"regenerates this page), fedsim {d['fedsim_version']}, commit `{d['git_commit']}`, "
      f"{d['date']}, in {d['wall_seconds']:.0f} s. Machine: {m['cpu']}, {m['logical_cores']} "
      f"logical cores, {m['kernel']}; {load}. Build: {b['type']}, {b['compiler']}, assertions "
      f"{'on' if b['assertions'] else 'off'}.")
    w("")
