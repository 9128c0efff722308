"""fedsim from Python: a thin, typed layer over fedsim's C++ library (docs/python.md).

    import fedsim
    s = fedsim.Scenario.load("scenarios/tiny.toml").set("world.agents", 8)
    r = fedsim.run(s, seed=3)
    print(r.summary["mean_final_simple_regret"], r.observations.groupby("agent").y.max())

Scenarios are loaded and checked by the loader of `fedsim run`; runs and sweeps are those of
`fedsim run` and `fedsim sweep` (the same code, the same files); the tables are the run's CSV
files read with pandas.
"""
from __future__ import annotations

import json
import os
import tempfile
import warnings
from typing import Any, Dict, Iterable, List, Optional, Sequence, Union

import pandas as pd

from ._fedsim import RunError, Scenario, ScenarioError, __version__, build
from ._fedsim import _run_into, _sweep_into
from ._observer import deliverer

__all__ = [
    "Scenario", "ScenarioError", "RunError", "ScenarioWarning", "IncompleteRunWarning",
    "RunResult", "run", "sweep", "read_run", "__version__", "build",
]

PathLike = Union[str, "os.PathLike[str]"]


class ScenarioWarning(UserWarning):
    """A loader warning: a key that has no effect under the scenario's algorithm or policy
    (`fedsim run` prints these as "fedsim: warning: ...")."""


class IncompleteRunWarning(RuntimeWarning):
    """A run that ended without being able to finish (summary["completed"] is False; `fedsim
    run` exits 3): its files are written, RunResult.reason says why."""


# The files a run folder may hold, and the RunResult attribute each becomes.
_CSV_TABLES = {
    "observations": "observations.csv",
    "rounds": "rounds.csv",
    "phases": "phases.csv",
    "privacy_agents": "privacy_agents.csv",
}
_EVENTS = "events.jsonl"


def _read_csv(path: str) -> pd.DataFrame:
    # round_trip: every number exactly as written (pandas' default parser may differ in the
    # last bit).
    return pd.read_csv(path, float_precision="round_trip")


def _read_events(path: str) -> pd.DataFrame:
    # One JSON object a line, with the fields its event has (docs/stream.md's "events.jsonl"):
    # read with json, not pandas.read_json, which would take columns named *_time for dates.
    with open(path, encoding="utf-8") as f:
        return pd.DataFrame.from_records([json.loads(line) for line in f if line.strip()])


class RunResult:
    """What a run wrote, read back.

    summary: dict -- summary.json (the metrics, message counts, times, seed, completed, reason).
    observations, rounds, phases, events, privacy_agents: pandas.DataFrame or None -- the run's
        observations.csv, rounds.csv, phases.csv (Fed-PNE), events.jsonl and privacy_agents.csv
        (private FBO runs); None when the run wrote no such file (the algorithm or driver has
        none, or output.events is off). A file with no rows is an empty frame with its columns.
    out: str or None -- the run folder, None when the run went to a temporary folder (removed).
    completed: bool, reason: str or None -- summary["completed"], summary["reason"].
    """

    def __init__(self, folder: str, out: Optional[str]):
        with open(os.path.join(folder, "summary.json"), encoding="utf-8") as f:
            self.summary: Dict[str, Any] = json.load(f)
        for name, file in _CSV_TABLES.items():
            path = os.path.join(folder, file)
            setattr(self, name, _read_csv(path) if os.path.exists(path) else None)
        events = os.path.join(folder, _EVENTS)
        self.events: Optional[pd.DataFrame] = _read_events(events) if os.path.exists(events) else None
        self.out = out
        self.completed: bool = bool(self.summary.get("completed", True))
        self.reason: Optional[str] = self.summary.get("reason")

    observations: Optional[pd.DataFrame]
    rounds: Optional[pd.DataFrame]
    phases: Optional[pd.DataFrame]
    privacy_agents: Optional[pd.DataFrame]

    def __repr__(self) -> str:
        where = self.out if self.out is not None else "(temporary folder, removed)"
        return (f"<fedsim.RunResult {self.summary.get('scenario')!r} seed {self.summary.get('seed')} "
                f"completed={self.completed} -> {where}>")


def read_run(folder: PathLike) -> RunResult:
    """Reads a finished run folder (of fedsim.run or `fedsim run`) as fedsim.run returns it."""
    folder = os.fspath(folder)
    if not os.path.exists(os.path.join(folder, "summary.json")):
        raise FileNotFoundError(f"{folder}: no summary.json (not a finished run's folder)")
    return RunResult(folder, folder)


def _scenario(scenario: Union[Scenario, PathLike]) -> Scenario:
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.load(os.fspath(scenario))
    raise TypeError(f"scenario: give a fedsim.Scenario or a scenario file's path, got {type(scenario).__name__}")


def _with_seed(scenario: Scenario, seed: Optional[int]) -> Scenario:
    """As `fedsim run --seed N`: an integer in [0, 2^63 - 1], set as the key 'seed'."""
    if seed is None:
        return scenario
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= 2**63 - 1:
        raise ValueError(f"seed {seed!r}: expected an integer in [0, 9223372036854775807]")
    return scenario.copy().set("seed", seed)


def _warn(scenario: Scenario) -> None:
    for w in scenario.warnings:
        warnings.warn(w, ScenarioWarning, stacklevel=3)


