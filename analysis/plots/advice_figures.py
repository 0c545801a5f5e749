"""Figures of `codesim advise` (used by `codesim plot`): the Pareto figure of an ADVICE.json
(time against energy per useful iteration, coloured by storage overhead, the recommendation
starred) and the map of a MAP.json (which family of strategies pays in each cell of a grid over
one or two scenario parameters). Both documents are checked whole before matplotlib is loaded."""

from __future__ import annotations

import json
import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import common

KINDS = ("advice", "advice_map")
OBJECTIVES = ("time", "energy", "time_to_accuracy")
STAGES = ("excluded", "bound", "simulation", "confirmation")
SIMULATED_STAGES = ("simulation", "confirmation")  # a simulated cost (confirmation: and trained)
# The columns of ADVICE.json's configurations table that the Pareto figure reads.
ADVICE_COLUMNS = ("label", "baseline", "nodes", "storage_fraction_per_node", "estimate_time_s",
                  "estimate_energy_J", "silent_run_probability", "stage", "rank", "simulated")
# codesim advise calls a configuration unsafe from this probability of a silent corruption in
# the run (app/advise/strategy_bounds.hpp, kUnsafeSilentProbability).
UNSAFE_SILENT_PROBABILITY = 0.01
# Bound-stage estimates reach 1e260 s: the axes stop this far beyond the simulated values.
VIEW_FACTOR = 10.0

Draw = Callable[[Path], None]


# --------------------------------------------------------------------------------------------
# Reading and checking


def is_advice(document: Any) -> bool:
    """True for a document of codesim advise (top-level "kind" advice or advice_map)."""
    return isinstance(document, dict) and document.get("kind") in KINDS


def shown(value: Any) -> str:
    """A value as an error message quotes it: compact JSON, cut to 40 characters."""
    text = json.dumps(value, separators=(",", ":"))
    return text if len(text) <= 40 else text[:37] + "..."


def _number_or_null(value: Any) -> bool:
    return value is None or common.is_number(value)


def _integer_or_null(value: Any) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def _finite(value: float | None) -> bool:
    return value is not None and math.isfinite(value)


class Checker:
    """Raises InputError at a JSON pointer of one document: 'POINTER: what (expected ...)'."""

    def __init__(self, file: Path) -> None:
        self.file = file

    def error(self, pointer: str, what: str, expected: str) -> common.InputError:
        return common.InputError(self.file, f"{pointer}: {what} (expected {expected})")

    def field(self, parent: dict, pointer: str, key: str, ok: Callable[[Any], bool],
              expected: str, optional: bool = False) -> Any:
        """parent[key] when ok(it); None when absent and `optional`, else InputError."""
        where = f"{pointer}/{key}"
        if key not in parent:
            if optional:
                return None
            raise self.error(where, "missing", expected)
        if not ok(parent[key]):
            raise self.error(where, f"is {shown(parent[key])}", expected)
        return parent[key]

    def header(self, document: dict) -> tuple[str, str, str]:
        """(scenario name, objective, unit) after checking schema_version and scenario; the
        file stem names a scenario without a name."""
        version = document.get("schema_version")
        if version is not None and version != 1:
            raise self.error("/schema_version", f"is {shown(version)}", "1")
        scenario = self.field(document, "", "scenario", lambda v: isinstance(v, dict),
                              "the resolved scenario object")
        name = self.field(scenario, "/scenario", "name", lambda v: isinstance(v, str),
                          "a string", optional=True) or self.file.stem
        objective = self.field(document, "", "objective", lambda v: v in OBJECTIVES,
                               '"time" or "energy"')
        unit = self.field(document, "", "unit", lambda v: isinstance(v, str), "a string",
                          optional=True)
        return name, objective, unit or ""

    def table(self, document: dict, key: str,
              needed: Sequence[str]) -> tuple[dict[str, int], list[list]]:
        """(column index by name, rows) of document[key] = {columns, rows}, each row one value
        per column and every `needed` column present."""
        table = self.field(document, "", key, lambda v: isinstance(v, dict),
                           "an object with columns and rows")
        columns = self.field(table, f"/{key}", "columns", lambda v: isinstance(v, list) and all(
            isinstance(c, str) for c in v), "a list of column names")
        rows = self.field(table, f"/{key}", "rows", lambda v: isinstance(v, list),
                          "a list of rows")
        missing = [c for c in needed if c not in columns]
        if missing:
            raise self.error(f"/{key}/columns", f"has no column {', '.join(missing)}",
                             f"the columns {', '.join(needed)}")
        for r, row in enumerate(rows):
            if not isinstance(row, list):
                raise self.error(f"/{key}/rows/{r}", f"is {shown(row)}",
                                 f"a list of {len(columns)} values, one per column")
            if len(row) != len(columns):
                raise self.error(f"/{key}/rows/{r}",
                                 f"has {len(row)} values for {len(columns)} columns",
                                 "one per column")
        return {c: i for i, c in enumerate(columns)}, rows

    def cell(self, key: str, r: int, row: list, index: dict[str, int], column: str,
             ok: Callable[[Any], bool], expected: str) -> Any:
        """row[column] of table `key` when ok(it), else InputError at its pointer."""
        value = row[index[column]]
        if not ok(value):
            raise self.error(f"/{key}/rows/{r}/{index[column]}", f"{column} is {shown(value)}",
                             expected)
        return value


