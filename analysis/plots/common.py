"""Shared code of the plot scripts: loading and checking codesim results JSON, labels, statistics
(Student-t intervals, mean curves over replicas) and deterministic PNG output."""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

EXIT_BAD_INPUT = 2
EXIT_ENVIRONMENT = 1
MISSING_MATPLOTLIB = (
    "error: matplotlib is not installed (expected: apt-get install python3-matplotlib)"
)

# Two-sided 95% Student-t quantiles t(0.975, dof) for dof = 1..30; larger dof use an expansion.
_T95_TABLE = (
    12.706204736174707, 4.302652729749464, 3.182446305284263, 2.7764451051977934,
    2.570581835636314, 2.446911851144969, 2.3646242515927026, 2.306004135204166,
    2.2621571628540993, 2.2281388519649385, 2.2009851600916384, 2.1788128296672284,
    2.1603686564627926, 2.1447866879178044, 2.131449545559774, 2.1199052992212533,
    2.1098155778333156, 2.100922040241036, 2.093024054408307, 2.0859634472658626,
    2.0796138447276835, 2.073873067904015, 2.0686576104190406, 2.0638985616280205,
    2.059538552753294, 2.055529438642871, 2.0518305164802833, 2.048407141795244,
    2.045229642132703, 2.0422724563012373,
)
_Z975 = 1.959963984540054

# Unit suffixes of metric and parameter names, longest first, and how axis labels show them.
_UNIT_SUFFIXES = (
    ("_flops_per_s", "FLOP/s"),
    ("_J_per_B", "J/B"),
    ("_per_s", "1/s"),
    ("_Bps", "B/s"),
    ("_J", "J"),
    ("_s", "s"),
)


class InputError(Exception):
    """Malformed or unusable input; reported as one line 'error: FILE: message', exit code 2."""

    def __init__(self, file: str | Path, message: str) -> None:
        super().__init__(f"error: {file}: {message}")


# --------------------------------------------------------------------------------------------
# Statistics


def student_t95(dof: int) -> float:
    """Two-sided 95% Student-t quantile t(0.975, dof) for dof >= 1 (table, then a
    Cornish-Fisher expansion accurate to about 1e-6 beyond dof 30)."""
    if dof < 1:
        raise ValueError(f"student_t95 needs dof >= 1, got {dof}")
    if dof <= len(_T95_TABLE):
        return _T95_TABLE[dof - 1]
    z, v = _Z975, float(dof)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
        + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * v**4)
    )


@dataclass
class Curve:
    """One replica's series: x strictly increasing, y finite, both numpy arrays."""

    x: Any
    y: Any


def make_curve(xs: Sequence[float], ys: Sequence[float]) -> Curve:
    """Curve from rows in recording order: drops rows with a missing value, sorts by x and keeps
    the last recorded y for a repeated x (an iteration redone after a rollback replaces the
    rolled-back one)."""
    np = numpy()
    last: dict[float, float] = {}
    for x, y in zip(xs, ys):
        if x is None or y is None or not math.isfinite(x) or not math.isfinite(y):
            continue
        last[float(x)] = float(y)
    keys = sorted(last)
    return Curve(np.array(keys, dtype=float), np.array([last[k] for k in keys], dtype=float))


def sample_curve(curve: Curve, grid: Any, step: bool) -> Any:
    """Values of `curve` at `grid` (inside its x range): linear interpolation, or with `step`
    the last recorded value at or before each grid x."""
    np = numpy()
    if step:
        index = np.searchsorted(curve.x, grid, side="right") - 1
        return curve.y[np.clip(index, 0, len(curve.y) - 1)]
    return np.interp(grid, curve.x, curve.y)


