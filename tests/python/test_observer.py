"""fedsim.run(..., observer=...): the records of the run's live stream, delivered as the run
goes, equal to the lines `fedsim run --stream FILE` writes; objects with some methods; an
observer that raises; bad observers."""
import json
import os

import pytest

import fedsim
from conftest import fedsim_cli, python_script, scenario_path

# Two shipped scenarios, shrunk: FBO under the deadline policy with stragglers and crashes, and
# Fed-PNE.
SHRUNK = {
    "deadline": ("stragglers/deadline.toml", {"world.agents": 8, "algorithm.iterations": 4}),
    "fed-pne": ("xarmed/garland.toml", {"world.agents": 4}),
}


def shrunk(name):
    file, keys = SHRUNK[name]
    s = fedsim.Scenario.load(scenario_path(file))
    for k, v in keys.items():
        s.set(k, v)
    return s


def without_wall(record):
    """A record but its `wall` (the one field measured, not computed: docs/stream.md)."""
    return {k: v for k, v in record.items() if k != "wall"}


def cli_stream(name, tmp_path, threads):
    file, keys = SHRUNK[name]
    sets = [a for k, v in keys.items() for a in ("--set", f"{k}={v}")]
    stream = tmp_path / f"{name}-{threads}.jsonl"
    fedsim_cli("run", scenario_path(file), *sets, "--out", str(tmp_path / f"cli-{name}-{threads}"),
               "--quiet", "--threads", str(threads), "--stream", str(stream))
    with open(stream, encoding="utf-8") as f:
        return [without_wall(json.loads(line)) for line in f]


@pytest.mark.parametrize("threads", [1, 4])
@pytest.mark.parametrize("name", sorted(SHRUNK))
def test_callable_gets_the_stream_line_for_line(name, threads, tmp_path):
    records = []
    result = fedsim.run(shrunk(name), threads=threads, observer=records.append)
    assert result.completed
    assert all(isinstance(r, dict) for r in records)
    expected = cli_stream(name, tmp_path, threads)
    assert [without_wall(r) for r in records] == expected
    types = [r["type"] for r in records]
    assert types[0] == "start" and types[-1] == "end" and types.count("end") == 1
    # What the scenarios are chosen for: faults and state changes (deadline), phases (Fed-PNE).
    if name == "deadline":
        assert "round" in types and "observation" in types
        assert "fault" in types or "agent" in types
    else:
        assert "phase" in types and "pull" in types


def test_records_arrive_while_the_run_goes(tmp_path):
    # Every record comes while the run goes, before its files are in `out`; the end line is
    # the last one.
    seen = []
    out = tmp_path / "run"

    class Rounds:
        def round(self, r):
            assert not (out / "summary.json").exists()
            seen.append(("round", r["round"]))

        def end(self, r):
            assert not (out / "summary.json").exists()
            seen.append(("end", r["rounds"]))

    fedsim.run(shrunk("deadline"), out=out, observer=Rounds())
    assert (out / "summary.json").exists()
    rounds = [s for s in seen if s[0] == "round"]
    assert rounds and seen[-1] == ("end", len(rounds))
    assert [r[1] for r in rounds] == sorted(r[1] for r in rounds)


def test_an_object_with_only_round_gets_only_rounds():
    class OnlyRounds:
        def __init__(self):
            self.records = []

        def round(self, record):
            self.records.append(record)

    obs = OnlyRounds()
    result = fedsim.run(shrunk("deadline"), observer=obs)
    assert obs.records and all(r["type"] == "round" for r in obs.records)
    assert len(obs.records) == len(result.rounds)
    assert [r["round"] for r in obs.records] == list(result.rounds["round"])


def test_methods_win_over_call_and_each_gets_its_type():
    got = {}

    class Both:
        def __call__(self, record):
            raise AssertionError("the methods receive the records")

        def phase(self, record):
            got.setdefault("phase", []).append(record["type"])

        def end(self, record):
            got.setdefault("end", []).append(record["type"])

    fedsim.run(shrunk("fed-pne"), observer=Both())
    assert set(got) == {"phase", "end"}
    assert set(got["phase"]) == {"phase"} and got["end"] == ["end"]


