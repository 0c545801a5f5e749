"""codesim.run: `codesim run` from Python, with a progress callback and Ctrl-C that keeps the
replicas that finished."""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from . import _codesim
from .results import Results
from .scenario import (DICT_FILE, INTEGER_RANGE, Scenario, as_scenario, checked_arithmetic,
                       shown_integer)


class Progress(NamedTuple):
    """How far a run got, as its progress callback sees it."""
    replicas_done: int
    replicas_total: int
    points_done: int
    points_total: int
    iterations: int  #: simulated iterations started by training replicas (rolled back ones too)


class Interrupted(KeyboardInterrupt):
    """Ctrl-C stopped a run: ``.results`` holds the replicas that had finished, marked
    incomplete, as the results file of an interrupted ``codesim run``."""

    def __init__(self, results: Results):
        done = sum(len(p["replicas"]) for p in results.points)
        super().__init__(f"interrupted: {done} replicas finished; .results holds them "
                         "(complete: false)")
        self.results = results


def _count(name: str, value: Any) -> int:
    """A thread count given to run(): an int (its range is checked with the command line's)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int (a thread count in [1, 1024]), not "
                        f"{type(value).__name__}")
    return value


def _check_seed(seed: Any, file: str) -> None:
    """Refuses an int seed wider than 64 bits with its digits: the loader would see a double and
    print it rounded (1.84467440737e+19 for 2**64), as if it lay inside the range it states."""
    low, high = INTEGER_RANGE
    if isinstance(seed, int) and not isinstance(seed, bool) and not low <= seed <= high:
        _codesim.raise_scenario_error(file, "/seed", f"value {shown_integer(seed)} is out of "
                                      f"range (expected an integer in [0, {high}])")


class RunWarning(UserWarning):
    """A warning of a run (ill-conditioned decoding systems, a trace cut at its cap)."""


def run(scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str], *, jobs: int = 1,
        seed: int | None = None, replicas: int | None = None, arithmetic: str = "auto",
        threads: int = 1, progress: Callable[[Progress], None] | None = None,
        force: bool = False, memory_limit_gb: float | None = None) -> Results:
    """Runs every replica of every sweep point of `scenario`, as ``codesim run`` with the same
    options (``--jobs``, ``--seed``, ``--replicas``, ``--arithmetic``, ``--threads``,
    ``--force``, ``--memory-limit-gb``), and returns its Results without writing them.

    The GIL is released while the run goes on. `progress`, when given, is called on this thread
    with a Progress whenever it changes (at most ten times a second, and once at the end). Ctrl-C
    stops the run within a second and raises Interrupted, whose ``.results`` keep the finished
    replicas. Bad input raises ScenarioError, any other failure Error.
    """
    chosen = as_scenario(scenario).copy()
    if seed is not None:
        _check_seed(seed, chosen.file)
        chosen.set("/seed", seed)
    if replicas is not None:
        chosen.set("/replicas", replicas)
    arguments = _codesim.RunArguments()
    arguments.text, arguments.file = chosen._text, chosen.file
    arguments.arithmetic = checked_arithmetic(arithmetic)
    arguments.jobs, arguments.threads = _count("jobs", jobs), _count("threads", threads)
    arguments.force = force
    arguments.memory_limit_gb = 0.0 if memory_limit_gb is None else float(memory_limit_gb)
    if memory_limit_gb is not None and not memory_limit_gb > 0:
        _codesim.raise_scenario_error(chosen.file, "", f"memory_limit_gb={memory_limit_gb} is not "
                                      "a memory size (expected a positive number of gigabytes)")
    report = None if progress is None else (lambda *state: progress(Progress(*state)))
    outcome, raised = _codesim.run(arguments, report)
    inputs = list(outcome.inputs)
    if chosen.file != DICT_FILE:
        inputs.insert(0, (os.path.abspath(chosen.file), "the scenario file", False))
    results = Results(outcome.results_json, warnings=outcome.warnings,
                      fault_logs=outcome.fault_logs, traces=outcome.traces, inputs=inputs)
    for warning in outcome.warnings:
        warnings.warn(warning, RunWarning, stacklevel=2)
    if isinstance(raised, KeyboardInterrupt):
        raise Interrupted(results) from None
    if raised is not None:
        raise raised
    if outcome.errors:
        error = _codesim.Error("; ".join(outcome.errors))
        error.results = results
        raise error
    return results
