"""The Performance section's subsections on runs that leave the simulated clock or the process:
distributed runs (fedsim serve + fedsim agents, from build/tools/bench_distributed --json) and
wall-clock time (the network's delivery lateness, from build/tools/bench_wall_clock_lateness
--json)."""
import json
import os

from .common import bench_circumstances


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


def wall_clock_section(path, w):
    """The Performance section's "Wall-clock time" subsection: per time scale, the median and
    99th percentile of how late the network delivered (what it adds over the modelled delay);
    a one-line note on how to make it when `path` does not exist."""
    w("### Wall-clock time: what the network adds over the modelled delay")
    w("")
    if not os.path.exists(path):
        w(f"No wall-clock benchmark at `{path}`: run `tools/reproduce --bench` (or "
          f"`build/tools/bench_wall_clock_lateness --json {path}`, then `tools/reproduce`).")
        w("")
        return
    d = json.load(open(path))
    bench_circumstances(d, "tools/bench/wall_clock_lateness.cpp", w)
    w(f"The scenario `{d['scenario']}` (N = {d['agents']} agents, T = {d['iterations']} "
      "iterations, loss, crashes, the deadline policy) in wall-clock time (`run.time = \"wall\"`, "
      f"`docs/wall-clock.md`), in-process with {d['threads']} scheduler threads, at each "
      "`run.time_scale` (wall seconds per model second). A delivery's **lateness** is the real time "
      "the network delivered it minus the real time it was due (its model time × time_scale): what "
      "the network actor and CAF's scheduler add over the modelled delay; never negative. Per "
      f"scale the middle of {d['repeats']} runs by the 99th percentile.")
    w("")
    w("| time_scale | run wall (s) | model time (s) | deliveries | lateness median (µs) "
      "| lateness p99 (µs) | p99 in model time (ms) |")
    w("|---|---|---|---|---|---|---|")
    for r in d["scales"]:
        p99, scale = r["lateness_p99_s"], r["time_scale"]
        w(f"| {scale:g} | {_cell(r['wall_s'], '.2f')} | {_cell(r['model_s'], '.2f')} | "
          f"{r['delivered']} | "
          f"{_cell(None if r['lateness_median_s'] is None else 1e6 * r['lateness_median_s'], '.0f')} | "
          f"{_cell(None if p99 is None else 1e6 * p99, '.0f')} | "
          f"{_cell(None if p99 is None else 1e3 * p99 / scale, '.2f')} |")
    w("")
    w("The lateness is about constant in wall seconds, so in model seconds it grows as "
      "`time_scale` shrinks: keep the scale large enough that it is small against the model's "
      "latencies and deadlines.")
    w("")
