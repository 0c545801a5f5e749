#!/usr/bin/env python3
"""A metric against a swept parameter: the aggregate mean of --y with its 95% interval as error
bars, one line per value of --group (or per combination of the other swept params)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import common


def default_metric(results: common.Results) -> str:
    """completion_time_s when present, else the first aggregate metric."""
    metrics = results.metrics()
    if not metrics:
        raise results.error("no aggregate metric in any point")
    return "completion_time_s" if "completion_time_s" in metrics else metrics[0]


def groups(results: common.Results, x: str, group: str | None) -> list[tuple[str, list]]:
    """(legend name, points) per line in first-seen order: by the value of `group`, or, without
    it, by the combination of the other params that vary between points (one unnamed line when
    none vary)."""
    if group is not None:
        missing = [p.index for p in results.points if group not in p.params]
        if missing:
            raise results.error(f"points[{missing[0]}].params has no {group} (--group)")
        keys = [group]
    else:
        keys = common.varying_params(results.points, exclude=[x])
    lines: dict[str, tuple[str, list]] = {}
    for point in results.points:
        key = common.canonical([point.params.get(k) for k in keys])
        name = common.params_summary(point.params, keys)
        lines.setdefault(key, (name, []))[1].append(point)
    return list(lines.values())


def draw(results: common.Results, output: Path, x: str | None = None, y: str | None = None,
         group: str | None = None, logx: bool = False, logy: bool = False) -> None:
    """Writes the metric-vs-parameter figure of `results` to `output`."""
    if x is None:
        x = common.numeric_param(results.points)
        if x is None:
            raise results.error("no params key has a number in every point (nothing swept"
                                " numerically; pass --x /json/pointer)")
    for point in results.points:
        if x not in point.params:
            raise results.error(f"points[{point.index}].params has no {x} (--x)")
        if not common.is_number(point.params[x]):
            raise results.error(f"points[{point.index}].params: {x} is not a number (--x)")
    y = y or default_metric(results)
    if all(p.mean(y) is None for p in results.points):
        raise results.error(f"no point has an aggregate mean of {y} (--y; metrics: "
                            + ", ".join(results.metrics()) + ")")
    fig, ax = common.new_figure()
    lines = groups(results, x, group)
    counts = []
    for name, points in lines:
        rows = sorted(((p.params[x], p.mean(y), p.ci95(y) or 0.0, p.count(y))
                       for p in points if p.mean(y) is not None), key=lambda row: row[0])
        if not rows:
            continue
        xs, means, errors, ns = zip(*rows)
        counts += [n for n in ns if n is not None]
        ax.errorbar(xs, means, yerr=errors, marker="o", markersize=4, capsize=3, linewidth=1.4,
                    label=name or None)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(common.quantity_label(x))
    ax.set_ylabel(common.quantity_label(y))
    common.finish_figure(fig, ax, output,
                         f"{results.name}: mean, {common.replica_count_text(counts)}, 95% CI",
                         log_grid=logx or logy,
                         legend={} if any(name for name, _ in lines) else None)


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--x", metavar="/POINTER",
                        help="swept param on the x axis (default: the first numeric one)")
    parser.add_argument("--y", metavar="METRIC",
                        help="aggregate metric (default: completion_time_s, else the first)")
    parser.add_argument("--group", metavar="/POINTER",
                        help="one line per value of this param (default: per combination of"
                             " the other params that vary)")
    parser.add_argument("--logx", action="store_true", help="logarithmic x axis")
    parser.add_argument("--logy", action="store_true", help="logarithmic y axis")


def main(argv=None) -> int:
    return common.script_main(
        __doc__, add_options,
        lambda results, output, args: draw(results, output, args.x, args.y, args.group,
                                           args.logx, args.logy), argv)


if __name__ == "__main__":
    sys.exit(main())
