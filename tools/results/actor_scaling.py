"""The Performance section's subsection on the actor layer's cost as N grows, per event-log
mode and scheduler thread count, from the JSON of build/tools/bench_actor_scaling --json
(tools/bench/actor_scaling.cpp; issue 15)."""
import json
import os

from .common import bench_circumstances


def actor_scaling_section(path, w):
    """One row per (N, output.events): the plain loop's time, the actors' with 1 and 2 threads
    and their ratios; a one-line note on how to make it when `path` does not exist."""
    w("### The actor layer as N grows")
    w("")
    if not os.path.exists(path):
        w(f"No scaling benchmark at `{path}`: run `build/tools/bench_actor_scaling --json {path}`, "
          "then `tools/reproduce`.")
        w("")
        return
    d = json.load(open(path))
    bench_circumstances(d, "tools/bench/actor_scaling.cpp", w)
    w("DP-FTS-DE on a perfect network, sync policy, M = 50, the synthetic objective; each actor "
      "run writes its outputs. Two baselines, measured in the same run: the engine's loop alone "
      "(`fbo::run_reference`, no files), and the loop driver of `fedsim run --driver loop`, which "
      "also builds the objective and writes `observations.csv` and `rounds.csv` as the actors' "
      "recorder does (like for like: what is left of the difference is the actor layer's cost). "
      "A ratio is the actors' wall time over a baseline's; medians of the stated repeats. "
      "`output.events`: all (every send and delivery logged), faults (faults only), none.")
    w("")
    rows = d["rows"]
    files = all("loop_with_files_s" in r for r in rows)
    if files:
        w("| N | T | repeats | loop (s) | loop with files (s) | output.events | actors, 1 thread (s) | ratio | ratio to the loop with files | actors, 2 threads (s) | ratio | ratio to the loop with files | 2 threads / 1 |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    else:
        w("| N | T | repeats | loop (s) | output.events | actors, 1 thread (s) | ratio | actors, 2 threads (s) | ratio | 2 threads / 1 |")
        w("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if files:
            w(f"| {r['agents']} | {r['iterations']} | {r['repeats']} | {r['loop_s']:.3f} | "
              f"{r['loop_with_files_s']:.3f} | {r['events']} | {r['actors_1_thread_s']:.3f} | "
              f"{r['ratio_1_thread']:.2f} | {r['ratio_1_thread_vs_files']:.2f} | "
              f"{r['actors_2_threads_s']:.3f} | {r['ratio_2_threads']:.2f} | "
              f"{r['ratio_2_threads_vs_files']:.2f} | {r['two_over_one_thread']:.2f} |")
        else:
            w(f"| {r['agents']} | {r['iterations']} | {r['repeats']} | {r['loop_s']:.3f} | {r['events']} | "
              f"{r['actors_1_thread_s']:.3f} | {r['ratio_1_thread']:.2f} | {r['actors_2_threads_s']:.3f} | "
              f"{r['ratio_2_threads']:.2f} | {r['two_over_one_thread']:.2f} |")
    w("")
    memory = d.get("memory", [])
    if memory:
        n0, n1 = memory[0]["agents"]
        w("Memory per agent: the peak resident set of one run (T = 2, `output.events = none`, 1 "
          f"thread) of N = {n0} and N = {n1} agents, each alone in a forked process; the "
          "difference over the difference in N. The loop holds the same engine state per agent "
          "(its `FboAgent`); what the actors add is each agent's actor, mailbox and copies of "
          "what it received. `algorithm.posterior_memory`: what an agent keeps of its posterior, "
          "its Cholesky factor (factor, the default) or only its observations (history), the "
          "factor rebuilt from them at each draw; the results are the same, bit for bit.")
        w("")
        w(f"| driver | posterior_memory | N = {n0} (MiB) | N = {n1} (MiB) | KiB per agent |")
        w("|---|---|---|---|---|")
        for m in memory:
            w(f"| {m['driver']} | {m.get('posterior_memory', 'factor')} | "
              f"{m['peak_rss_mib'][0]:.0f} | {m['peak_rss_mib'][1]:.0f} | "
              f"{m['kib_per_agent']:.1f} |")
        w("")
    t = d.get("posterior_memory_time")
    if t:
        w(f"What the history costs in time: the engine's loop at N = {t['agents']}, T = "
          f"{t['iterations']} takes {t['factor_s']:.2f} s with `posterior_memory = \"factor\"` "
          f"and {t['history_s']:.2f} s with `\"history\"` ({t['ratio']:.2f}x).")
        w("")