class Boom(Exception):
    pass


@pytest.mark.parametrize("where", ["observation", "round", "start", "end"])
def test_an_observer_that_raises_stops_the_run_and_its_exception_is_raised(where, tmp_path):
    calls = []

    def observer(record):
        calls.append(record["type"])
        if record["type"] == where:
            raise Boom(f"no more ({where})")

    out = tmp_path / "run"
    with pytest.raises(Boom, match=rf"no more \({where}\)") as info:
        fedsim.run(shrunk("deadline"), out=out, observer=observer)
    # The exception as raised, with its traceback through the observer.
    assert any(frame.name == "observer" for frame in info.traceback)
    # Nothing more was delivered after it raised, and the run wrote nothing.
    assert calls[-1] == where and calls.count(where) == 1
    assert not out.exists() or not any(f for f in os.listdir(out) if not f.startswith("."))
    # The interpreter is usable: the same run again, now to the end.
    result = fedsim.run(shrunk("deadline"), out=out, observer=lambda r: None)
    assert result.completed


def test_after_a_raising_observer_the_interpreter_exits_cleanly():
    proc = python_script(
        "import sys, fedsim\n"
        "s = fedsim.Scenario.load(sys.argv[1]).set('world.agents', 8).set('algorithm.iterations', 4)\n"
        "def obs(r):\n"
        "    if r['type'] == 'round': raise ValueError('stop here')\n"
        "try:\n"
        "    fedsim.run(s, threads=4, observer=obs)\n"
        "except ValueError as e:\n"
        "    print('caught', e)\n",
        scenario_path("stragglers/deadline.toml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "caught stop here\n"


@pytest.mark.parametrize("observer, message", [
    (42, r"observer: give a callable taking one record .* got int"),
    (object(), r"observer: give a callable .* got object"),
    (type("NotAMethod", (), {"round": 3})(), r"observer.round: not callable"),
])
def test_a_bad_observer_is_a_type_error_before_the_run(observer, message, tmp_path):
    out = tmp_path / "run"
    with pytest.raises(TypeError, match=message):
        fedsim.run(shrunk("deadline"), out=out, observer=observer)
    assert not out.exists()


def test_the_loop_driver_refuses_an_observer(tmp_path):
    with pytest.raises(ValueError, match=r"observer: the loop driver has no live records"):
        fedsim.run(shrunk("deadline"), out=tmp_path / "run", driver="loop", observer=print)
    assert not (tmp_path / "run").exists()


INTERRUPT = """
import os, signal, sys, threading, fedsim
s = fedsim.Scenario.load('scenarios/stragglers/deadline.toml').set('algorithm.iterations', 400)
ends = []
class Observer:  # rounds only: the recorder keeps pace with the network
    def round(self, record):
        if record['round'] == 2:
            os.kill(os.getpid(), signal.SIGINT)  # as a user's Ctrl-C while the observer is called
    def end(self, record):
        ends.append(record)
observer = Observer()
try:
    fedsim.run(s, out=sys.argv[1], observer=observer)
    print('finished')
except KeyboardInterrupt as e:
    print('KeyboardInterrupt:', e)
print('end', ends[0]['completed'], ends[0]['reason'].split(':')[0])
print('threads', threading.active_count())
"""


def test_ctrl_c_during_a_run_with_an_observer_raises_keyboard_interrupt(tmp_path):
    # KNOWN GAP (see the branch's report): with an observer the federation is not stopped at
    # its next quiet moment as without one; the run goes to its end, then KeyboardInterrupt is
    # raised. What holds either way: KeyboardInterrupt reaches the caller, the observer got the
    # end record, and no thread of the run is left.
    out = tmp_path / "kept"
    proc = python_script(INTERRUPT, str(out))
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("KeyboardInterrupt:"), proc.stdout
    assert lines[1].startswith("end ")
    assert lines[2] == "threads 1"
    if lines[1] == "end False interrupted":
        assert "checkpoint saved in" in lines[0] and (out / "checkpoint").is_dir()
