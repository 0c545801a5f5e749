"""Shared fixtures of the Python module's tests: the codesim binary to compare with (CODESIM_BINARY)
and the repository root. ctest runs them with PYTHONPATH=build/python (tests/CMakeLists.txt)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def cli():
    """Runs `codesim ARGS...` from the repository root; returns the CompletedProcess (bytes)."""
    binary = os.environ.get("CODESIM_BINARY", str(ROOT / "build" / "app" / "codesim"))

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([binary, *args], cwd=ROOT, capture_output=True, check=False)

    return run


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    """Scenarios name their data relative to the repository root, as the command line does."""
    monkeypatch.chdir(ROOT)
