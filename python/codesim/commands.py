"""codesim.codes, codesim.theory and codesim.plot: the commands of the same names, their JSON
read back into Python."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from . import _codesim
from .results import Results
from .scenario import surrogate_problem


#: A scenario name the loader accepts (letters, digits, '_', '-' or '.', not starting with '.').
_NAME = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]*")


class OptionError(_codesim.Error, ValueError):
    """An option the command refuses; str() is its exit-2 line without 'error: '."""


def _arguments(command: str, options: dict[str, Any]) -> list[str]:
    """`codesim COMMAND` with each keyword as its option: scheme="gpd" is --scheme gpd, a
    True flag is the bare option (False leaves it out), a list is comma-separated."""
    args = [command]
    for name, value in options.items():
        option = "--" + name.replace("_", "-")
        if value is False or value is None:
            continue
        if value is True:
            args.append(option)
        elif isinstance(value, (list, tuple)):
            args += [option, ",".join(str(v) for v in value)]
        else:
            args += [option, str(value)]
    return args


def _command(command: str, options: dict[str, Any]) -> Any:
    args = _arguments(command, options) + ["--json"]
    for arg in args:  # the C++ core takes UTF-8: refused here, not as pybind11's TypeError
        problem = surrogate_problem(arg, "option")
        if problem:
            raise OptionError(problem)
    code, out, err = _codesim.run_command(args)
    message = err.decode("utf-8", "replace").strip()
    if code == 2:
        raise OptionError(message.removeprefix("error: "))
    if code != 0:
        raise _codesim.Error(message.removeprefix("error: "))
    return json.loads(out)


def codes(**options: Any) -> dict[str, Any]:
    """``codesim codes --json`` with these options (scheme="gpd", m=2, n=2, ...: see
    ``codesim codes --help``): what a coding scheme tolerates, as a dict."""
    return _command("codes", options)


def theory(**options: Any) -> dict[str, Any]:
    """``codesim theory --json`` with these options (table="thresholds", eps=1e-4, ...: see
    ``codesim theory --help``): the closed forms, as a dict."""
    return _command("theory", options)


def _plots_dir() -> Path:
    return Path(__file__).resolve().parent / "plots"


def plot(results: Results | str | os.PathLike[str], kind: str | None = None,
         output_dir: str | os.PathLike[str] = "figures") -> list[Path]:
    """Draws the figures of `results` (a Results, or the path of a results, advice or map file)
    into `output_dir` as ``codesim plot`` does, with this interpreter's matplotlib; `kind` draws
    only that figure (accuracy_vs_time, time_breakdown, pareto, map, ...). Returns the paths."""
    with tempfile.TemporaryDirectory() as scratch:
        if isinstance(results, Results):
            name = results["scenario"].get("name")
            if not (isinstance(name, str) and _NAME.fullmatch(name)):
                name = "results"  # a loaded file's name could be a path out of the scratch dir
            source = Path(scratch) / f"{name}.json"
            source.write_bytes(results.to_json().encode("utf-8"))
        else:
            source = Path(results)
        command = [sys.executable, str(_plots_dir() / "plot.py"), str(source),
                   "-o", os.fspath(output_dir)]
        if kind is not None:
            command += ["--only", kind]
        done = subprocess.run(command, capture_output=True, text=True, check=False)
    message = done.stderr.strip().removeprefix("error: ")
    if done.returncode == 2:
        raise OptionError(message)
    if done.returncode != 0:
        raise _codesim.Error(message or f"plot.py exited with {done.returncode}")
    return [Path(line) for line in done.stdout.splitlines() if line]