# --------------------------------------------------------------------------------------------
# ADVICE.json: the Pareto figure


@dataclass
class Configuration:
    """One row of ADVICE.json's configurations, as the Pareto figure draws it. time_s and
    energy_J are per useful iteration: simulated in the simulation stage, else the estimate;
    None when infinite, excluded or absent."""

    label: str
    stage: str
    rank: int | None
    baseline: bool
    storage_overhead: float | None  # nodes * storage_fraction_per_node: 1 = the weights once
    time_s: float | None
    energy_J: float | None
    silent: bool  # corrupted silently in simulation, or likely to by the closed forms
    completed: bool  # no simulated replica was left incomplete


@dataclass
class Advice:
    """A checked ADVICE.json; `estimated` names the quantities its simulated configurations
    lacked (advice written before simulated time_s and energy_J), drawn from the estimates."""

    file: Path
    name: str
    objective: str
    configurations: list[Configuration]
    estimated: list[str]


def _simulated_value(check: Checker, pointer: str, simulated: dict, key: str) -> float | None:
    value = check.field(simulated, pointer, key, _number_or_null, "a number or null",
                        optional=True)
    return None if value is None else float(value)


def _configuration(check: Checker, r: int, row: list, index: dict[str, int], objective: str,
                   estimated: set[str]) -> Configuration:
    """Row r of the configurations table, checked."""
    def value(column: str, ok: Callable[[Any], bool], expected: str) -> Any:
        return check.cell("configurations", r, row, index, column, ok, expected)

    label = value("label", lambda v: isinstance(v, str), "a string")
    baseline = value("baseline", lambda v: isinstance(v, bool), "true or false")
    stage = value("stage", lambda v: v in STAGES, ", ".join(STAGES[:-1]) + " or " + STAGES[-1])
    rank = value("rank", _integer_or_null, "an integer or null")
    nodes, fraction, time_s, energy_J, silent_probability = (
        value(c, _number_or_null, "a number or null")
        for c in ("nodes", "storage_fraction_per_node", "estimate_time_s", "estimate_energy_J",
                  "silent_run_probability"))
    silent = silent_probability is not None and silent_probability >= UNSAFE_SILENT_PROBABILITY
    # Stage 3 (--confirm) demotes one that lost accuracy or corrupted in numeric training.
    confirmed = row[index["confirmed"]] if "confirmed" in index else None
    silent |= isinstance(confirmed, dict) and confirmed.get("demoted") is True
    completed = True
    if stage in SIMULATED_STAGES:
        simulated = value("simulated", lambda v: isinstance(v, dict),
                          "an object in the simulation stage")
        pointer = f"/configurations/rows/{r}/{index['simulated']}"
        silent_corruptions, incomplete = (
            check.field(simulated, pointer, key, common.is_number, "a count", optional=True)
            for key in ("silent_corruptions", "incomplete"))
        silent |= (silent_corruptions or 0) > 0
        completed = not incomplete
        mean = _simulated_value(check, pointer, simulated, "mean")
        # Older advice has only the mean of the objective: the other quantity is the estimate.
        cost = {"time": time_s, "energy": energy_J}
        for quantity, key in (("time", "time_s"), ("energy", "energy_J")):
            if key in simulated:
                cost[quantity] = _simulated_value(check, pointer, simulated, key)
            elif quantity == objective:
                cost[quantity] = mean
            else:
                estimated.add(quantity)
        time_s, energy_J = cost["time"], cost["energy"]
    storage = None if nodes is None or fraction is None else float(nodes) * float(fraction)
    return Configuration(label, stage, rank, baseline, storage,
                         None if time_s is None else float(time_s),
                         None if energy_J is None else float(energy_J), silent, completed)