def mean_band(curves: Sequence[Curve], step: bool = False) -> tuple[Any, Any, Any]:
    """Mean over replicas and the 95% Student-t half-width on a common grid: every recorded x of
    any replica that lies where all replicas have data (from the latest first x to the earliest
    last x). One curve gives itself and a zero half-width. Returns (grid, mean, half_width);
    the grid is empty when the replicas' ranges do not overlap."""
    np = numpy()
    curves = [c for c in curves if len(c.x) > 0]
    if not curves:
        empty = np.array([], dtype=float)
        return empty, empty, empty
    if len(curves) == 1:
        return curves[0].x, curves[0].y, np.zeros_like(curves[0].y)
    low = max(c.x[0] for c in curves)
    high = min(c.x[-1] for c in curves)
    grid = np.unique(np.concatenate([c.x for c in curves]))
    grid = grid[(grid >= low) & (grid <= high)]
    values = np.vstack([sample_curve(c, grid, step) for c in curves])
    n = len(curves)
    mean = values.mean(axis=0)
    half_width = student_t95(n - 1) * values.std(axis=0, ddof=1) / math.sqrt(n)
    return grid, mean, half_width


# --------------------------------------------------------------------------------------------
# Results documents


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclass
class Point:
    """One sweep point: `params` maps JSON pointers to values; `index` is its position."""

    index: int
    params: dict[str, Any]
    label: str | None
    replicas: list[dict[str, Any]]
    aggregate: dict[str, dict[str, Any]]

    def mean(self, metric: str) -> float | None:
        """Aggregate mean of `metric`, None when absent or null."""
        entry = self.aggregate.get(metric)
        value = entry.get("mean") if entry else None
        return float(value) if _is_number(value) else None

    def ci95(self, metric: str) -> float | None:
        """Aggregate 95% half-width of `metric`, None when absent or null."""
        entry = self.aggregate.get(metric)
        value = entry.get("ci95") if entry else None
        return float(value) if _is_number(value) else None

    def count(self, metric: str) -> int | None:
        """Number of replicas behind the aggregate of `metric`, None when absent."""
        entry = self.aggregate.get(metric)
        value = entry.get("n") if entry else None
        return int(value) if _is_number(value) else None


@dataclass
class Results:
    """A checked results document; `file` is the path as given, for error messages."""

    file: Path
    scenario: dict[str, Any]
    points: list[Point]

    @property
    def name(self) -> str:
        """Scenario name, else the file stem."""
        name = self.scenario.get("name")
        return name if isinstance(name, str) and name else self.file.stem

    @property
    def workload_kind(self) -> str | None:
        """scenario.workload.kind, None when absent."""
        workload = self.scenario.get("workload")
        kind = workload.get("kind") if isinstance(workload, dict) else None
        return kind if isinstance(kind, str) else None

    def error(self, message: str) -> InputError:
        """An InputError about this file."""
        return InputError(self.file, message)

    def label(self, point: Point) -> str:
        """Legend name of `point`: its label, else a summary of the params that vary between
        points (all its params when none vary), else the scenario name."""
        if point.label:
            return point.label
        keys = varying_params(self.points) or list(point.params)
        return params_summary(point.params, keys) or self.name

    def metrics(self) -> list[str]:
        """Aggregate metric names of all points in first-seen order."""
        names: dict[str, None] = {}
        for point in self.points:
            names.update(dict.fromkeys(point.aggregate))
        return list(names)

    def series(self, point: Point, replica: dict[str, Any], name: str) -> dict[str, list] | None:
        """Columns of series `name` of one replica as {column: values}, None when the replica
        has no such series. Raises InputError when the series is malformed."""
        where = f"points[{point.index}].replicas[{replica.get('replica', '?')}].{name}"
        table = replica.get(name)
        if table is None:
            return None
        if not isinstance(table, dict):
            raise self.error(f"{where}: expected an object with 'columns' and 'rows'")
        columns, rows = table.get("columns"), table.get("rows")
        if not isinstance(columns, list) or not all(isinstance(c, str) for c in columns):
            raise self.error(f"{where}.columns: expected a list of column names")
        if not isinstance(rows, list):
            raise self.error(f"{where}.rows: expected a list of rows")
        data: dict[str, list] = {c: [] for c in columns}
        for r, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != len(columns):
                raise self.error(
                    f"{where}.rows[{r}]: expected a list of {len(columns)} values (one per column)"
                )
            for column, value in zip(columns, row):
                if value is not None and not _is_number(value):
                    raise self.error(f"{where}.rows[{r}]: {column} is not a number or null")
                data[column].append(value)
        return data

    def require_columns(self, point: Point, name: str, data: dict[str, list], *cols: str) -> None:
        """Raises InputError when series `name` of `point` lacks one of `cols`."""
        missing = [c for c in cols if c not in data]
        if missing:
            raise self.error(
                f"points[{point.index}]: series {name} has no column {', '.join(missing)}"
                f" (columns: {', '.join(data)})"
            )


