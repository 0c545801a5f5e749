"""The map of a MAP.json of `codesim advise --map` (used by `codesim plot`): which family of
strategies pays in each cell of a grid over one or two scenario parameters. The document is
checked whole (advice_figures.Checker) before matplotlib is loaded."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import common
from advice_figures import Checker, Draw, shown

# The columns of MAP.json's cells table that the map reads.
MAP_COLUMNS = ("values", "label", "family", "scheme", "checkpoint")
# One colour per family whatever families a map holds, light enough for black text on it.
FAMILY_COLOURS = {"uncoded": "#cfcfcf", "checkpointing": "#9ecae1", "replication": "#fdae6b",
                  "coding": "#a1d99b", "abft": "#bcbddc", "coding_abft": "#80cdc1"}
# Families codesim may add later get these, in the order the document lists them.
EXTRA_COLOURS = ("#f7b6d2", "#dbdb8d", "#c49c94", "#9edae5", "#ff9896")
SCHEME_SHORT = {"codenet_grid": "codenet", "abft_codenet": "abft-cn", "replication": "repl"}


# --------------------------------------------------------------------------------------------
# MAP.json: where each family pays


@dataclass
class MapAxis:
    """One swept scenario parameter of a map: its values in the order given."""

    pointer: str
    values: list[float]
    log: bool


@dataclass
class AdviceMap:
    """A checked MAP.json: `cells` maps the index of a cell's value on each axis to its
    (family, short text)."""

    file: Path
    name: str
    objective: str
    unit: str
    axes: list[MapAxis]
    families: list[str]
    cells: dict[tuple[int, ...], tuple[str, str]]


def _map_axis(check: Checker, a: int, raw: Any) -> MapAxis:
    """Axis `a` of the map, checked: finite distinct values, positive on a log scale."""
    pointer = f"/axes/{a}"
    if not isinstance(raw, dict):
        raise check.error(pointer, f"is {shown(raw)}", "an object with pointer, values, scale")
    name = check.field(raw, pointer, "pointer", lambda v: isinstance(v, str) and v.startswith(
        "/"), "a JSON pointer into the scenario")
    scale = check.field(raw, pointer, "scale", lambda v: v in ("log", "linear"),
                        '"log" or "linear"')
    values = check.field(raw, pointer, "values", lambda v: isinstance(v, list) and v,
                         "a non-empty list of numbers")
    for i, value in enumerate(values):
        where = f"{pointer}/values/{i}"
        if not common.is_number(value) or not math.isfinite(value):
            raise check.error(where, f"is {shown(value)}", "a finite number")
        if scale == "log" and value <= 0:
            raise check.error(where, f"is {shown(value)}", "a positive number on a log axis")
        if value in values[:i]:
            raise check.error(where, f"repeats {shown(value)}", "distinct values")
    return MapAxis(name, [float(v) for v in values], scale == "log")


def _map_cells(check: Checker, document: dict, axes: list[MapAxis],
               families: list[str]) -> dict[tuple[int, ...], tuple[str, str]]:
    """The cells table, checked: each row on axis values, of a listed family, once."""
    index, rows = check.table(document, "cells", MAP_COLUMNS)
    positions = [{v: i for i, v in enumerate(axis.values)} for axis in axes]
    cells: dict[tuple[int, ...], tuple[str, str]] = {}
    first_row: dict[tuple[int, ...], int] = {}
    for r, row in enumerate(rows):
        def value(column: str, ok: Callable[[Any], bool], expected: str) -> Any:
            return check.cell("cells", r, row, index, column, ok, expected)

        values = value("values", lambda v: isinstance(v, list) and len(v) == len(axes),
                       f"a list of {len(axes)} values, one per axis")
        key = []
        for a, v in enumerate(values):
            if not common.is_number(v) or v not in positions[a]:
                raise check.error(f"/cells/rows/{r}/{index['values']}/{a}", f"is {shown(v)}",
                                  f"one of the values of /axes/{a}")
            key.append(positions[a][v])
        family = value("family", lambda v: v in families, f"one of {', '.join(families)}")
        label, scheme, checkpoint = (value(c, lambda v: isinstance(v, str), "a string")
                                     for c in ("label", "scheme", "checkpoint"))
        if tuple(key) in cells:
            raise check.error(f"/cells/rows/{r}", f"repeats the cell of /cells/rows/"
                              f"{first_row[tuple(key)]}", "one row per cell")
        first_row[tuple(key)] = r
        cells[tuple(key)] = (family, short_strategy(label, scheme, checkpoint))
    return cells


def load_map(file: Path, document: dict) -> AdviceMap:
    """The checked MAP.json `document` read from `file`. Raises InputError at the pointer of
    the first thing wrong."""
    check = Checker(file)
    name, objective, unit = check.header(document)
    raw_axes = check.field(document, "", "axes", lambda v: isinstance(v, list),
                           "a list of 1 or 2 axes")
    if not 1 <= len(raw_axes) <= 2:
        raise check.error("/axes", f"has {len(raw_axes)} axes", "1 or 2 axes")
    axes = [_map_axis(check, a, raw) for a, raw in enumerate(raw_axes)]
    families = check.field(document, "", "families", lambda v: isinstance(v, list) and v and all(
        isinstance(f, str) for f in v) and len(set(v)) == len(v), "a list of distinct names")
    return AdviceMap(file, name, objective, unit, axes, families,
                     _map_cells(check, document, axes, families))


def short_strategy(label: str, scheme: str, checkpoint: str) -> str:
    """A cell's few words from a configuration label ('abft m=2 n=4 | none | decentralized' ->
    'abft 2x4'): the scheme shortened, m x n, the grid, copies, k and nodes (P); the
    checkpoint policy of the label ('daly x4') on a second line unless it is none."""
    parts = [part.strip() for part in label.split("|")]
    fields = dict(t.split("=", 1) for t in parts[0].split()[1:] if "=" in t)
    words = [SCHEME_SHORT.get(scheme, scheme)]
    for first, second, text in (("m", "n", "{}x{}"), ("grid_rows", "grid_cols", "{}x{}")):
        if first in fields and second in fields:
            words.append(text.format(fields.pop(first), fields.pop(second)))
    for key, text in (("copies", "x{}"), ("k", "k{}"), ("nodes", "P{}")):
        if key in fields:
            words.append(text.format(fields.pop(key)))
    if fields.get("orientation") == "default":
        del fields["orientation"]
    words += fields.values()
    if checkpoint == "none":
        return " ".join(words)
    return " ".join(words) + "\n" + (parts[1] if len(parts) > 1 and parts[1] else checkpoint)


def cell_edges(values: Sequence[float], log: bool) -> list[float]:
    """Edges of the cells around the sorted `values`, so that the cells tile the axis: halfway
    between neighbours (the geometric mean on a log axis), the outer edges half a step out (a
    lone value gets a factor sqrt(10) on a log axis, half its size on a linear one)."""
    values = sorted(values)
    if log:
        return [math.exp(e) for e in cell_edges([math.log(v) for v in values], False)] \
            if len(values) > 1 else [values[0] / math.sqrt(10), values[0] * math.sqrt(10)]
    if len(values) == 1:
        half = 0.5 * abs(values[0]) or 0.5
        return [values[0] - half, values[0] + half]
    middles = [(a + b) / 2 for a, b in zip(values, values[1:])]
    return [values[0] - (middles[0] - values[0])] + middles + [
        values[-1] + (values[-1] - middles[-1])]


def family_colours(families: Sequence[str]) -> dict[str, str]:
    """The fixed colour of each family; families without one take EXTRA_COLOURS in order."""
    extra = iter(EXTRA_COLOURS * (1 + len(families) // len(EXTRA_COLOURS)))
    return {f: FAMILY_COLOURS[f] if f in FAMILY_COLOURS else next(extra) for f in families}


def _set_map_axis(ax: Any, axis: MapAxis, which: str, edges: list[float],
                  rotate: bool = False) -> None:
    """Scale, limits at the outer edges and one tick per cell value, labelled with it (slanted
    with `rotate`, where the cells are too narrow for the labels)."""
    from matplotlib.ticker import NullLocator

    getattr(ax, f"set_{which}scale")("log" if axis.log else "linear")
    getattr(ax, f"set_{which}lim")(edges[0], edges[-1])
    values = sorted(axis.values)
    slant = {"rotation": 30, "ha": "right"} if rotate else {}
    getattr(ax, f"set_{which}ticks")(values, [common.compact_number(v) for v in values],
                                     fontsize=8, **slant)
    getattr(ax, f"{which}axis").set_minor_locator(NullLocator())
    getattr(ax, f"set_{which}label")(f"{common.quantity_label(axis.pointer)}\n{axis.pointer}",
                                     fontsize=8)


def _positions(values: Sequence[float]) -> dict[int, int]:
    """Where each value (by its index) sits on the axis, in increasing order."""
    return {i: at for at, i in enumerate(sorted(range(len(values)), key=lambda i: values[i]))}


def _centre(low: float, high: float, log: bool) -> float:
    return math.sqrt(low * high) if log else (low + high) / 2


def draw_map(advice_map: AdviceMap, output: Path) -> None:
    """Writes the map of `advice_map` to `output`: axes[0] on x, axes[1] (if any) on y, each
    cell in its family's colour with the scheme in a few words, a legend of the families."""
    common.pyplot()  # first: without matplotlib, the install hint and exit 1, not a traceback
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    axes, families = advice_map.axes, advice_map.families
    columns, rows = len(axes[0].values), len(axes[1].values) if len(axes) > 1 else 1
    width_in = min(18.0, max(6.4, 3.4 + 1.0 * columns))
    height_in = min(14.0, max(3.0, 2.1 + 0.55 * rows))
    cell_width_in, cell_height_in = (width_in - 3.4) / columns, (height_in - 2.1) / rows
    fig, ax = common.new_figure(width_in, height_in)
    x_edges = cell_edges(axes[0].values, axes[0].log)
    y_edges = cell_edges(axes[1].values, axes[1].log) if len(axes) > 1 else [0.0, 1.0]
    y_log = len(axes) > 1 and axes[1].log
    x_at = _positions(axes[0].values)
    y_at = _positions(axes[1].values) if len(axes) > 1 else {0: 0}
    codes = common.numpy().ma.masked_all((rows, columns))  # a missing cell stays blank
    for key, (family, _) in advice_map.cells.items():
        codes[y_at[key[1] if len(key) > 1 else 0], x_at[key[0]]] = families.index(family)
    _set_map_axis(ax, axes[0], "x", x_edges, rotate=cell_width_in < 1.0)
    if len(axes) > 1:
        _set_map_axis(ax, axes[1], "y", y_edges)
    else:
        ax.set_ylim(0.0, 1.0)
        ax.set_yticks([])
    colours = family_colours(families)
    ax.pcolormesh(x_edges, y_edges, codes, edgecolors="white", linewidth=1.0,
                  cmap=ListedColormap([colours[f] for f in families]),
                  vmin=-0.5, vmax=len(families) - 0.5)
    # Text only where it fits: about 15 characters a line at 6.5 pt need 0.8 in.
    if cell_width_in >= 0.8 and cell_height_in >= 0.3:
        for key, (_, text) in advice_map.cells.items():
            i, j = x_at[key[0]], y_at[key[1] if len(key) > 1 else 0]
            ax.text(_centre(x_edges[i], x_edges[i + 1], axes[0].log),
                    _centre(y_edges[j], y_edges[j + 1], y_log), text,
                    ha="center", va="center", fontsize=6.5, linespacing=1.1)
    present = [f for f in families if any(f == family for family, _ in advice_map.cells.values())]
    ax.legend(handles=[Patch(facecolor=colours[f], label=f) for f in present], fontsize=8,
              title="family", title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              borderaxespad=0.0)
    unit = f" ({advice_map.unit})" if advice_map.unit else ""
    ax.set_title(f"{advice_map.name}: the family codesim advise recommends in each cell\n"
                 f"objective {advice_map.objective}{unit}", fontsize=9)
    common.save_figure(fig, output)


def figures(file: Path, document: dict) -> list[tuple[str, Draw]]:
    """("map", draw into an output path) for an advice_map `document`, checked whole first."""
    advice_map = load_map(file, document)
    return [("map", lambda output: draw_map(advice_map, output))]
