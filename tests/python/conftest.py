"""Shared fixtures of the Python module's tests (docs/python.md).

ctest runs them (tests/CMakeLists.txt: python_module) with Debian's pytest under the interpreter
the module is built for, PYTHONPATH at the build's package, FEDSIM_BINARY at the build's
`fedsim` and FEDSIM_SOURCE_DIR at the source tree. Run by hand from the source tree:
    PYTHONPATH=build/python /usr/bin/python3 -m pytest tests/python
"""
import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("FEDSIM_SOURCE_DIR",
                            os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
FEDSIM = os.environ.get("FEDSIM_BINARY", os.path.join(SOURCE_DIR, "build", "tools", "fedsim"))


def scenario_path(name):
    """A shipped scenario's absolute path (the same string for fedsim run and the module, so
    that both name the same source in summary.json and config.resolved.toml)."""
    return os.path.join(SOURCE_DIR, "scenarios", name)


def fedsim_cli(*args, env=None, check=True):
    """Runs the build's `fedsim` and returns the completed process (text output)."""
    proc = subprocess.run([FEDSIM, *args], capture_output=True, text=True, timeout=120,
                          env=None if env is None else {**os.environ, **env})
    if check and proc.returncode != 0:
        raise AssertionError(f"fedsim {' '.join(args)} exited {proc.returncode}: {proc.stderr}")
    return proc


def cli_error(*args):
    """The one error line `fedsim` prints for a refused command (exit 2), without its prefix."""
    proc = fedsim_cli(*args, check=False)
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fedsim: error: "), proc.stderr
    return lines[0][len("fedsim: error: "):]


def python_script(code, *args, env=None):
    """Runs `code` with `args` in a fresh interpreter (this one, with this PYTHONPATH), in the
    source tree, and returns the completed process: for what must be seen from outside (a
    clean exit, a signal)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=120, cwd=SOURCE_DIR, env={**os.environ, **(env or {})})


@pytest.fixture(autouse=True)
def _in_tmp(tmp_path, monkeypatch):
    # Every test in its own folder: runs whose out is relative land there.
    monkeypatch.chdir(tmp_path)
