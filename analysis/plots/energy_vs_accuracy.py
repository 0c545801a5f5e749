#!/usr/bin/env python3
"""Test accuracy against cumulative energy (kJ), one line per sweep point: the mean over replicas
with a shaded 95% Student-t band (the energy_J column of training results' accuracy_vs_time
series), a dotted line at a target accuracy and, per point, a marker where its mean curve first
reaches it; the legend gives that energy, E(target)."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Sequence

import common

SERIES = "accuracy_vs_time"
ENERGY_COLUMN = "energy_J"
DEFAULT_TARGET = 0.85
KJ_PER_J = 1e-3


def parse_target(text: str | float, file: Path) -> float:
    """A target accuracy in (0, 1]; raises InputError (exit 2) otherwise. Parsed here rather
    than by argparse so that a bad value gives the scripts' one 'error:' line."""
    try:
        target = float(text)
    except ValueError:
        target = math.nan
    if not 0.0 < target <= 1.0:  # also rejects nan
        raise common.InputError(file, f"--target {text} is not an accuracy in (0, 1]")
    return target


def first_reach(xs: Sequence[float], ys: Sequence[float], target: float,
                step: bool = False) -> float | None:
    """The x where the curve (xs increasing) first reaches `target`: linear interpolation between
    the last value below it and the first at or above it, or with `step` (values held until the
    next x) that first x itself. None when the curve never reaches it."""
    for i, y in enumerate(ys):
        if y >= target:
            if i == 0 or step:
                return float(xs[i])
            x0, y0, x1 = float(xs[i - 1]), float(ys[i - 1]), float(xs[i])
            return x0 + (target - y0) * (x1 - x0) / (float(y) - y0)
    return None


def energy_curves(results: common.Results) -> list[tuple[common.Point, list[common.Curve]]]:
    """Per point, its replicas' (energy in kJ, test accuracy) curves. Replicas whose series has
    no energy_J column are left out; raises InputError when no replica has one."""
    if not any(results.series(p, r, SERIES) is not None
               for p in results.points for r in p.replicas):
        raise results.error(f"no replica has an {SERIES} series (is this a training result?)")
    curves = common.curves_by_point(results, SERIES, ENERGY_COLUMN, "test_accuracy", KJ_PER_J,
                                    True)
    if not curves:
        raise results.error(f"no {SERIES} series has an {ENERGY_COLUMN} column (results written"
                            " before codesim recorded energy?)")
    return curves


def energy_to_target(curves: list[common.Curve], target: float,
                     step: bool = False) -> float | None:
    """Energy (kJ) at which the mean curve of `curves` first reaches `target`; None when it does
    not, or when the replicas share no energy range (no mean curve)."""
    grid, mean, _ = common.mean_band(curves, step)
    return first_reach(grid, mean, target, step) if len(grid) else None


def legend_labels(results: common.Results,
                  curves: Sequence[tuple[common.Point, list[common.Curve]]], target: float,
                  step: bool = False) -> tuple[dict[int, str], dict[int, float]]:
    """Legend entries by point index ('name, E(0.85) = 12.3 kJ' or '..., not reached') and the
    energies to the target of the points whose mean curve reaches it."""
    labels, reached = {}, {}
    for point, point_curves in curves:
        energy = energy_to_target(point_curves, target, step)
        name = f"{results.label(point)}, E({target:g})"
        if energy is None:
            labels[point.index] = f"{name} not reached"
        else:
            labels[point.index] = f"{name} = {common.compact_number(energy)} kJ"
            reached[point.index] = energy
    return labels, reached


def draw(results: common.Results, output: Path, target: float = DEFAULT_TARGET,
         step: bool = False, show_replicas: bool = False) -> None:
    """Writes the energy-vs-accuracy figure of `results` to `output`."""
    curves = energy_curves(results)
    labels, reached = legend_labels(results, curves, target, step)

    def mark_target(ax: Any, colors: dict[int, Any]) -> None:
        ax.axhline(target, color="black", linestyle=":", linewidth=1.0,
                   label=f"target accuracy {target:g}")
        for index, energy in reached.items():
            ax.plot([energy], [target], marker="o", markersize=6, linestyle="none",
                    color=colors[index], markeredgecolor="black", markeredgewidth=0.6, zorder=3)

    common.mean_lines_figure(results, output, curves, "energy (kJ)", "test accuracy", step,
                             show_replicas, labels, mark_target)


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target", default=str(DEFAULT_TARGET), metavar="ACC",
                        help=f"target test accuracy in (0, 1] (default {DEFAULT_TARGET})")
    common.add_step_option(parser)
    common.add_show_replicas_option(parser)


def draw_with_options(results: common.Results, output: Path, args: argparse.Namespace) -> None:
    target = parse_target(args.target, args.results)
    draw(results, output, target, args.step, args.show_replicas)


def main(argv=None) -> int:
    return common.script_main(__doc__, add_options, draw_with_options, argv)


if __name__ == "__main__":
    sys.exit(main())
