"""The results of a run: the document `codesim run -o` writes (README: the results format), read
as a mapping, with tables for pandas."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from . import _codesim

#: What a file given to Results.load should be, for messages.
EXPECTED = "expected a results file written by codesim run or Results.save"
#: Names results that come from no file (a run's, or bytes given to Results) in messages.
NO_FILE = "<results>"


class ResultsError(_codesim.Error, ValueError):
    """A file that is not the results of a run, or a path Results.save will not write: str() is
    "FILE: what is wrong (expected ...)", with .file and .message."""

    def __init__(self, file: str, message: str):
        super().__init__(f"{file}: {message}")
        self.file, self.message = file, message


class SeriesError(ResultsError, KeyError):
    """A series the results do not hold; a KeyError too, as a key a mapping lacks."""

    __str__ = ValueError.__str__  # KeyError's would quote the message


def _not_results(file: str, what: str) -> ResultsError:
    return ResultsError(file, f"not a results file: {what} ({EXPECTED})")


def _parsed(data: bytes, file: str) -> Any:
    """The JSON document `data`, a ResultsError naming `file` when it is not one."""
    if not data.strip():
        raise _not_results(file, "the file is empty")
    try:  # UTF-8 only (json.loads would take UTF-16 too), as to_json() gives it back
        return json.loads(data.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise _not_results(file, f"invalid UTF-8 at byte {error.start}") from None
    except json.JSONDecodeError as error:
        raise _not_results(file, f"invalid JSON at line {error.lineno}, column {error.colno}: "
                           f"{error.msg}") from None
    except RecursionError:
        raise _not_results(file, "arrays and objects nested too deeply for Python's JSON "
                           "reader") from None


def _checked(document: Any, file: str) -> dict[str, Any]:
    """`document` when it has what Results reads (scenario, points with params and replicas);
    a ResultsError naming `file` and what it is instead. codesim advise's files are named."""
    kind = document.get("kind") if isinstance(document, dict) else None
    if kind == "advice":
        raise ResultsError(file, f"is an advice file written by codesim advise, not run results "
                           f"({EXPECTED})")
    if kind == "advice_map":
        raise ResultsError(file, "is an advice map written by codesim advise --map, not run "
                           f"results ({EXPECTED})")
    if not isinstance(document, dict):
        raise _not_results(file, f"the document is {_a_json(document)}, not an object")
    if not isinstance(document.get("points"), list):
        raise _not_results(file, 'no "points" list of sweep points')
    if document.get("schema_version", 1) != 1:
        raise _not_results(file, f"schema_version {document['schema_version']!r} is not 1")
    if not isinstance(document.get("scenario"), dict):
        raise _not_results(file, 'no "scenario" object')
    for index, point in enumerate(document["points"]):
        if not (isinstance(point, dict) and isinstance(point.get("params"), dict)
                and isinstance(point.get("replicas"), list)
                and all(isinstance(replica, dict) for replica in point["replicas"])):
            raise _not_results(file, f"points[{index}] is not an object with params (an "
                               "object) and replicas (a list of objects)")
    return document


