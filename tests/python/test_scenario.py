"""fedsim.Scenario: the loader of `fedsim run`, its checks and its one-line errors."""
import copy

import pytest

import fedsim
from conftest import cli_error, scenario_path

TINY = scenario_path("tiny.toml")


def test_load_reads_the_file_and_its_values():
    s = fedsim.Scenario.load(TINY)
    assert s.name == "tiny"
    assert s.source == TINY
    d = s.to_dict()
    assert d["world"]["agents"] == 8
    assert d["algorithm"]["name"] == "dp-fts-de"
    assert s.toml().startswith("# fedsim scenario, fully resolved")


def test_set_changes_the_key_and_chains():
    s = fedsim.Scenario.load(TINY)
    assert s.set("world.agents", 5).set("algorithm.q", 0.5) is s
    d = s.to_dict()
    assert (d["world"]["agents"], d["algorithm"]["q"]) == (5, 0.5)
    assert s.overrides == ["world.agents=5", "algorithm.q=0.5"]


def test_copy_is_independent():
    s = fedsim.Scenario.load(TINY)
    for c in (s.copy(), copy.copy(s), copy.deepcopy(s)):
        c.set("world.agents", 3)
        assert s.to_dict()["world"]["agents"] == 8


def test_from_dict_of_to_dict_is_the_same_configuration():
    s = fedsim.Scenario.load(TINY).set("world.agents", 6)
    t = fedsim.Scenario.from_dict(s.to_dict())
    assert t.to_dict() == s.to_dict()
    assert t.source == "<dict>"


def test_from_dict_nested_tables_and_types():
    s = fedsim.Scenario.from_dict({
        "name": "from-python", "seed": 7,
        "world": {"agents": 4, "objective": {"grid_size": 50}},
        "algorithm": {"name": "fts", "iterations": 3, "n_init": 2, "features": 8},
    })
    d = s.to_dict()
    assert (s.name, s.seed, d["world"]["agents"], d["world"]["objective"]["grid_size"]) == ("from-python", 7, 4, 50)


def test_from_toml():
    s = fedsim.Scenario.from_toml('name = "t"\n[world]\nagents = 3\n')
    assert s.to_dict()["world"]["agents"] == 3


# Each bad input raises ScenarioError whose message is the line `fedsim run` prints for it.
@pytest.mark.parametrize("key,value,cli_set", [
    ("world.agentz", 5, "world.agentz=5"),                 # unknown key
    ("world.agents", 0, "world.agents=0"),                 # out of range
    ("algorithm.q", 1.5, "algorithm.q=1.5"),               # out of range (real)
    ("world.agents", "many", 'world.agents="many"'),       # wrong type
    ("world.agents", 2.5, "world.agents=2.5"),             # wrong type (real for an integer)
    ("algorithm.name", "nope", 'algorithm.name="nope"'),   # unknown value
])
def test_bad_set_raises_the_cli_message(key, value, cli_set):
    s = fedsim.Scenario.load(TINY)
    before = s.to_dict()
    with pytest.raises(fedsim.ScenarioError) as e:
        s.set(key, value)
    assert str(e.value) == cli_error("run", TINY, "--set", cli_set, "--out", "never")
    assert s.to_dict() == before and s.overrides == []  # left as it was


def test_missing_file_raises_the_cli_message():
    with pytest.raises(fedsim.ScenarioError) as e:
        fedsim.Scenario.load("no-such.toml")
    assert str(e.value) == cli_error("run", "no-such.toml")
    assert isinstance(e.value, ValueError)


def test_a_python_value_without_toml_form_names_the_key():
    s = fedsim.Scenario.load(TINY)
    for value in (None, object(), {1: 2}):
        with pytest.raises(fedsim.ScenarioError, match="key 'world.agents'"):
            s.set("world.agents", value)
    with pytest.raises(fedsim.ScenarioError, match="does not fit TOML's 64-bit integers"):
        s.set("world.agents", 2**70)
    with pytest.raises(fedsim.ScenarioError, match="not a scenario key"):
        s.set("world.agents=3", 1)


def test_from_dict_refuses_what_the_loader_refuses():
    with pytest.raises(fedsim.ScenarioError, match="key 'world.agents'"):
        fedsim.Scenario.from_dict({"world": {"agents": -1}})
    with pytest.raises(fedsim.ScenarioError, match="a scenario is a dict"):
        fedsim.Scenario.from_dict([1, 2])
    deep = {}
    for _ in range(100):
        deep = {"a": deep}
    with pytest.raises(fedsim.ScenarioError, match="nested deeper than 64"):
        fedsim.Scenario.from_dict(deep)


def test_strings_are_escaped_not_parsed():
    # A value holding TOML syntax stays one string: the loader sees the name it was given.
    s = fedsim.Scenario.load(TINY).set("name", 'a"b\\c\n[x]')
    assert s.name == 'a"b\\c\n[x]'


def test_every_shipped_scenario_round_trips_through_dicts_and_toml():
    import glob
    import os
    import warnings
    from conftest import SOURCE_DIR
    paths = sorted(glob.glob(os.path.join(SOURCE_DIR, "scenarios", "**", "*.toml"), recursive=True))
    assert len(paths) > 30
    for p in paths:
        s = fedsim.Scenario.load(p)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert fedsim.Scenario.from_dict(s.to_dict()).to_dict() == s.to_dict(), p
        resolved = fedsim.Scenario.from_toml(s.toml())
        assert resolved.to_dict() == s.to_dict(), p
        assert resolved.warnings == [], p  # a resolved configuration warns of nothing


def test_numpy_numbers_are_numbers():
    import numpy as np
    s = fedsim.Scenario.load(TINY).set("world.agents", np.int64(6)).set("algorithm.q", np.float32(0.5))
    d = s.to_dict()
    assert (d["world"]["agents"], d["algorithm"]["q"]) == (6, 0.5)
    s.set("world.network.groups", [{"fraction": np.float64(1.0)}])
