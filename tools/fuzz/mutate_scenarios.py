#!/usr/bin/python3
"""Scenario mutator: runs `fedsim run` on mutated copies of the shipped scenarios and checks
that bad input never breaks the command (issue 32, "Nothing breaks at the edges").

Deterministic from --seed: mutation i of seed s is always the same file. Each mutant is a
shipped scenario (scenarios/**/*.toml, without tcp and wall-clock ones, which need a service
or real time), shrunk so that an unmutated run takes a second or two (iterations, budget,
tuning samples), with one to three mutations:

  - a number set to an extreme: 0, -1, 1e308, 5e-324, inf, -inf, nan, 2^31-1, 2^63, ...;
  - a size key (features, agents, grid_size, iterations, budget, k, ...) set to a huge value;
  - a value changed to another type (string, bool, array, table);
  - a key deleted;
  - an unknown key added.

Each mutant runs as `fedsim run FILE --quiet --threads 1 --max-memory BOUND --max-work WORK`
(the loop driver for the algorithms the actors do not run, as `fedsim algorithms --json` says)
with a timeout, its resident memory watched. WORK is a third of the timeout: the work estimate
(scenarios/work.hpp) is within a factor of 3 of the CPU time, so a mutant that would run past
the timeout is refused at load instead. Accepted outcomes:

  exit 0  the run finished;
  exit 3  the run could not complete, and stderr says why ("fedsim: run did not complete: ...");
  exit 2  refused: stderr is exactly one line starting with "fedsim: error:".

Anything else is a failure, printed with its reproducer (the mutant is kept in --keep): a
signal, exit 1 (bad input must not reach the run), a timeout, several error lines, or a
resident size above the bound (the process is killed at 1.5 times the bound).

  /usr/bin/python3 tools/fuzz/mutate_scenarios.py --fedsim build/tools/fedsim --count 40
"""
import argparse
import json
import math
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

EXTREMES = [0, -1, 1, 2147483647, -2147483648, 9223372036854775807, 1e308, -1e308, 5e-324,
            float("inf"), float("-inf"), float("nan"), 1.8e308, 0.5, 1e-300, 4294967296]
# Sizes by family: the keys a scenario of that family reads.
COMMON_SIZE_KEYS = {
    "world.agents": [2147483647, 100000000, 1000000],
    "policy.dead_after_missed": [2147483647],
}
FBO_SIZE_KEYS = {
    "algorithm.features": [2147483647, 1000000, 100000],
    "algorithm.iterations": [2147483647, 100000000],
    "algorithm.n_init": [2147483647, 10000000],
    "algorithm.subregions": [2147483647, 1000000],
    "algorithm.acquisition_candidates": [2147483647, 100000000],
    "algorithm.local_features": [1000, 10000],
    "world.objective.grid_size": [2147483647, 1000000, 100000],
    "world.objective.dimension": [1000, 2147483647],
    "world.objective.samples": [2147483647],
    "world.peer_observations": [2147483647, 10000000],
    "policy.buffer_size": [2147483647],
}
XARMED_SIZE_KEYS = {
    "algorithm.budget": [9223372036854775807, 1000000000000, 100000000],
    "algorithm.k": [2147483647, 1000000, 1000],
}
OTHER_TYPES = ["text", True, [1, 2], {"a": 1}, 1.5, 7]
SKIPPED = ("tcp-quadratic.toml", "deadline-chaos.toml", "command-sklearn-svm.toml")


# ---------------------------------------------------------------------------------------------
# TOML out (the few shapes scenario files use)

