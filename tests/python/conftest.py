"""Shared set-up for the Python tests (run by CTest: tests/python/CMakeLists.txt sets the variables).

TRIAGE_PYTHONPATH: the build's python/ folder (holding the `triage` package); TRIAGE_CLI: the `triage`
command; TRIAGE_SOURCE_DIR: the repository. Every test that starts a program starts it with the same
interpreter and the same PYTHONPATH as the test itself.
"""
import os
import subprocess
import sys

import pytest

SOURCE_DIR = os.environ.get("TRIAGE_SOURCE_DIR", os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
CLI = os.environ.get("TRIAGE_CLI", os.path.join(SOURCE_DIR, "build", "triage"))
HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "programs")


def env():
    e = dict(os.environ)
    e["PYTHONPATH"] = os.pathsep.join(p for p in (os.environ.get("TRIAGE_PYTHONPATH"), e.get("PYTHONPATH")) if p)
    e["NO_COLOR"] = "1"
    return e


def run_python(args, **kwargs):
    """Runs `python3 ARGS` with this interpreter; returns the CompletedProcess (text)."""
    return subprocess.run([sys.executable] + list(args), capture_output=True, text=True, env=env(),
                          timeout=kwargs.pop("timeout", 120), **kwargs)


@pytest.fixture
def program():
    return lambda name: os.path.join(PROGRAMS, name)
