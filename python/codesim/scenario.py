"""A scenario: the document `codesim run` reads (README: the scenario format), held as the JSON
text the command line's loader produced, so that every edit goes through the same code as
`codesim run --set` and a run sees exactly what the command line would."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from typing import Any

from . import _codesim

#: Names a document given as a dict in error messages, where the command line names its file.
DICT_FILE = "<scenario>"


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as the Python numbers and lists they hold; anything else as is."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    return value


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def _first_problem(value: Any, pointer: str) -> tuple[str, str] | None:
    """(pointer, what is wrong) of the first value JSON cannot hold, None when all can."""
    value = _plain(value)
    if isinstance(value, float) and not math.isfinite(value):
        return pointer, f"{value} is not a JSON number (expected a finite number)"
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return pointer, f"key {key!r} is not a string (expected string keys, as in JSON)"
            found = _first_problem(item, f"{pointer}/{_pointer_token(key)}")
            if found:
                return found
        return None
    if isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found = _first_problem(item, f"{pointer}/{index}")
            if found:
                return found
        return None
    if value is None or isinstance(value, (bool, int, float, str)):
        return None
    return pointer, (f"{_a(type(value).__name__)} is not a JSON value (expected a dict, list, "
                     "string, number, bool or None)")


def json_text(value: Any, file: str, pointer: str = "") -> str:
    """`value` as JSON text; a ScenarioError at the pointer of a value JSON cannot hold."""
    problem = _first_problem(value, pointer)
    if problem:
        _codesim.raise_scenario_error(file, *problem)
    return json.dumps(value, default=_plain, allow_nan=False, ensure_ascii=False)


class Scenario:
    """A scenario document.

    ``Scenario.load(path)`` reads a scenario file as ``codesim run`` does; ``Scenario(dict)``
    takes a document built in Python (errors then name it ``<scenario>``). ``set`` changes one
    value by JSON pointer; ``validate`` and ``resolved`` are ``codesim validate`` and
    ``codesim validate --resolved``. Bad input raises codesim.ScenarioError.
    """

    def __init__(self, document: Mapping[str, Any], *, file: str = DICT_FILE):
        if not isinstance(document, Mapping):
            _codesim.raise_scenario_error(
                file, "", f"{_a(type(document).__name__)} is not a scenario (expected a dict: "
                "the scenario's JSON object)")
        self.file = str(file)
        self._text = json_text(dict(document), self.file)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """The scenario file at `path` (errors name the path as given)."""
        scenario = cls.__new__(cls)
        scenario.file = os.fspath(path)
        scenario._text = _codesim.read_scenario(scenario.file)
        return scenario

    @property
    def document(self) -> dict[str, Any]:
        """A copy of the document, as given with the values set since (no defaults)."""
        return json.loads(self._text)

    def set(self, pointer: str, value: Any) -> Scenario:
        """Sets `value` at the JSON `pointer` (creating missing objects), as
        ``codesim run --set POINTER=VALUE``; returns this scenario, so that calls chain."""
        if not isinstance(pointer, str):
            _codesim.raise_scenario_error(self.file, "", f"pointer {pointer!r} is not a string "
                                          "(expected a JSON pointer such as /cluster/nodes)")
        text = json_text(value, self.file, pointer if pointer.startswith("/") else "")
        self._text = _codesim.set_value(self._text, self.file, pointer, text)
        return self

    def copy(self) -> Scenario:
        scenario = Scenario.__new__(Scenario)
        scenario.file, scenario._text = self.file, self._text
        return scenario

    def validate(self, arithmetic: str = "auto") -> list[str]:
        """Every check ``codesim validate`` makes (values, data, fault logs to replay, memory,
        outputs); returns its warnings (ill-conditioned decoding systems), raises
        ScenarioError when the scenario is bad."""
        return _codesim.validate(self._text, self.file, arithmetic)

    def resolved(self) -> dict[str, Any]:
        """The document with every default filled in (``codesim validate --resolved``)."""
        return json.loads(_codesim.resolved(self._text, self.file))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.document == other.document

    def __repr__(self) -> str:
        name = self.document.get("name", "")
        return f"codesim.Scenario({name or self.file!r})"


def as_scenario(scenario: Scenario | Mapping[str, Any] | str | os.PathLike[str]) -> Scenario:
    """A Scenario from a Scenario, a dict or the path of a scenario file."""
    if isinstance(scenario, Scenario):
        return scenario
    if isinstance(scenario, Mapping):
        return Scenario(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        return Scenario.load(scenario)
    raise TypeError(f"expected a codesim.Scenario, a dict or a scenario file's path, not "
                    f"{type(scenario).__name__}")
