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
      "run writes its outputs, the plain loop (`--driver loop`'s engine) writes none; a ratio is "
      "the actors' wall time over the loop's on the same work, measured in the same run; medians "
      "of the stated repeats. `output.events`: all (every send and delivery logged), faults "
      "(faults only), none.")
    w("")
    w("| N | T | repeats | loop (s) | output.events | actors, 1 thread (s) | ratio | actors, 2 threads (s) | ratio | 2 threads / 1 |")
    w("|---|---|---|---|---|---|---|---|---|---|")
    for r in d["rows"]:
        w(f"| {r['agents']} | {r['iterations']} | {r['repeats']} | {r['loop_s']:.3f} | {r['events']} | "
          f"{r['actors_1_thread_s']:.3f} | {r['ratio_1_thread']:.2f} | {r['actors_2_threads_s']:.3f} | "
          f"{r['ratio_2_threads']:.2f} | {r['two_over_one_thread']:.2f} |")
    w("")
