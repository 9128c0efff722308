#!/usr/bin/python3
"""Write docs/results.md from the tables tools/reproduce left in docs/results/.

Only the standard library, numpy and tools/plot/regret_timeline.py: every number on the page
is read from the files of the run (sweep.csv copies, `fedsim privacy --json` lines), and every verdict is computed from those numbers.

This file parses the arguments, writes the page's header and footer and calls the sections in
tools/results/: one module per paper (fts, dp_fts_de, fed_pne), the straggler study, the
Performance section, and per_run_metrics for the per-run metric CSVs tools/reproduce asks for.
The Performance section ends with the distributed-runs subsection, written here
(distributed_section) from the JSON of build/tools/bench_distributed.
"""
import argparse
import json
import os

from results.common import code_block
from results.dp_fts_de import dp_fts_de_sections
from results.fed_pne import fed_pne_sections
from results.fts import fts_fig1_section
from results.per_run_metrics import fed_pne_study_metrics, run_metrics, study_metrics
from results.performance import performance_section
from results.straggler_study import study_section


def _cell(x, fmt):
    """A table cell: x formatted, or a dash when the benchmark has no value (null)."""
    return "–" if x is None else format(x, fmt)


def distributed_section(path, w):
    """The Performance section's "Distributed runs" subsection, from the JSON of
    build/tools/bench_distributed --json (tools/bench/distributed.cpp); a one-line note on how to
    make it when `path` does not exist."""
    w("### Distributed runs (fedsim serve + fedsim agents)")
    w("")
    if not os.path.exists(path):
        w(f"No distributed-runs benchmark at `{path}`: run `tools/reproduce --bench` (or "
          f"`build/tools/bench_distributed --json {path}`, then `tools/reproduce`).")
        w("")
        return
    d = json.load(open(path))
    m, b = d["machine"], d["build"]
    start, end = m.get("load_average_at_start"), m.get("load_average_at_end")
    load = (f"load average {start[0]:.2f} at the start and {end[0]:.2f} at the end (the "
            "benchmark's own processes included)" if start and end else "load average unknown")
    N, T = d["agents"], d["iterations"]
    threads = (f"{d['threads']} scheduler thread{'s' if d['threads'] != 1 else ''}"
               if d.get("threads") else "CAF's default scheduler threads")
    files = d.get("records_compared", [])
    files_text = ", ".join(f"`{f}`" for f in files)
    w(f"Measured by `{d['command']}` (`tools/bench/distributed.cpp`; `tools/reproduce --bench` "
      f"runs it and regenerates this page), fedsim {d['fedsim_version']}, commit "
      f"`{d['git_commit']}`, {d['date']}, in {d['wall_seconds']:.0f} s. Machine: {m['cpu']}, "
      f"{m['logical_cores']} logical cores, {m['kernel']}; {load}. Build: {b['type']}, "
      f"{b['compiler']}, assertions {'on' if b['assertions'] else 'off'}.")
    w("")
    w(f"The scenario `{d['scenario']}` with N = {N} agents and T = {T} iterations "
      f"(`--set world.agents={N} --set algorithm.iterations={T}`; {N * T} agent-iterations a run), "
      f"in {d.get('time', 'virtual')} time, run by whole `{d['fedsim']}` processes the benchmark "
      "starts: in-process (`fedsim run`), and served by `fedsim serve` to K `fedsim agents` "
      f"processes over {d['network']}; the agent ids split evenly between the agent processes, a "
      f"shared secret file, every process with {threads}. Each mode ran {d['repeats']} "
      f"time{'s' if d['repeats'] != 1 else ''}, the modes alternating within a repeat so a load "
      "on the shared machine hits all of them; the times are medians. **Run wall**: the run's "
      "own wall time (`wall_time_s` of summary.json; a served run's includes its agents "
      "joining); **commands**: the first process started to the last one exited (process "
      "start-up included). **Agent-it/s**: N·T / run wall; **ratio**: to in-process, measured "
      "in this same benchmark run. **Added µs/message**: (served − in-process run wall) / "
      "messages sent; in parentheses the same with the commands' wall. **Records**: "
      f"{files_text} of every run compared byte for byte with those of an untimed in-process "
      "run.")
    w("")
    if d.get("error"):
        w(f"**THE BENCHMARK FAILED, nothing was measured: {d['error'].strip()}**")
        w("")
        return
    w("| mode | agent processes | run wall (s) | commands (s) | agent-it/s | ratio | messages "
      "| added µs/message | records |")
    w("|---|---|---|---|---|---|---|---|---|")
    served, bad = [], []
    for r in d["modes"]:
        k = r["processes"]
        if k == 0:
            mode = "in-process (`fedsim run`)"
        else:
            mode = f"served to {k} agent process{'es' if k != 1 else ''}"
            served.append(r)
        if r["records_equal"]:
            records = "reference" if k == 0 else "identical"
        else:
            problems = []
            if r["records_differ"]:
                problems.append(f"**DIFFER** in {r['records_differ']} of {r['runs']} runs")
            if r["failed"]:
                problems.append(f"**{r['failed']} of {d['repeats']} runs FAILED**")
            records = ", ".join(problems) or "**no run completed**"
            bad.append((mode, records))
        added = "–"
        if r["added_us_per_message"] is not None:
            added = (f"{r['added_us_per_message']:.0f} "
                     f"({_cell(r['added_us_per_message_command'], '.0f')})")
        w(f"| {mode} | {k} | {_cell(r['run_wall_s'], '.3f')} | "
          f"{_cell(r['command_wall_s'], '.3f')} | {_cell(r['agent_iterations_per_s'], '.0f')} | "
          f"{_cell(r['ratio'], '.3f')} | {_cell(r['messages'], 'd')} | {added} | {records} |")
    w("")
    if d["records_equal"] and not bad:
        w(f"Every served run's records were byte-identical to the in-process run's: "
          f"{sum(r['runs'] for r in served)} served runs ({d['repeats']} per agent-process count), "
          f"{files_text} compared byte for byte.")
    else:
        w("**WARNING: NOT every served run's records were byte-identical to the in-process "
          "run's** (" + "; ".join(f"{mode}: {records}" for mode, records in bad) + "). Those rows "
          "time runs that are wrong or failed; rerun `" + d["command"] + "` and read its output.")
    crowded = d.get("crowded_processes") or []
    if crowded:
        w("")
        counts = [str(k) for k in crowded]
        counts = counts[0] if len(counts) == 1 else ", ".join(counts[:-1]) + " and " + counts[-1]
        w(f"This machine has {m['logical_cores']} logical cores: served to {counts} agent "
          "processes, the server and the agent "
          "processes (each with its own scheduler threads) outnumber them and compete for CPU, "
          "so those rows measure CPU contention as well as the network.")
    w("")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default="docs/results")
    ap.add_argument("--page", default="docs/results.md")
    ap.add_argument("--bench", default="docs/bench.json",
                    help="the JSON of build/tools/bench_report for the Performance section")
    ap.add_argument("--bench-distributed", default="docs/bench-distributed.json",
                    help="the JSON of build/tools/bench_distributed --json for the Performance "
                         "section's distributed-runs subsection")
    ap.add_argument("--study-metrics", metavar="SWEEP_DIR",
                    help="write per-run study metrics of one sweep folder to --out and exit")
    ap.add_argument("--threshold", type=float, default=0.05)
    ap.add_argument("--run-metrics", metavar="SWEEP_DIR",
                    help="write per-run clipping and late-regret metrics of one FBO sweep folder "
                         "to --out and exit")
    ap.add_argument("--from-iteration", type=int, default=0,
                    help="--run-metrics: the first iteration of the late regret (default 0)")
    ap.add_argument("--fed-pne-study-metrics", nargs="+", metavar="CONDITION=SWEEP_DIR",
                    help="write per-run metrics of Fed-PNE study sweeps to --out and exit")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.study_metrics or a.run_metrics or a.fed_pne_study_metrics:
        if not a.out:
            ap.error("--study-metrics, --run-metrics and --fed-pne-study-metrics need --out")
        if a.study_metrics:
            study_metrics(a.study_metrics, a.threshold, a.out)
        elif a.run_metrics:
            run_metrics(a.run_metrics, a.from_iteration, a.out)
        else:
            fed_pne_study_metrics(a.fed_pne_study_metrics, a.out)
        return
    R = a.results
    rel = os.path.relpath(R, os.path.dirname(os.path.abspath(a.page)) or ".")
    meta = json.load(open(os.path.join(R, "meta.json")))
    commands = {}
    with open(os.path.join(R, "commands.tsv")) as f:
        for line in f:
            key, cmd = line.rstrip("\n").split("\t", 1)
            commands.setdefault(key, []).append(cmd)

    out = []
    w = out.append

    def cmds(*keys):
        code_block(w, [c for k in keys for c in commands.get(k, [])])

    def img(path, alt):
        if os.path.exists(os.path.join(R, path)):
            w(f"![{alt}]({rel}/{path})")
            w("")

    w("# Reproducing the papers' figures")
    w("")
    w("Generated by `tools/reproduce` (do not edit by hand: run it again). "
      f"Mode: {meta['mode']} ({meta.get('fts_seeds', '?')} seeds for FTS, {meta['fbo_seeds']} for "
      f"DP-FTS-DE, {meta['xarmed_seeds']} for Fed-PNE and HCT, {meta.get('study_seeds', 0)} for "
      f"the straggler study), `--jobs {meta['jobs']}`; {meta['fedsim_version']}, commit "
      f"`{meta['git_commit']}`, {meta['date']}; the runs took {meta['wall_seconds']} s of wall time. "
      "`tools/reproduce --full` uses the papers' seed counts (25 function-initialisation pairs "
      "for FTS, 5 seeds for DP-FTS-DE, 10 for Fed-PNE).")
    w("")
    w("Numbers are means ± standard error over seeds (sample sd / sqrt(seeds)). For DP-FTS-DE the "
      "utility measure is the **regret area**: the mean over iterations 0..T of the agents' mean "
      "simple regret (`regret_area` of `sweep.csv`); the final simple regret is after T = 40. "
      "For DP-FTS-DE the objective is one sampled function (world.objective.seed = 1) and the seeds vary the initial points and the algorithms' draws, as in the paper; Fed-PNE seeds vary the clients' offsets and the reward noise. The scenarios "
      "are in `scenarios/papers/`; the raw runs are in `out/reproduce/` (not kept in git), the "
      f"tables and plots in `{rel}/`.")
    w("")

    fts_fig1_section(R, meta, w, cmds, img)
    dp_fts_de_sections(R, w, cmds, img)
    fed_pne_sections(R, w, cmds, img)
    studied = study_section(R, meta, w, cmds, img)
    performance_section(a.bench, w)
    distributed_section(a.bench_distributed, w)

    # ---------------------------------------------------------------- open
    w("## Not yet reproduced (open)")
    w("")
    w("- FTS (Dai et al. 2020) figures 2-4 (real-world comparisons of FTS with TS, RGPE, TAF).")
    w("- DP-FTS-DE appendix figure 6 (the trade-off in P), and the real-world experiments of "
      "section 5.2 and appendix B.2 (figures 3, 8-11 and 12b).")
    w("- Fed-PNE figure 2c-d (Landmine, COVID-19 vaccine dosage) and the real-data panels of figures 6 and 7; "
      "DP-Fed-PNE's figures.")
    if studied:
        w("- The shipped straggler scenarios themselves (`scenarios/stragglers/*.toml`, "
          "`scenarios/async.toml`, N = 200, T = 40) and the X-armed one "
          "(`scenarios/xarmed/stragglers-garland.toml`) are not run here; the study above uses "
          "`scenarios/stragglers/study/base.toml` (N = 100, T = 30) and "
          "`scenarios/stragglers/study/fed-pne.toml` instead.")
    else:
        w("- The straggler study (`scenarios/stragglers/`, `scenarios/async.toml`, "
          "`scenarios/xarmed/stragglers-garland.toml`): no paper figure to compare with, and not run here.")
    w("")

    with open(a.page, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
