"""The results of a run: the document `codesim run -o` writes (README: the results format), read
as a mapping, with tables for pandas."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any


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
                 fault_logs: list[str] | None = None, traces: list[str] | None = None):
        self._bytes = bytes(results_json)
        self._document = json.loads(self._bytes)
        self.warnings: list[str] = list(warnings or [])
        #: The fault logs and timeline traces the replicas wrote (their scenario asked for them).
        self.fault_logs: list[str] = list(fault_logs or [])
        self.traces: list[str] = list(traces or [])

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Results:
        """A results file written by ``codesim run`` or ``Results.save``."""
        return cls(Path(path).read_bytes())

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
        return bool(self._document["complete"])

    def to_json(self) -> str:
        """The results document as ``codesim run -o`` writes it."""
        return self._bytes.decode("utf-8")

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Writes to_json() to `path` whole or not at all (a temporary file renamed)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, prefix=f".{target.name}.",
                                         delete=False) as temporary:
            temporary.write(self._bytes)
        os.replace(temporary.name, target)
        return target

    def _keys(self, index: int, point: dict[str, Any], replica: dict[str, Any]) -> dict[str, Any]:
        row = {"point": index, "label": point["label"]}
        row.update(point["params"])
        row["replica"] = replica["replica"]
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
        if not rows and name not in self.series_names():
            known = ", ".join(self.series_names()) or "none"
            raise KeyError(f"no replica recorded a series {name!r} (expected one of: {known})")
        return _pandas().DataFrame(rows)