def load_advice(file: Path, document: dict) -> Advice:
    """The checked ADVICE.json `document` read from `file`. Raises InputError at the pointer
    of the first thing wrong."""
    check = Checker(file)
    name, objective, _ = check.header(document)
    index, rows = check.table(document, "configurations", ADVICE_COLUMNS)
    estimated: set[str] = set()
    configurations = [_configuration(check, r, row, index, objective, estimated)
                      for r, row in enumerate(rows)]
    if not any(_finite(c.time_s) and _finite(c.energy_J) for c in configurations):
        raise check.error("/configurations/rows", "no configuration has a finite time and "
                          "energy", "a bound or simulated configuration to draw")
    return Advice(file, name, objective, configurations, sorted(estimated))


def pareto_front(points: Sequence[tuple[float, float]]) -> list[int]:
    """Indices of the non-dominated points (no other point is as low in both coordinates and
    lower in one), by increasing first coordinate; equal points are all kept."""
    order = sorted(range(len(points)), key=lambda i: points[i])
    front: list[int] = []
    for i in order:
        if not front or points[i][1] < points[front[-1]][1] or points[i] == points[front[-1]]:
            front.append(i)
    return front


def front_configurations(configurations: Sequence[Configuration]) -> list[Configuration]:
    """The Pareto front in time and energy among the simulated configurations that completed
    every replica without a silent corruption (a fast wrong answer is no trade-off)."""
    eligible = [c for c in configurations if c.stage in SIMULATED_STAGES and not c.silent
                and c.completed and _finite(c.time_s) and _finite(c.energy_J)]
    return [eligible[i] for i in pareto_front([(c.time_s, c.energy_J) for c in eligible])]