def _same_file(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:  # either is gone: they are not one file
        return False


def _a_json(value: Any) -> str:
    names = {list: "an array", str: "a string", bool: "a boolean", type(None): "null"}
    return names.get(type(value), "a number")


def _read_bytes(file: str) -> bytes:
    """The bytes of the regular file `file`: a ResultsError for anything else (a FIFO would
    block, a device never end). No size limit: a run's results may pass the scenario's."""
    try:
        kind = os.stat(file).st_mode
        if stat.S_ISDIR(kind):
            raise ResultsError(file, f"is a directory ({EXPECTED})")
        if not stat.S_ISREG(kind):
            raise ResultsError(file, f"is not a regular file ({EXPECTED})")
        # O_NONBLOCK: should the path have become a FIFO since, opening it does not wait.
        descriptor = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
        with os.fdopen(descriptor, "rb") as opened:
            if not stat.S_ISREG(os.fstat(opened.fileno()).st_mode):
                raise ResultsError(file, f"is no longer a regular file ({EXPECTED})")
            return opened.read()
    except (FileNotFoundError, NotADirectoryError):
        raise ResultsError(file, f"no such file ({EXPECTED})") from None
    except OSError as error:
        raise ResultsError(file, f"cannot read the file: {error.strerror or error} "
                           f"({EXPECTED})") from None


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as error:
        raise ImportError("codesim's tables need pandas (Debian: apt-get install python3-pandas; "
                          "in a virtual environment: pip install pandas)") from error
    return pandas


def _is_scalar(value: Any) -> bool:
    return value is None or isinstance(value, (bool, int, float, str))


class Results(Mapping[str, Any]):
    """What ``codesim run`` writes, read-only: ``results["points"]``, ``results["scenario"]``
    and the rest of the document (README: the results format).

    ``to_json()`` is the text ``codesim run -o`` writes for the same scenario and options, byte for
    byte; ``to_pandas()`` and ``series(name)`` are long tables of it.
    """

    def __init__(self, results_json: bytes, *, warnings: list[str] | None = None,
                 fault_logs: list[str] | None = None, traces: list[str] | None = None,
                 inputs: list[tuple[str, str, bool]] | None = None, file: str = NO_FILE):
        self._bytes = bytes(results_json)
        self._file = file
        self._document = _checked(_parsed(self._bytes, file), file)
        self.warnings: list[str] = list(warnings or [])
        #: The fault logs and timeline traces the replicas wrote (their scenario asked for them).
        self.fault_logs: list[str] = list(fault_logs or [])
        self.traces: list[str] = list(traces or [])
        # What save must not replace: (absolute path, what it is, a directory of inputs), taken
        # now, while the working directory is still the run's.
        kept = list(inputs or [])  # one per point: repeated when points share them
        kept += [(os.path.abspath(p), "the fault log the run wrote", False)
                 for p in self.fault_logs]
        kept += [(os.path.abspath(p), "the trace the run wrote", False) for p in self.traces]
        self._kept = list(dict.fromkeys(kept))

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Results:
        """A results file written by ``codesim run`` or ``Results.save``; a ResultsError naming
        the file when it is none (an advice or map file of ``codesim advise`` included)."""
        file = os.fsdecode(path)
        return cls(_read_bytes(file), file=file)

    def __getitem__(self, key: str) -> Any:
        return self._document[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._document)

    def __len__(self) -> int:
        return len(self._document)

    def __repr__(self) -> str:
        replicas = sum(len(p["replicas"]) for p in self.points)
        state = "" if self.complete else ", incomplete"
        return (f"codesim.Results({self['scenario'].get('name', '')!r}, {len(self.points)} "
                f"points, {replicas} replicas{state})")

    @property
    def points(self) -> list[dict[str, Any]]:
        """Each sweep point: params ({pointer: value}), label, replicas and aggregate."""
        return self._document["points"]

    @property
    def complete(self) -> bool:
        """False when the run was interrupted: the points hold the replicas that finished."""
        return bool(self._document.get("complete", True))

    def to_json(self) -> str:
        """The results document as ``codesim run -o`` writes it."""
        return self._bytes.decode("utf-8")

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Writes to_json() to `path` whole or not at all (a temporary file renamed). Refuses,
        as ``codesim run -o`` does, a path that is not a regular file or that is a file the run
        read or wrote (its scenario file, a trace, a fault log, its dataset)."""
        target = Path(path)
        self._check_target(os.fsdecode(path))
        temporary = None
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.",
                                             delete=False) as written:
                temporary = written.name
                written.write(self._bytes)
            os.replace(temporary, target)
        except BaseException as error:
            if temporary is not None:  # never a partial file left beside the target
                with contextlib.suppress(OSError):
                    os.unlink(temporary)
            if isinstance(error, OSError):
                raise _codesim.Error(f"{os.fsdecode(path)}: cannot write the results: "
                                     f"{error.strerror or error}") from None
            raise
        return target

    def _check_target(self, file: str) -> None:
        """A ResultsError when `file` exists as anything but a regular file, or is (or lies in)
        what the run read or wrote."""
        expected = "expected a new file or one the run neither read nor wrote"
        try:
            kind = os.stat(file).st_mode
        except OSError:
            kind = None
        if kind is not None and not stat.S_ISREG(kind):
            what = "a directory" if stat.S_ISDIR(kind) else "not a regular file"
            raise ResultsError(file, f"is {what} ({expected})")
        real = os.path.realpath(file)
        for kept, name, directory in self._kept:
            if directory:
                inside = os.path.commonpath([real, os.path.realpath(kept)])
                same = inside == os.path.realpath(kept)
            else:
                same = kind is not None and _same_file(file, kept)
            if same:
                where = "inside " if directory else ""
                raise ResultsError(file, f"is {where}{name} {json.dumps(kept)}: saving would "
                                   f"replace it ({expected})")

    def _keys(self, index: int, point: dict[str, Any], replica: dict[str, Any]) -> dict[str, Any]:
        row = {"point": index, "label": point.get("label")}
        row.update(point["params"])
        row["replica"] = replica.get("replica")
        return row

    def rows(self) -> list[dict[str, Any]]:
        """One dict per (point, replica): point, label, each swept pointer, replica and every
        scalar metric of the replica."""
        rows = []
        for index, point in enumerate(self.points):
            for replica in point["replicas"]:
                row = self._keys(index, point, replica)
                row.update((k, v) for k, v in replica.items() if k != "replica" and _is_scalar(v))
                rows.append(row)
        return rows

    def to_pandas(self) -> Any:
        """A pandas DataFrame with one row per replica of every point (rows())."""
        return _pandas().DataFrame(self.rows())

    def series_names(self) -> list[str]:
        """The series the replicas recorded (accuracy_vs_time, ...), in order of appearance."""
        names: dict[str, None] = {}
        for point in self.points:
            for replica in point["replicas"]:
                names.update((k, None) for k, v in replica.items() if isinstance(v, dict))
        return list(names)

    def series(self, name: str) -> Any:
        """A pandas DataFrame of series `name`: one row per row of every replica's series, with
        point, label, each swept pointer and replica before the series' own columns."""
        rows = []
        for index, point in enumerate(self.points):
            for replica in point["replicas"]:
                table = replica.get(name)
                if not isinstance(table, dict):
                    continue
                keys = self._keys(index, point, replica)
                rows.extend({**keys, **dict(zip(table["columns"], values))}
                            for values in table["rows"])
        names = self.series_names()
        if not rows and name not in names:
            if names:
                raise SeriesError(self._file, f"no replica recorded a series {name!r} "
                                  f"(expected one of: {', '.join(names)})")
            raise SeriesError(self._file, f"no series {name!r}: {self._why_no_series()} "
                              "(expected the results of a numeric training run)")
        return _pandas().DataFrame(rows)

    def _why_no_series(self) -> str:
        workload = self._document["scenario"].get("workload")
        workload = workload if isinstance(workload, dict) else {}
        if not any(point["replicas"] for point in self.points):
            return "no replica finished, so these results have no series at all"
        if workload.get("mode") == "stochastic":
            return "a stochastic run evaluates nothing, so its results have no series at all"
        if workload.get("kind") == "iterative_job":
            return "an iterative job records no series, so these results have none at all"
        return "these results have no series at all"
