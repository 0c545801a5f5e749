"""A scenario: the document `codesim run` reads (README: the scenario format), held as the JSON
text the command line's loader produced, so that every edit goes through the same code as
`codesim run --set` and a run sees exactly what the command line would."""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator, Mapping
from typing import Any

from . import _codesim

#: Names a document given as a dict in error messages, where the command line names its file.
DICT_FILE = "<scenario>"


#: The widest integers codesim's JSON holds exactly (nlohmann's int64 and uint64); any other
#: integer becomes a double there and loses its last digits.
INTEGER_RANGE = (-(2**63), 2**64 - 1)

#: Echoed text (a string or key in a message) is cut to this many characters.
SHOWN_CHARS = 200

_SURROGATE = re.compile("[\ud800-\udfff]")


def _pointer_token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _plain(value: Any) -> Any:
    """numpy scalars and arrays as the Python numbers and lists they hold, a mapping other than
    a dict as a dict (json writes only dicts); anything else as is."""
    if hasattr(value, "tolist") and callable(value.tolist):
        return value.tolist()
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def shown(text: str) -> str:
    """`text` as a message quotes it: repr (escapes included), cut to SHOWN_CHARS characters."""
    quoted = repr(text[:SHOWN_CHARS])
    if len(text) <= SHOWN_CHARS and len(quoted) <= SHOWN_CHARS + 2:
        return quoted
    return quoted[:SHOWN_CHARS] + "..."


def shown_integer(value: int) -> str:
    """`value` in full (a message must show that it lies outside a range, which a double cannot),
    or its size when it has more digits than a message should echo (or Python prints)."""
    if value.bit_length() <= SHOWN_CHARS * 3:  # at most ~180 digits
        return str(value)
    digits = int(value.bit_length() * math.log10(2)) + 1  # within one
    return f"{'-' if value < 0 else ''}(an integer of about {digits} digits)"


def surrogate_problem(text: str, what: str) -> str | None:
    """What is wrong with `text` when it holds a lone surrogate (a str Python allows but UTF-8,
    and so JSON and codesim, cannot hold); None when it holds none. `what` names it."""
    found = None if text.isascii() else _SURROGATE.search(text)
    if found is None:
        return None
    return (f"{what} {shown(text)} holds the lone surrogate U+{ord(found.group()):04X} at "
            f"character {found.start()}, which is not Unicode text (expected a string UTF-8 "
            "can encode)")


def _scalar_problem(value: Any) -> str | None:
    """What is wrong with a value that is not a container; None when JSON holds it."""
    if isinstance(value, str):
        return surrogate_problem(value, "string")
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, int):
        low, high = INTEGER_RANGE
        if low <= value <= high:
            return None
        return (f"value {shown_integer(value)} is out of range (expected an integer in "
                f"[{low}, {high}])")
    if isinstance(value, float):
        if math.isfinite(value):
            return None
        return f"{value} is not a JSON number (expected a finite number)"
    return (f"{_a(type(value).__name__)} is not a JSON value (expected a dict, list, string, "
            "number, bool or None)")


def _scalar_bytes(value: Any) -> int:
    """A lower bound of the bytes of `value` (not a container) as JSON: cheap to compute."""
    if isinstance(value, str):
        return len(value) + 2
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if isinstance(value, int):  # at least floor((bits - 1) log10(2)) + 1 digits, and a sign
        return (max(abs(value).bit_length() - 1, 0) * 30103) // 100000 + 1 + (value < 0)
    return 3  # a finite float: 0.0, 1e-05, ...


def _key_problem(key: Any) -> str | None:
    if not isinstance(key, str):
        return f"key {key!r} is not a string (expected string keys, as in JSON)"
    return surrogate_problem(key, "key")


def _too_deep() -> str:
    limit = _codesim.max_json_depth
    return f"arrays and objects nested deeper than {limit} levels (expected at most {limit})"