def view_range(reference: Sequence[float], others: Sequence[float]) -> tuple[float, float]:
    """(low, high) data range of an axis: from the least value to VIEW_FACTOR times the largest
    reference value (the simulated configurations; without any, the median of the others),
    so that far-off estimates do not squash the configurations that were simulated."""
    values = sorted(list(reference) + list(others))
    anchor = max(reference) if reference else sorted(others)[len(others) // 2]
    high = min(values[-1], anchor * VIEW_FACTOR if anchor > 0 else values[-1])
    return values[0], max(high, anchor)


def _scale_axis(ax: Any, which: str, low: float, high: float) -> bool:
    """Log scale when the values are positive and span a decade or more (over two decades or
    less, some of the 2..9 ticks labelled too); limits with a margin. Returns whether the axis
    is logarithmic."""
    from matplotlib.ticker import LogFormatter

    log = low > 0 and high >= 10 * low
    if log:
        limits = (low / 1.3, high * 1.3)
    else:
        margin = 0.05 * (high - low) or 0.05 * abs(high) or 1.0
        limits = (low - margin, high + margin)
    getattr(ax, f"set_{which}scale")("log" if log else "linear")
    getattr(ax, f"set_{which}lim")(*limits)
    axis = getattr(ax, f"{which}axis")
    if log and high < 100 * low:
        for set_formatter in (axis.set_major_formatter, axis.set_minor_formatter):
            set_formatter(LogFormatter(labelOnlyBase=False, minor_thresholds=(2, 0.5)))
        axis.set_tick_params(which="minor", labelsize=7)
    return log


def _draw_bound(ax: Any, bound: Sequence[Configuration], inside: Callable[[Configuration], bool],
                total: int) -> None:
    """Bound-stage configurations at their estimate, faint grey: dots, 'x' when they corrupt
    silently (less faint when there are few). One scatter call each (an advice has tens of
    thousands of them), named in the legend by an empty scatter that is not faint."""
    size, alpha = (3, 0.25) if len(bound) > 1000 else (10, 0.5)
    for silent, marker, what in ((False, ".", "stopped by its bounds (estimate)"),
                                 (True, "x", "stopped: corrupts silently (estimate)")):
        chosen = [c for c in bound if c.silent == silent and inside(c)]
        hidden = sum(c.silent == silent and not inside(c) for c in bound)
        if chosen:
            ax.scatter([c.time_s for c in chosen], [c.energy_J for c in chosen],
                       s=size * (1.3 if silent else 1), marker=marker, color="0.55", alpha=alpha,
                       linewidths=0.5, rasterized=True)
        if chosen or hidden:
            beyond = f", {hidden} more beyond the axes" if hidden else ""
            ax.scatter([], [], s=16, marker=marker, color="0.55",
                       label=f"{what}: {len(chosen)} of {total}{beyond}")


def _storage_norm(values: Sequence[float]) -> Any:
    """Colour scale of storage overheads: logarithmic over a decade or more."""
    import matplotlib.colors as colors

    low, high = (min(values), max(values)) if values else (1.0, 1.0)
    if low > 0 and high >= 10 * low:
        return colors.LogNorm(low, high)
    return colors.Normalize(low - 0.5, high + 0.5) if low == high else colors.Normalize(low, high)


def _draw_simulated(ax: Any, simulated: Sequence[Configuration], norm: Any) -> Any:
    """Simulated configurations coloured by storage overhead, 'x' for silent corruptions.
    Returns the colour mapping for the colorbar."""
    cmap = common.pyplot().get_cmap("viridis").with_extremes(bad="0.7")
    mappable = None
    for silent, marker, what in ((False, "o", "simulated (colour: storage overhead)"),
                                 (True, "x", "simulated: corrupted silently")):
        chosen = [c for c in simulated if c.silent == silent]
        if not chosen:
            continue
        storage = [math.nan if c.storage_overhead is None else c.storage_overhead for c in chosen]
        style = {"linewidths": 1.2} if silent else {"linewidths": 0.4, "edgecolors": "0.2"}
        mappable = ax.scatter([c.time_s for c in chosen], [c.energy_J for c in chosen], s=22,
                              marker=marker, c=storage, cmap=cmap, norm=norm, zorder=3, **style)
        ax.scatter([], [], s=22, marker=marker, color=cmap(0.5), label=f"{what}: {len(chosen)}",
                   **style)
    return mappable


def _legend_label(prefix: str, label: str) -> str:
    return textwrap.shorten(f"{prefix}: {label}", 90, placeholder=" ...")


def draw_pareto(advice: Advice, output: Path) -> None:
    """Writes the Pareto figure of `advice` to `output`: time against energy per useful
    iteration, simulated configurations coloured by storage overhead with the Pareto front as a
    step line, bound-stage ones faint at their estimate, the baseline and the recommendation
    marked."""
    drawn = [c for c in advice.configurations if _finite(c.time_s) and _finite(c.energy_J)]
    simulated = [c for c in drawn if c.stage in SIMULATED_STAGES]
    bound = [c for c in drawn if c.stage == "bound"]
    marked = [c for c in drawn if c.baseline or c.rank == 1]
    reference = simulated + marked
    x_range = view_range([c.time_s for c in reference], [c.time_s for c in bound])
    y_range = view_range([c.energy_J for c in reference], [c.energy_J for c in bound])

    def inside(c: Configuration) -> bool:
        return c.time_s <= x_range[1] and c.energy_J <= y_range[1]

    fig, ax = common.new_figure(7.6, 7.4)
    log_x = _scale_axis(ax, "x", *x_range)
    log_y = _scale_axis(ax, "y", *y_range)
    _draw_bound(ax, bound, inside, len(advice.configurations))
    mappable = _draw_simulated(ax, simulated, _storage_norm(
        [c.storage_overhead for c in simulated if c.storage_overhead is not None]))
    if mappable is not None:
        fig.colorbar(mappable, ax=ax, pad=0.02).set_label(
            "storage overhead (x the weights: replication x2 = 2)", fontsize=8)
    front = front_configurations(drawn)
    if front:
        # Above the star: the recommendation is often on the front.
        ax.plot([c.time_s for c in front], [c.energy_J for c in front], drawstyle="steps-post",
                color="crimson", linewidth=1.2, zorder=7, marker="o", markersize=7,
                markerfacecolor="none", markevery=1,
                label=f"Pareto front: {len(front)} (simulated, no silent corruption, completed)")
    for c in (c for c in marked if c.baseline):
        ax.scatter([c.time_s], [c.energy_J], s=90, marker="D", facecolors="none",
                   edgecolors="black", linewidths=1.4, zorder=5,
                   label=_legend_label("baseline", c.label))
    for c in (c for c in marked if c.rank == 1):
        ax.scatter([c.time_s], [c.energy_J], s=320, marker="*", color="gold",
                   edgecolors="black", linewidths=0.8, zorder=6,
                   label=_legend_label("recommended", c.label))
    # Advice written before simulated time_s and energy_J: say which axis is an estimate.
    estimate = {q: ", estimates: this advice has no simulated " + q for q in advice.estimated}
    ax.set_xlabel(f"time per useful iteration (s{estimate.get('time', '')})")
    ax.set_ylabel(f"energy per useful iteration (J{estimate.get('energy', '')})")
    common.finish_figure(
        fig, ax, output, f"{advice.name}: {len(advice.configurations)} configurations of "
        f"codesim advise, objective {advice.objective}", log_grid=log_x or log_y,
        legend={"loc": "upper center", "bbox_to_anchor": (0.5, -0.1), "frameon": False})


def figures(file: Path, document: dict) -> list[tuple[str, Draw]]:
    """(figure name, draw into an output path) for an advice `document`, checked whole first:
    bad input is reported before anything is drawn."""
    advice = load_advice(file, document)
    return [("pareto", lambda output: draw_pareto(advice, output))]