# The files this process read its figures from: save_figure never writes over one of them.
_inputs_read: list[Path] = []


def note_input(file: str | Path) -> None:
    """Records `file` as read: a figure named like it (the same file) is refused."""
    _inputs_read.append(Path(file))


def _refuse_inputs(output: Path) -> None:
    """Raises InputError when `output` is one of the files read (by os.path.samefile)."""
    for source in _inputs_read:
        try:
            same = output.exists() and os.path.samefile(output, source)
        except OSError:
            same = False
        if same:
            raise InputError(output, f"is {source}, which this figure is drawn from (expected -o "
                                     "naming another file)")


def read_json_document(file: str | Path) -> Any:
    """The parsed JSON of `file`, noted as an input (no figure may replace it). Raises InputError
    on a missing or unreadable file or invalid JSON."""
    path = Path(file)
    note_input(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(path, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(path, f"cannot read ({exc.__class__.__name__}: {exc})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            path, f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None


def load_results(file: str | Path) -> Results:
    """Reads and checks a results document. Raises InputError on a missing or unreadable file,
    invalid JSON or a wrong structure (no points, a point without params/replicas/aggregate)."""
    return results_from_document(Path(file), read_json_document(file))


def results_from_document(path: Path, document: Any) -> Results:
    """Checks the parsed results document of `path` (see load_results)."""
    if not isinstance(document, dict):
        raise InputError(path, "expected a results object at the top level")
    version = document.get("schema_version")
    if version is not None and version != 1:
        raise InputError(path, f"schema_version {version} is not supported (expected 1)")
    scenario = document.get("scenario", {})
    if not isinstance(scenario, dict):
        raise InputError(path, "scenario: expected an object")
    raw_points = document.get("points")
    if not isinstance(raw_points, list) or not raw_points:
        raise InputError(path, "points: expected a non-empty list of sweep points")
    return Results(path, scenario, [_load_point(path, i, p) for i, p in enumerate(raw_points)])


def _load_point(path: Path, index: int, raw: Any) -> Point:
    where = f"points[{index}]"
    if not isinstance(raw, dict):
        raise InputError(path, f"{where}: expected an object")
    params, replicas, aggregate = raw.get("params"), raw.get("replicas"), raw.get("aggregate")
    label = raw.get("label")
    if not isinstance(params, dict):
        raise InputError(path, f"{where}.params: expected an object")
    if label is not None and not isinstance(label, str):
        raise InputError(path, f"{where}.label: expected a string")
    if not isinstance(replicas, list) or not all(isinstance(r, dict) for r in replicas):
        raise InputError(path, f"{where}.replicas: expected a list of objects")
    if not isinstance(aggregate, dict):
        raise InputError(path, f"{where}.aggregate: expected an object")
    for metric, entry in aggregate.items():
        if not isinstance(entry, dict):
            raise InputError(
                path, f"{where}.aggregate.{metric}: expected an object with mean, ci95, n"
            )
        for key in ("mean", "stderr", "ci95", "n"):
            value = entry.get(key)
            if value is not None and not _is_number(value):
                raise InputError(path, f"{where}.aggregate.{metric}.{key}: not a number or null")
    return Point(index, params, label, replicas, aggregate)


# --------------------------------------------------------------------------------------------
# Labels and params


def pointer_name(pointer: str) -> str:
    """Last token of a JSON pointer, unescaped ('/cluster/crashes/mtbf_s' -> 'mtbf_s')."""
    token = pointer.rsplit("/", 1)[-1]
    return token.replace("~1", "/").replace("~0", "~")


def quantity_label(name: str) -> str:
    """Axis label of a metric or parameter name: underscores to spaces and the unit suffix in
    parentheses ('completion_time_s' -> 'completion time (s)', 'bandwidth_Bps' ->
    'bandwidth (B/s)'). Accepts a JSON pointer and uses its last token."""
    if name.startswith("/"):
        name = pointer_name(name)
    for suffix, unit in _UNIT_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return f"{name[: -len(suffix)].replace('_', ' ')} ({unit})"
    return name.replace("_", " ")


def format_value(value: Any) -> str:
    """Short text of a param value: numbers with up to 6 significant digits, strings as they are,
    anything else as compact JSON."""
    if _is_number(value):
        return f"{value:.6g}"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


LABEL_PARAM = "/label"  # a sweep axis that only names points (codesim copies it to "label")


def params_summary(params: dict[str, Any], keys: Sequence[str] | None = None) -> str:
    """Name of a set of param values: the /label param when `keys` include it, else
    'name=value, ...' over `keys` (default: all) of `params`, names from pointer tokens."""
    keys = list(params) if keys is None else keys
    if LABEL_PARAM in keys and LABEL_PARAM in params:
        return format_value(params[LABEL_PARAM])
    return ", ".join(f"{pointer_name(k)}={format_value(params[k])}" for k in keys if k in params)


def canonical(value: Any) -> str:
    """Comparable text of a JSON value (to tell param values apart)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def params_keys(points: Sequence[Point]) -> list[str]:
    """Params pointers of all points in first-seen order."""
    keys: dict[str, None] = {}
    for point in points:
        keys.update(dict.fromkeys(point.params))
    return list(keys)


def numeric_param(points: Sequence[Point]) -> str | None:
    """The first params pointer that every point has with a numeric value, None if none."""
    for key in params_keys(points):
        if all(key in p.params and _is_number(p.params[key]) for p in points):
            return key
    return None


def varying_params(points: Sequence[Point], exclude: Sequence[str] = ()) -> list[str]:
    """Params pointers (not in `exclude`) whose value differs between points."""
    return [
        key
        for key in params_keys(points)
        if key not in exclude and len({canonical(p.params.get(key)) for p in points}) > 1
    ]


def is_number(value: Any) -> bool:
    """True for JSON numbers (not booleans)."""
    return _is_number(value)


def compact_number(value: float) -> str:
    """A mean for a legend: up to 3 significant digits."""
    return f"{value:.3g}"


# --------------------------------------------------------------------------------------------
# Curves of replica series


def replica_curves(results: Results, point: Point, series: str, x_column: str,
                   y_column: str, x_scale: float = 1.0, optional_x: bool = False) -> list[Curve]:
    """One curve (x_column * x_scale, y_column) per replica of `point` that has `series`.
    Raises InputError when a series is malformed or lacks a column; with `optional_x`, a replica
    whose series lacks x_column is skipped instead (a column that older results do not have)."""
    curves = []
    for replica in point.replicas:
        data = results.series(point, replica, series)
        if data is None or (optional_x and x_column not in data):
            continue
        results.require_columns(point, series, data, x_column, y_column)
        xs = data[x_column]
        if x_scale != 1.0:
            xs = [None if x is None else x * x_scale for x in xs]
        curves.append(make_curve(xs, data[y_column]))
    return curves


def curves_by_point(results: Results, *args: Any) -> list[tuple[Point, list[Curve]]]:
    """(point, replica_curves(results, point, *args)) for the points with a curve, in order."""
    chosen = [(point, replica_curves(results, point, *args)) for point in results.points]
    return [(point, curves) for point, curves in chosen if curves]


def has_column(results: Results, series: str, column: str) -> bool:
    """True when some replica's `series` has `column` (accuracy_vs_time has energy_J only in
    results written since energy was recorded)."""
    tables = [r.get(series) for p in results.points for r in p.replicas]
    return any(isinstance(t, dict) and isinstance(t.get("columns"), list)
               and column in t["columns"] for t in tables)


def plot_mean_lines(results: Results, ax: Any, curves_by_point: Sequence[tuple[Point, list[Curve]]],
                    step: bool = False, labels: dict[int, str] | None = None,
                    show_replicas: bool = False) -> dict[int, Any]:
    """Draws, per point, the mean of its replicas' curves (mean_band) with a shaded 95% band
    when there are several; `labels` overrides legend entries by point index; `show_replicas`
    adds each replica's curve, faintly. Replicas without a common x range have no mean: they
    are drawn one by one, thin and dashed. Returns each point's line colour by point index (for
    markers drawn on the lines afterwards)."""
    drawstyle = "steps-post" if step else "default"
    colors: dict[int, Any] = {}
    for point, curves in curves_by_point:
        grid, mean, half_width = mean_band(curves, step)
        label = (labels or {}).get(point.index, results.label(point))
        if len(grid) == 0:
            color = None
            for curve in curves:
                (line,) = ax.plot(curve.x, curve.y, color=color, linestyle="--", linewidth=0.9,
                                  drawstyle=drawstyle, label=label if color is None else None)
                color = line.get_color()
            colors[point.index] = color
            continue
        (line,) = ax.plot(grid, mean, label=label, drawstyle=drawstyle, linewidth=1.6)
        colors[point.index] = line.get_color()
        if show_replicas:
            for curve in curves:
                ax.plot(curve.x, curve.y, color=line.get_color(), alpha=0.35, linewidth=0.7,
                        drawstyle=drawstyle)
        if len(curves) > 1:
            ax.fill_between(grid, mean - half_width, mean + half_width, color=line.get_color(),
                            alpha=0.2, linewidth=0, step="post" if step else None)
    return colors


def mean_lines_figure(results: Results, output: str | Path,
                      curves: Sequence[tuple[Point, list[Curve]]], xlabel: str, ylabel: str,
                      step: bool = False, show_replicas: bool = False,
                      labels: dict[int, str] | None = None,
                      decorate: Callable[[Any, dict[int, Any]], None] | None = None) -> None:
    """The figure of the mean-curve scripts (accuracy against time or energy): plot_mean_lines
    on one axes, then `decorate(ax, colours by point index)` for script-specific marks, axis
    labels, band_title and a legend, saved to `output`."""
    fig, ax = new_figure()
    colors = plot_mean_lines(results, ax, curves, step, labels=labels,
                             show_replicas=show_replicas)
    if decorate is not None:
        decorate(ax, colors)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    finish_figure(fig, ax, output, band_title(results, curves), legend={})


def band_title(results: Results, curves_by_point: Sequence[tuple[Point, list[Curve]]]) -> str:
    """Scenario name and, with several replicas, what the lines and bands are."""
    counts = [len(curves) for _, curves in curves_by_point]
    if max(counts, default=0) <= 1:
        return results.name
    return (f"{results.name}: mean of {replica_count_text(counts)}, 95% CI band"
            " (where all replicas have data)")


# --------------------------------------------------------------------------------------------
# Matplotlib and script plumbing

# Loaded on first use, after the input has been checked: bad input is reported quickly and the
# same way whether or not matplotlib is installed.
_pyplot = None


def _missing_matplotlib() -> None:
    print(MISSING_MATPLOTLIB, file=sys.stderr)
    sys.exit(EXIT_ENVIRONMENT)


def numpy() -> Any:
    """The numpy module (it comes with python3-matplotlib); exits 1 like pyplot() without it."""
    try:
        import numpy as np
    except ImportError:
        _missing_matplotlib()
    return np


def pyplot() -> Any:
    """matplotlib.pyplot on the non-interactive Agg backend with default style; prints the
    'matplotlib is not installed' error and exits 1 when matplotlib is missing."""
    global _pyplot
    if _pyplot is None:
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            _missing_matplotlib()
        matplotlib.rcdefaults()  # ignore any user matplotlibrc: same input, same figure
        matplotlib.use("Agg")
        _pyplot = plt
    return _pyplot


def new_figure(width_in: float = 6.4, height_in: float = 4.4) -> tuple[Any, Any]:
    """A figure with one axes."""
    fig, ax = pyplot().subplots(figsize=(width_in, height_in))
    return fig, ax


def save_figure(fig: Any, output: str | Path) -> Path:
    """Writes `fig` as PNG without time or version metadata (same input, same bytes), creating
    the parent directory, and closes it. The PNG goes to a new temporary file beside `output`,
    renamed into place once whole: a full disk leaves no empty or partial figure behind. An
    `output` that is a file the figure was drawn from (note_input) raises InputError."""
    path = Path(output)
    temporary = None
    try:
        _refuse_inputs(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.tight_layout()
        handle, name = tempfile.mkstemp(prefix="." + path.name[:200] + ".tmp-",
                                        dir=path.parent)
        temporary = Path(name)
        with os.fdopen(handle, "wb") as stream:
            fig.savefig(stream, format="png", dpi=120, metadata={"Software": None})
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
        temporary = None
    finally:
        pyplot().close(fig)
        if temporary is not None:
            temporary.unlink(missing_ok=True)
    return path


def finish_figure(fig: Any, ax: Any, output: str | Path, title: str, log_grid: bool = False,
                  legend: dict[str, Any] | None = None) -> None:
    """Titles the axes, draws the grid (minor lines too on a log axis) and the legend (`legend`
    holds its extra arguments; None draws none), then saves the figure."""
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3, which="both" if log_grid else "major")
    if legend is not None:
        ax.legend(fontsize=8, **legend)
    save_figure(fig, output)


def add_show_replicas_option(parser: argparse.ArgumentParser) -> None:
    """--show-replicas: the curve scripts' option to draw every replica faintly."""
    parser.add_argument("--show-replicas", action="store_true",
                        help="also draw every replica's curve, faintly")


def add_step_option(parser: argparse.ArgumentParser) -> None:
    """--step: the accuracy scripts' option to hold each evaluation until the next."""
    parser.add_argument("--step", action="store_true",
                        help="hold each evaluation's accuracy until the next (default: linear)")


def replica_count_text(counts: Sequence[int]) -> str:
    """'n = 20 replicas' or, when points differ, 'n = 3-20 replicas'."""
    counts = sorted(set(counts))
    if not counts:
        return "n = 0 replicas"
    if len(counts) == 1:
        return f"n = {counts[0]} replica" + ("" if counts[0] == 1 else "s")
    return f"n = {counts[0]}-{counts[-1]} replicas"


def report_write_error(output: Path, exc: OSError) -> None:
    """Prints the one-line error for a figure that could not be written."""
    print(f"error: {output}: cannot write the figure ({exc.strerror or exc})", file=sys.stderr)


def script_main(
    description: str,
    add_options: Callable[[argparse.ArgumentParser], None],
    draw: Callable[[Results, Path, argparse.Namespace], None],
    argv: Sequence[str] | None = None,
) -> int:
    """Command line of one figure script: RESULTS.json -o OUT.png [options]. Returns the exit
    code: 0, 2 on bad input (one 'error: FILE: ...' line), 1 when the figure cannot be written
    (and exits 1 when matplotlib is missing)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("results", type=Path, help="codesim results JSON")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    add_options(parser)
    args = parser.parse_args(argv)
    try:
        draw(load_results(args.results), args.output, args)
    except InputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_BAD_INPUT
    except OSError as exc:
        report_write_error(args.output, exc)
        return EXIT_ENVIRONMENT
    return 0
