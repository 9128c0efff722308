"""Shared by every part of the results page: reading the run's tables, formatting a mean ± se,
the verdict words, and the statistics the verdicts are computed with."""
import csv
import math

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


def verdict(ok):
    return "**reproduced**" if ok else "**not reproduced**"


def mean_se(values):
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


def within_se(a, b):
    """Whether two (mean, se) differ by at most one standard error of the difference."""
    return abs(a[0] - b[0]) <= math.hypot(a[1], b[1])


def gap(a, b):
    """' (difference d, within / more than one standard error of the difference)' for two (mean, se)."""
    d, s = abs(a[0] - b[0]), math.hypot(a[1], b[1])
    if math.isnan(s):
        return ""
    if within_se(a, b):
        return f" (difference {d:.4f}, within one standard error of the difference, {s:.4f}: indicative only)"
    return f" (difference {d:.4f}, more than one standard error of the difference, {s:.4f})"


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
