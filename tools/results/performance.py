"""The Performance section of the results page, from the JSON of build/tools/bench_report."""
import json
import os

from results.common import code_block


def fmt_rate(x):
    """A rate with 3 significant digits and a k/M suffix."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if x >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


def rss_cell(r):
    """The last table cell: a row's peak RSS of one run, loop / actors (empty for totals)."""
    if "loop_one_run_peak_rss_mib" not in r:
        return " |"
    return f"{r['loop_one_run_peak_rss_mib']:.0f} / {r['actors_one_run_peak_rss_mib']:.0f} |"


def performance_section(bench_path, w):
    """The Performance section from the JSON of build/tools/bench_report (tools/bench/report.cpp)."""
    if not os.path.exists(bench_path):
        w("## Performance")
        w("")
        w(f"No benchmark report at `{bench_path}`: run `tools/reproduce --bench` (or "
          f"`build/tools/bench_report --out {bench_path}`, then `tools/reproduce`).")
        w("")
        return
    b = json.load(open(bench_path))
    m = b["machine"]
    w("## Performance")
    w("")
    w(f"Measured by `{b['command']}` (`tools/bench/report.cpp`; `tools/reproduce --bench` runs it "
      f"and regenerates this page), fedsim {b['fedsim_version']}, commit `{b['git_commit']}`, "
      f"{b['date']}, in {b['wall_seconds']:.0f} s. Machine: {m['cpu']}, {m['logical_cores']} "
      f"logical cores, {m['kernel']}; load average {m['load_average_at_start'][0]:.2f} at the start "
      f"and {m['load_average_at_end'][0]:.2f} at the end (the machine is shared, so times vary "
      f"between runs). Build: {b['build']['type']}, {b['build']['compiler']}, assertions "
      f"{'on' if b['build']['assertions'] else 'off'}. Actor runs use {b['threads']} scheduler "
      f"thread{'s' if b['threads'] != 1 else ''} each and run one after another, as does the "
      "plain loop; each measurement ran in its own process (its peak RSS is its own), "
      f"{b['repeats']} times with the four modes alternating, and every time below is the best of "
      f"the {b['repeats']} (totals are sums of the rows). Two pairs do the same work: without "
      "files, the engine's **loop** alone against the **actors** run with "
      "`RunOptions::write_files = false` (the results only, as a program that embeds the actors "
      "may take them); with files, the loop driver of `fedsim run --driver loop` "
      "(`cli::run_loop`) against the actors, both writing a run's files (observations, rounds or "
      "phases) into one folder. The actor runs of a process share one actor system, as the runs "
      "of a `fedsim sweep` worker do. **Ratio** is actors / loop without files and **with files** "
      "the same with files, all measured in this same run on the same configurations. "
      "**Same result**: the largest relative difference between the modes' regrets over the "
      "runs (0: identical). "
      "**Peak RSS of a run** (loop / actors): the maximum resident set of a process that ran "
      "seed 1 of the row alone (a forked process that runs nothing peaks at "
      f"{b['baseline_peak_rss_mib']:.1f} MiB).")
    w("")

    f = b["fig2a"]
    N, T = f["agents"], f["iterations"]
    w(f"### DP-FTS-DE figure 2a (N = {N}, T = {T})")
    w("")
    w("The runs of figure 2a from `scenarios/papers/dp-fts-de-fig2.toml`: as actors "
      "(`run_federation`, what `fedsim run` and `fedsim sweep` call; perfect network, sync server) "
      "and through the synchronous reference loop (`fbo::run_reference`, what `fedsim reference` "
      f"calls). Agent-iterations per second are N·T = {N * T} per run over the seconds.")
    w("")
    w("| algorithm | runs | loop (s) | actors (s) | ratio | loop with files (s) | actors with files (s) | ratio with files | loop agent-it/s | actors agent-it/s | same result | peak RSS of a run (MiB) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in f["rows"] + [dict(f["total"], algorithm="**all**")]:
        w(f"| {r['algorithm']} | {r['runs']} | {r['loop_s']:.2f} | {r['actors_s']:.2f} | "
          f"{r['ratio']:.2f} | {r['loop_files_s']:.2f} | {r['actors_files_s']:.2f} | "
          f"{r['ratio_vs_files']:.2f} | "
          f"{fmt_rate(r['loop_agent_iterations_per_s'])} | "
          f"{fmt_rate(r['actors_agent_iterations_per_s'])} | {r['max_rel_diff']:.1g} | "
          + rss_cell(r))
    w("")
    rows = f["rows"]
    lo = min(rows, key=lambda r: r["ratio"])
    hi = max(rows, key=lambda r: r["ratio"])
    e = f["end_to_end"]
    w(f"The whole figure 2a ({f['total']['runs']} runs) takes {f['total']['actors_s']:.1f} s as "
      f"actors against {f['total']['loop_s']:.1f} s in the plain loop: the actor runtime costs "
      f"{f['total']['ratio']:.2f}x the loop here, from {lo['ratio']:.2f}x ({lo['algorithm']}) to "
      f"{hi['ratio']:.2f}x ({hi['algorithm']}); with the files on both sides, "
      f"{f['total']['actors_files_s']:.1f} s against {f['total']['loop_files_s']:.1f} s "
      f"({f['total']['ratio_vs_files']:.2f}x). One run peaks at "
      f"{max(r['actors_one_run_peak_rss_mib'] for r in rows):.0f} MiB as actors at most, against "
      f"{max(r['loop_one_run_peak_rss_mib'] for r in rows):.0f} MiB in the loop; a process "
      f"running all {f['total']['runs']} runs one after another peaks at "
      f"{f['peak_rss_mib']['actors']:.0f} MiB (actors) and {f['peak_rss_mib']['loop']:.0f} MiB "
      "(loop). "
      f"End to end, tools/reproduce's two commands (`--jobs {e['jobs']}`) take {e['seconds']:.1f} s "
      f"({e['seconds'] / f['total']['actors_files_s']:.2f}x the actor runs with files one after "
      "another, in process), "
      f"peak RSS {e['peak_rss_mib']:.0f} MiB:")
    w("")
    code_block(w, e["commands"])

    p = b["fed_pne"]
    w("### Fed-PNE figure 2 (T = 10000 pulls per client) and HCT")
    w("")
    w("The runs of figures 2 and 6 from `scenarios/papers/fed-pne-*.toml` as actors, through "
      "the engine's loop alone (`xarmed::run_fed_pne`) and through the loop driver that calls it "
      "and writes the same files (`fedsim run --driver loop`); pulls per second "
      "are M·T per run over the seconds (centre pulls: a node's value is computed once per phase, so a "
      "pull is cheap).")
    w("")
    w("| objective | M | runs | loop (s) | actors (s) | ratio | loop with files (s) | actors with files (s) | ratio with files | loop pulls/s | actors pulls/s | same result | peak RSS of a run (MiB) |")
    w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in p["rows"] + [dict(p["total"], objective="**all**", M="")]:
        w(f"| {r['objective']} | {r['M']} | {r['runs']} | {r['loop_s']:.3f} | {r['actors_s']:.3f} | "
          f"{r['ratio']:.2f} | {r['loop_files_s']:.3f} | {r['actors_files_s']:.3f} | "
          f"{r['ratio_vs_files']:.2f} | "
          f"{fmt_rate(r['loop_pulls_per_s'])} | "
          f"{fmt_rate(r['actors_pulls_per_s'])} | {r['max_rel_diff']:.1g} | "
          + rss_cell(r))
    w("")
    h = b["hct"]
    w("| HCT (`xarmed::run_hct`) | runs | T | seconds | evaluations/s |")
    w("|---|---|---|---|---|")
    for r in h["rows"]:
        w(f"| {r['objective']} | {r['runs']} | {r['budget']} | {r['seconds']:.3f} | "
          f"{fmt_rate(r['evaluations_per_s'])} |")
    w("")
    e = p["end_to_end"]
    w(f"The Fed-PNE runs take {p['total']['actors_s']:.2f} s as actors against "
      f"{p['total']['loop_s']:.2f} s in the loop (ratio {p['total']['ratio']:.2f}) and, with "
      f"their files, {p['total']['actors_files_s']:.2f} s against {p['total']['loop_files_s']:.2f} s "
      f"in the loop driver (ratio {p['total']['ratio_vs_files']:.2f}); a run lasts "
      f"{1000 * p['total']['actors_files_s'] / p['total']['runs']:.1f} ms on average as actors "
      "with files. A process running all "
      f"{p['total']['runs']} runs peaks at {p['peak_rss_mib']['actors']:.0f} MiB (actors) and "
      f"{p['peak_rss_mib']['loop']:.0f} MiB (loop), one running the HCT runs at "
      f"{h['peak_rss_mib']:.0f} MiB. End to end, tools/reproduce's commands for "
      f"figures 2 and 6 with the HCT baselines take {e['seconds']:.2f} s, peak RSS "
      f"{e['peak_rss_mib']:.0f} MiB:")
    w("")
    code_block(w, e["commands"])