def run(scenario: Union[Scenario, PathLike], out: Optional[PathLike] = None, threads: int = 1,
        driver: str = "actors", seed: Optional[int] = None, force: bool = False,
        objective: Any = None, observer: Any = None) -> RunResult:
    """Runs a scenario as `fedsim run SCENARIO --out OUT --threads T --driver D [--seed S]
    [--force]` does, writing the same files, and returns them read back (RunResult).

    scenario: a Scenario, or a scenario file's path.
    out: the run folder; None runs in a temporary folder, removed once the tables are read.
    threads: actor scheduler threads (0: one per core); the files do not depend on it.
    driver: "actors" (a federation in virtual time) or "loop" (the engine's synchronous loop).
    seed: overrides the scenario's seed.
    force: replace a run of another configuration in `out`.
    objective: a Python objective the agents evaluate instead of the scenario's world.objective
        (FBO family, actors driver): an object with `dimension`, `lower`, `upper` and
        `evaluate(agent, x)` returning y, (y, f) or (y, f, cost), optionally `optimum`
        (docs/python.md, "Objectives in Python"). An exception it raises fails the run: a
        RunError naming the agent, whose __cause__ is the objective's exception.
    observer: receives the run's records live, as the run goes (actors driver), each a dict with
        the fields of a line of `fedsim run --stream` (docs/stream.md), in the stream's order: a
        callable called with every record, or an object with any of the methods start, agent,
        observation, pull, fault, round, privacy, phase, end, each called with the records of
        its type (docs/python.md, "Observers"). An exception it raises stops the run (nothing
        is written in `out`) and is raised again here, as it was raised.

    Raises TypeError (an argument of the wrong type: a bad observer, before the run),
    ScenarioError (the scenario or seed refused), ValueError (a bad argument, an `out`
    holding something else, a driver that cannot run the scenario), RunError (the run failed),
    KeyboardInterrupt (Ctrl-C: an actors run in virtual time stops at its next quiet moment and
    saves a checkpoint in `out`, which `fedsim run --resume OUT` continues; loop and wall-clock
    runs stop when they end). A run that could not finish warns with IncompleteRunWarning.
    The loader's warnings (keys without effect) come as ScenarioWarning.
    """
    scenario = _with_seed(_scenario(scenario), seed)
    if not isinstance(threads, int) or isinstance(threads, bool):
        raise TypeError(f"threads: give an int, got {type(threads).__name__}")
    observer_types: tuple = ()
    if observer is not None:
        observer, observer_types = deliverer(observer)
    if out is not None:
        folder = os.fspath(out)
        completed, reason = _run_into(scenario, folder, threads, driver, force, objective, observer,
                                      set(observer_types))
        result = RunResult(folder, folder)
    else:
        with tempfile.TemporaryDirectory(prefix="fedsim-run-") as tmp:
            folder = os.path.join(tmp, "run")
            try:
                completed, reason = _run_into(scenario, folder, threads, driver, force, objective, observer,
                                      set(observer_types))
            except KeyboardInterrupt as e:
                # "interrupted after R rounds (virtual time T): checkpoint saved in ...": the
                # checkpoint goes with the temporary folder.
                when = str(e).split(": checkpoint saved in")[0] or "interrupted"
                raise KeyboardInterrupt(f"run {when}; no out folder: nothing kept") from None
            result = RunResult(folder, None)
    _warn(scenario)
    if not completed:
        warnings.warn(f"run did not complete: {reason}", IncompleteRunWarning, stacklevel=2)
    return result


def sweep(scenario: Union[Scenario, PathLike], grid: Optional[Dict[str, Sequence[Any]]] = None,
          seeds: Union[int, Sequence[int]] = 1, jobs: int = 1, out: Optional[PathLike] = None,
          threads: int = 1, driver: str = "actors") -> pd.DataFrame:
    """Runs a sweep as `fedsim sweep` does (each run in OUT/KEY=VALUE/.../seed=S, resumable)
    and returns its sweep.csv as a DataFrame: one row per grid point, the mean and standard
    error over seeds of each metric.

    grid: scenario keys and the values each takes ({"algorithm.q": [0.25, 0.5]}); the runs are
        the cross product, every value loaded and checked before anything runs.
    seeds: K (seeds 1..K) or a list of seeds.
    jobs: runs in parallel; threads: actor threads per run; driver: as for run.
    out: the sweep folder; None sweeps in a temporary folder, removed once the table is read.

    Raises ScenarioError, ValueError (a bad grid, value or argument; a grid value the loader
    refuses is a ValueError naming it, as `fedsim sweep --grid` says), RunError (a run failed:
    the others are kept in `out`), KeyboardInterrupt (Ctrl-C: the runs under way finish, no
    other starts; the same sweep into the same `out` skips the finished ones).
    """
    scenario = _scenario(scenario)
    grid = {} if grid is None else grid
    if not isinstance(grid, dict):
        raise TypeError(f"grid: give a dict of scenario keys and lists of values, got {type(grid).__name__}")
    for name, value in (("jobs", jobs), ("threads", threads)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{name}: give an int, got {type(value).__name__}")
    if out is not None:
        folder = os.fspath(out)
        _sweep_into(scenario, grid, seeds, jobs, folder, threads, driver)
        table = _read_csv(os.path.join(folder, "sweep.csv"))
    else:
        with tempfile.TemporaryDirectory(prefix="fedsim-sweep-") as tmp:
            folder = os.path.join(tmp, "sweep")
            try:
                _sweep_into(scenario, grid, seeds, jobs, folder, threads, driver)
            except KeyboardInterrupt:
                raise KeyboardInterrupt("sweep interrupted (no out folder: nothing kept)") from None
            table = _read_csv(os.path.join(folder, "sweep.csv"))
    _warn(scenario)
    return table