def _first_problem(value: Any, pointer: str, budget: int) -> tuple[str, str] | None:
    """(pointer, what is wrong) of the first value in document order that JSON cannot hold or
    the command line's reader refuses (nested deeper than it reads, a value that contains
    itself), or of `pointer` when the value's JSON text has more than `budget` bytes; None when
    all is well. Iterative, so that no value exhausts Python's stack."""
    base = pointer.count("/")  # the containers above the value, as the reader counts them
    frames: list[tuple[Iterator[tuple[Any, Any]], str, int, bool]] = []
    open_ids: set[int] = set()  # the containers being walked: one met again is a cycle
    size = 0
    item, at = value, pointer
    while True:
        item = _plain(item)
        if isinstance(item, (Mapping, list, tuple)):
            if id(item) in open_ids:
                return at, (f"{_a(type(item).__name__)} that contains itself (expected a value "
                            "JSON can write: one without cycles)")
            if base + len(frames) + 1 > _codesim.max_json_depth:
                return at, _too_deep()
            mapping = isinstance(item, Mapping)
            size += 1 + max(len(item), 1)  # the brackets and the commas between items
            frames.append((iter(item.items() if mapping else enumerate(item)), at, id(item),
                           mapping))
            open_ids.add(id(item))
        else:
            problem = _scalar_problem(item)
            if problem:
                return at, problem
            size += _scalar_bytes(item)
        if size > budget:
            return pointer, _too_large(pointer)
        while frames:  # the next item in document order, closing the containers done
            entries, container_at, ident, mapping = frames[-1]
            entry = next(entries, None)
            if entry is not None:
                break
            frames.pop()
            open_ids.discard(ident)
        else:
            return None
        key, item = entry
        if mapping:
            problem = _key_problem(key)
            if problem:
                return container_at, problem
            size += len(key) + 3  # its quotes and colon
        at = f"{container_at}/{_pointer_token(str(key))}"


def _too_large(pointer: str) -> str:
    limit = _codesim.max_json_file_bytes
    what = "the document" if not pointer else "the value, with the document,"
    return (f"{what} has more than {limit} bytes as JSON, the limit of {limit >> 20} MiB "
            f"(expected a scenario of at most {limit} bytes, as the command line reads)")


def _utf8_bytes(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8"))


def json_text(value: Any, file: str, pointer: str = "", budget: int | None = None) -> str:
    """`value` as compact JSON text; a ScenarioError at the pointer of a value JSON cannot hold,
    or when the text would pass `budget` bytes (the command line's file limit by default). The
    size is bounded while walking, so a huge value is refused before its text is built."""
    if budget is None:
        budget = _codesim.max_json_file_bytes
    problem = _first_problem(value, pointer, budget)
    if problem:
        _codesim.raise_scenario_error(file, *problem)
    text = json.dumps(value, default=_plain, allow_nan=False, ensure_ascii=False,
                      separators=(",", ":"))
    if _utf8_bytes(text) > budget:  # the walk's bound is low for long numbers
        _codesim.raise_scenario_error(file, pointer, _too_large(pointer))
    return text


def _checked_name(name: Any, what: str) -> str:
    """A file name or pointer that goes to the C++ core: a str UTF-8 can encode, else a
    ValueError naming `what` (a ScenarioError could not carry it either)."""
    problem = surrogate_problem(name, what) if isinstance(name, str) else None
    if problem:
        raise ValueError(problem)
    return name


class Scenario:
    """A scenario document.

    ``Scenario.load(path)`` reads a scenario file as ``codesim run`` does; ``Scenario(dict)``
    takes a document built in Python (errors then name it ``<scenario>``). ``set`` changes one
    value by JSON pointer; ``validate`` and ``resolved`` are ``codesim validate`` and
    ``codesim validate --resolved``. Bad input raises codesim.ScenarioError.
    """

    def __init__(self, document: Mapping[str, Any], *, file: str = DICT_FILE):
        file = _checked_name(str(file), "file")
        if not isinstance(document, Mapping):
            _codesim.raise_scenario_error(
                file, "", f"{_a(type(document).__name__)} is not a scenario (expected a dict: "
                "the scenario's JSON object)")
        self.file = file
        # The dict itself when it is one (not a copy), so that a cycle through it is found there.
        self._text = json_text(document if isinstance(document, dict) else dict(document), file)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Scenario:
        """The scenario file at `path` (errors name the path as given)."""
        scenario = cls.__new__(cls)
        scenario.file = _checked_name(os.fsdecode(path), "path")
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
        _checked_name(pointer, "pointer")
        # The document with the value must stay within the command line's limit.
        budget = _codesim.max_json_file_bytes - _utf8_bytes(self._text)
        text = json_text(value, self.file, pointer if pointer.startswith("/") else "", budget)
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
        return _codesim.validate(self._text, self.file, checked_arithmetic(arithmetic))

    def resolved(self) -> dict[str, Any]:
        """The document with every default filled in (``codesim validate --resolved``)."""
        return json.loads(_codesim.resolved(self._text, self.file))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self.document == other.document

    def __repr__(self) -> str:
        name = self.document.get("name", "")
        return f"codesim.Scenario({name or self.file!r})"


def checked_arithmetic(arithmetic: Any) -> str:
    """The `arithmetic` option given: a str (its value is checked by the command line's code)."""
    if not isinstance(arithmetic, str):
        raise TypeError(f"arithmetic must be a str (auto, portable, avx2_fma or avx512), not "
                        f"{type(arithmetic).__name__}")
    return _checked_name(arithmetic, "arithmetic")


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