def toml_value(v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(type(v))


def is_table_array(v):
    return isinstance(v, list) and v and all(isinstance(x, dict) for x in v)


def write_toml(doc, prefix=""):
    lines = []
    for k, v in doc.items():
        if not isinstance(v, dict) and not is_table_array(v):
            lines.append(f"{k} = {toml_value(v)}")
    for k, v in doc.items():
        name = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            lines.append(f"\n[{name}]")
            lines.append(write_toml(v, name))
        elif is_table_array(v):
            for item in v:
                lines.append(f"\n[[{name}]]")
                lines.append(write_toml(item, name))
    return "\n".join(line for line in lines if line != "")


# ---------------------------------------------------------------------------------------------
# Paths into the document

def leaves(doc, prefix=()):
    """(path, value) of every value that is not a table; arrays of tables are entered."""
    for k, v in doc.items():
        p = prefix + (k,)
        if isinstance(v, dict):
            yield from leaves(v, p)
        elif is_table_array(v):
            for i, item in enumerate(v):
                yield from leaves(item, p + (i,))
        else:
            yield p, v


def get_parent(doc, path, create=False):
    node = doc
    for k in path[:-1]:
        if isinstance(node, list):
            node = node[k]
            continue
        if k not in node:
            if not create:
                return None
            node[k] = {}
        node = node[k]
        if not isinstance(node, (dict, list)):
            return None
    return node


def set_path(doc, path, value):
    parent = get_parent(doc, path, create=True)
    if parent is not None:
        parent[path[-1]] = value


def path_text(path):
    return ".".join(str(k) for k in path)


def mutate(doc, rng, xarmed):
    """One mutation of doc in place; returns its description."""
    kind = rng.choice(["extreme"] * 6 + ["size"] * 5 + ["type"] * 2 + ["delete"] * 3 + ["unknown"])
    paths = [p for p, v in leaves(doc)]
    if kind == "size":
        sizes = dict(COMMON_SIZE_KEYS, **(XARMED_SIZE_KEYS if xarmed else FBO_SIZE_KEYS))
        key = rng.choice(sorted(sizes))
        value = rng.choice(sizes[key])
        set_path(doc, tuple(key.split(".")), value)
        return f"{key} = {toml_value(value)}"
    if kind == "unknown":
        table = rng.choice(["", "world", "algorithm", "policy", "world.network", "privacy"])
        path = tuple(table.split(".")) + ("no_such_key",) if table else ("no_such_key",)
        set_path(doc, path, 1)
        return f"{path_text(path)} = 1 (unknown)"
    numeric = [p for p, v in leaves(doc) if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if kind == "extreme" and numeric:
        path = rng.choice(numeric)
        value = rng.choice(EXTREMES)
        set_path(doc, path, value)
        return f"{path_text(path)} = {toml_value(value)}"
    if not paths:
        return "none"
    path = rng.choice(paths)
    if kind == "delete":
        parent = get_parent(doc, path)
        if parent is not None and not isinstance(parent, list):
            del parent[path[-1]]
        return f"{path_text(path)} deleted"
    value = rng.choice(OTHER_TYPES)
    set_path(doc, path, value)
    return f"{path_text(path)} = {toml_value(value)} (type)"


def algorithm_kinds(fedsim):
    """The registry (`fedsim algorithms --json`): name -> kind."""
    out = subprocess.run([fedsim, "algorithms", "--json"], check=True, capture_output=True)
    return {k["name"]: k for k in json.loads(out.stdout)}


def shrink(doc, kinds):
    """Keeps an unmutated run short: the mutations then decide what is large. Returns (whether
    the algorithm is X-armed, whether only the loop driver runs it), from the registry."""
    algo = doc.setdefault("algorithm", {})
    kind = kinds.get(algo.get("name", "dp-fts-de"), kinds["dp-fts-de"])  # the schema's default
    xarmed = kind["family"] == "X-armed"
    if xarmed:
        # The baselines fit a GP or train a network on every evaluation: fewer rounds.
        cap = 300 if kind["traits"]["tree"] else 20
        algo["budget"] = min(int(algo.get("budget", 10000)), cap)
    else:
        algo["iterations"] = min(int(algo.get("iterations", 40)), 4)
        algo["n_init"] = min(int(algo.get("n_init", 10)), 3)
        algo["acquisition_candidates"] = min(int(algo.get("acquisition_candidates", 1000)), 100)
    world = doc.setdefault("world", {})
    baseline = xarmed and not kind["traits"]["tree"]
    world["agents"] = min(int(world.get("agents", 200)), 4 if baseline else 12)
    objective = world.get("objective", {})
    if objective.get("kind") == "tuning":
        objective["samples"] = 600
        if "epochs" in objective or not xarmed:
            objective["epochs"] = 1
    doc.setdefault("output", {})["events"] = "none"
    return xarmed, "actors" not in kind["drivers"]


# ---------------------------------------------------------------------------------------------
# Running

def rss_bytes(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def work_limit(timeout):
    """--max-work for a run given `timeout` seconds: a third of it (the estimate's factor)."""
    return f"{timeout / 3:g}s"


def run_one(fedsim, file, out, bound, timeout, loop):
    """(exit code or -signal, stderr, seconds, peak rss, timed out, killed for memory)"""
    args = [fedsim, "run", file, "--quiet", "--threads", "1", "--out", out,
            "--max-memory", str(bound), "--max-work", work_limit(timeout)]
    if loop:
        args += ["--driver", "loop"]
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=err,
                                start_new_session=True)
        start = time.monotonic()
        peak, timed_out, too_big = 0, False, False
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                peak = max(peak, usage.ru_maxrss * 1024)
                break
            peak = max(peak, rss_bytes(proc.pid))
            elapsed = time.monotonic() - start
            if peak > 1.5 * bound:
                too_big = True
            elif elapsed > timeout:
                timed_out = True
            if too_big or timed_out:
                os.killpg(proc.pid, signal.SIGKILL)
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.05)
        proc.returncode = 0
        code = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return code, text, time.monotonic() - start, peak, timed_out, too_big


def classify(code, stderr, peak, bound, timed_out, too_big):
    """"finished", "incomplete", "refused", or a failure's description."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    if too_big or peak > bound:
        return f"resident memory {peak / 2**20:.0f} MiB above the bound {bound / 2**20:.0f} MiB"
    if timed_out:
        return "timeout"
    if code < 0:
        return f"signal {-code}"
    if code == 0:
        return "finished"
    if code == 3:
        if any(line.startswith("fedsim: run did not complete: ") for line in lines):
            return "incomplete"
        return "exit 3 without a reason line"
    if code == 2:
        if len(lines) == 1 and lines[0].startswith("fedsim: error:"):
            return "refused"
        return f"exit 2 with {len(lines)} stderr lines"
    return f"exit {code}"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fedsim", default=os.path.join(ROOT, "build/tools/fedsim"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--start", type=int, default=0, help="first mutation index")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds per run")
    parser.add_argument("--memory", default="2G", help="bound on a run's memory (K, M, G units)")
    parser.add_argument("--keep", default="", help="folder for the failures' mutants")
    parser.add_argument("--verbose", action="store_true",
                        help="a line per mutant (and a refused one's error line)")
    args = parser.parse_args()

    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    bound = int(float(args.memory[:-1]) * units[args.memory[-1]]) if args.memory[-1] in units \
        else int(args.memory)
    sources = sorted(
        os.path.relpath(os.path.join(d, f), os.path.join(ROOT, "scenarios"))
        for d, _, files in os.walk(os.path.join(ROOT, "scenarios"))
        for f in files if f.endswith(".toml") and f not in SKIPPED)
    kinds = algorithm_kinds(args.fedsim)
    work = tempfile.mkdtemp(prefix="fedsim-mutants-")
    # A copy of the scenarios folder: relative paths in a scenario (availability files,
    # commands) resolve against the mutant's folder as against the original's.
    shutil.copytree(os.path.join(ROOT, "scenarios"), os.path.join(work, "scenarios"),
                    ignore=shutil.ignore_patterns("*.cpp", "*.hpp", "*.md"))
    # ... and of examples/, which command objectives name relative to the scenario's folder.
    shutil.copytree(os.path.join(ROOT, "examples"), os.path.join(work, "examples"),
                    ignore=shutil.ignore_patterns("build*"))
    counts = {}
    failures = []
    try:
        for i in range(args.start, args.start + args.count):
            rng = random.Random(f"{args.seed}:{i}")
            source = rng.choice(sources)
            with open(os.path.join(ROOT, "scenarios", source), "rb") as f:
                doc = tomllib.load(f)
            xarmed, loop_only = shrink(doc, kinds)
            changes = [mutate(doc, rng, xarmed) for _ in range(rng.choice([1, 1, 1, 2, 2, 3]))]
            folder = os.path.join(work, "scenarios", os.path.dirname(source))
            file = os.path.join(folder, f"mutant-{i}.toml")
            with open(file, "w") as f:
                f.write(write_toml(doc) + "\n")
            out = os.path.join(work, "out", str(i))
            code, stderr, seconds, peak, timed_out, too_big = run_one(
                args.fedsim, file, out, bound, args.timeout, loop_only)
            verdict = classify(code, stderr, peak, bound, timed_out, too_big)
            counts[verdict] = counts.get(verdict, 0) + 1
            ok = verdict in ("finished", "incomplete", "refused")
            if args.verbose or not ok:
                print(f"[{i}] {source}: {'; '.join(changes)} -> {verdict} (exit {code}, "
                      f"{seconds:.1f}s, {peak / 2**20:.0f} MiB)", flush=True)
            if args.verbose and verdict == "refused":
                print(f"    {stderr.strip()[:200]}", flush=True)
            if not ok:
                kept = file
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    kept = os.path.join(args.keep, f"mutant-{args.seed}-{i}.toml")
                    shutil.copy(file, kept)
                failures.append(i)
                print(f"    reproduce: {args.fedsim} run {kept} --quiet --threads 1 "
                      f"--max-memory {bound} --max-work {work_limit(args.timeout)}"
                      f"{' --driver loop' if loop_only else ''}", flush=True)
                for line in stderr.splitlines()[:3]:
                    print(f"    {line[:300]}", flush=True)
            os.remove(file)
            shutil.rmtree(out, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("mutants: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())) +
          f"; failures: {len(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
