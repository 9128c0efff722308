#!/usr/bin/python3
"""Write docs/results.md from the tables tools/reproduce left in docs/results/.

Only the standard library, numpy and tools/plot/regret_timeline.py: every number on the page
is read from the files of the run (sweep.csv copies, `fedsim privacy --json` lines), and every
verdict is the answer of `fedsim compare --json` (the binary given by --fedsim) on the runs
tables of the run (NAME_runs.csv; tools/results/common.py).

This file parses the arguments, writes the page's header and footer and calls the sections in
tools/results/: one module per paper (fts, dp_fts_de, fed_pne), the straggler study, the
Performance section, and per_run_metrics for the per-run metric CSVs tools/reproduce asks for.
The Performance section ends with the accountants subsection (tools/results/accountants.py)
and the distributed-runs and wall-clock subsections (tools/results/remote_runs.py), from the
JSON of build/tools/bench_accountants, build/tools/bench_distributed and
build/tools/bench_wall_clock_lateness.
"""
import argparse
import json
import os

from results.accountants import accountants_section
from results.actor_scaling import actor_scaling_section
from results.common import code_block, design_section, read_commands, use_fedsim
from results.dp_fts_de import dp_fts_de_sections
from results.fed_pne import fed_pne_sections
from results.fts import fts_fig1_section
from results.inventory import inventory_section
from results.per_run_metrics import fed_pne_study_metrics, run_metrics, study_metrics
from results.real_data import real_data_section, real_figures
from results.performance import performance_section
from results.remote_runs import distributed_section, wall_clock_section
from results.straggler_study import study_section

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", default="docs/results")
    ap.add_argument("--page", default="docs/results.md")
    ap.add_argument("--bench", default="docs/bench.json",
                    help="the JSON of build/tools/bench_report for the Performance section")
    ap.add_argument("--bench-distributed", default="docs/bench-distributed.json",
                    help="the JSON of build/tools/bench_distributed --json for the Performance "
                         "section's distributed-runs subsection")
    ap.add_argument("--bench-accountants", default="docs/bench-accountants.json",
                    help="the JSON of build/tools/bench_accountants --json for the Performance "
                         "section's accountants subsection")
    ap.add_argument("--bench-actor-scaling", default="docs/bench-actor-scaling.json",
                    help="the JSON of build/tools/bench_actor_scaling --json for the Performance "
                         "section's scaling subsection")
    ap.add_argument("--bench-wall-clock", default="docs/bench-wall-clock.json",
                    help="the JSON of build/tools/bench_wall_clock_lateness --json for the "
                         "Performance section's wall-clock subsection")
    ap.add_argument("--fedsim", default=os.environ.get("FEDSIM") or os.path.join(ROOT, "build", "tools", "fedsim"),
                    help="the fedsim binary whose `compare` judges every claim of the page "
                         "(default $FEDSIM, else build/tools/fedsim of this checkout)")
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
    ap.add_argument("--real-figures", metavar="WORK_DIR",
                    help="write the real-data part's curves and figures from its raw sweeps "
                         "(tools/reproduce's out/reproduce/real) to --out and exit")
    ap.add_argument("--out")
    a = ap.parse_args()
    if a.real_figures:
        if not a.out:
            ap.error("--real-figures needs --out")
        real_figures(a.real_figures, a.out)
        return
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
    try:
        use_fedsim(a.fedsim)
    except SystemExit as e:
        ap.error(str(e).removeprefix("results_page: "))
    R = a.results
    page_dir = os.path.dirname(os.path.abspath(a.page)) or "."
    rel = os.path.relpath(R, page_dir)
    meta = json.load(open(os.path.join(R, "meta.json")))
    commands = read_commands(os.path.join(R, "commands.tsv"))

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
    w("The tables' numbers are means ± standard error over seeds (sample sd / sqrt(seeds)), "
      "descriptive only: the verdicts come from paired comparisons, as the next section says. "
      "For DP-FTS-DE the "
      "utility measure is the **regret area**: the mean over iterations 0..T of the agents' mean "
      "simple regret (`regret_area` of `sweep.csv`); the final simple regret is after T = 40. "
      "For DP-FTS-DE the objective is one sampled function (world.objective.seed = 1) and the seeds vary the initial points and the algorithms' draws, as in the paper; Fed-PNE seeds vary the clients' offsets and the reward noise. The scenarios "
      "are in `scenarios/papers/`; the raw runs are in `out/reproduce/` (not kept in git), the "
      f"tables and plots in `{rel}/`.")
    w("")

    design_section(w, os.path.relpath(os.path.join(ROOT, "docs", "compare.md"), page_dir), rel)
    fts_fig1_section(R, meta, w, cmds, img)
    dp_fts_de_sections(R, w, cmds, img)
    fed_pne_sections(R, w, cmds, img)
    real = real_data_section(R, w, rel)
    studied = study_section(R, meta, w, cmds, img)
    performance_section(a.bench, w)
    actor_scaling_section(a.bench_actor_scaling, w)
    accountants_section(a.bench_accountants, w)
    distributed_section(a.bench_distributed, w)
    wall_clock_section(a.bench_wall_clock, w)

    inventory_section(w, real, studied)

    with open(a.page, "w") as f:
        f.write("\n".join(out))


if __name__ == "__main__":
    main()
