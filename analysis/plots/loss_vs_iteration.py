#!/usr/bin/env python3
"""Training loss against iteration, one line per sweep point (mean over replicas with a 95%
band); legend entries carry the mean counts of faults, corrected results and rollbacks. The loss
axis is logarithmic with --logy, and by itself when the losses span more than three decades."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import common

# (series, loss column) in order of preference.
SOURCES = (("loss_vs_iteration", "loss"), ("accuracy_vs_time", "train_loss"))
# (aggregate metric, legend word) of the counts shown per point.
COUNTS = (("faults_injected", "faults"), ("corrected", "corrected"), ("rollbacks", "rollbacks"))
# Losses whose largest exceeds the smallest by more than this get a logarithmic axis: on a linear
# one a diverging run (losses of 1e40) would flatten every other line to zero.
AUTO_LOG_RATIO = 1e3


def loss_curves(results: common.Results, point: common.Point) -> list[common.Curve]:
    """Loss-vs-iteration curves of a point's replicas: from loss_vs_iteration where a replica
    has it, else from accuracy_vs_time's train_loss."""
    curves = []
    for replica in point.replicas:
        for series, column in SOURCES:
            data = results.series(point, replica, series)
            if data is not None:
                results.require_columns(point, series, data, "iteration", column)
                curves.append(common.make_curve(data["iteration"], data[column]))
                break
    return curves


def spans_decades(curves: list[common.Curve]) -> bool:
    """True when every loss is positive and the largest is over AUTO_LOG_RATIO times the
    smallest."""
    values = [float(y) for curve in curves for y in curve.y]
    return bool(values) and min(values) > 0 and max(values) > AUTO_LOG_RATIO * min(values)


def legend_label(results: common.Results, point: common.Point) -> str:
    """Point label followed by the mean counts that the aggregate has."""
    counts = [f"{word} {common.compact_number(point.mean(metric))}"
              for metric, word in COUNTS if point.mean(metric) is not None]
    label = results.label(point)
    return f"{label} ({', '.join(counts)})" if counts else label


def draw(results: common.Results, output: Path, logy: bool = False,
         show_replicas: bool = False) -> None:
    """Writes the loss-vs-iteration figure of `results` to `output`."""
    curves_by_point = []
    for point in results.points:
        curves = loss_curves(results, point)
        if curves:
            curves_by_point.append((point, curves))
    if not curves_by_point:
        raise results.error("no replica has a loss_vs_iteration or accuracy_vs_time series"
                            " (is this a training result?)")
    fig, ax = common.new_figure()
    labels = {point.index: legend_label(results, point) for point, _ in curves_by_point}
    common.plot_mean_lines(results, ax, curves_by_point, labels=labels,
                           show_replicas=show_replicas)
    logy = logy or spans_decades([c for _, curves in curves_by_point for c in curves])
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("iteration")
    ax.set_ylabel("training loss")
    has_counts = any(point.mean(metric) is not None
                     for point, _ in curves_by_point for metric, _ in COUNTS)
    common.finish_figure(
        fig, ax, output, common.band_title(results, curves_by_point), log_grid=logy,
        legend={"title": "mean counts per run" if has_counts else None, "title_fontsize": 8})


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--logy", action="store_true", help="logarithmic loss axis")
    common.add_show_replicas_option(parser)


def main(argv=None) -> int:
    return common.script_main(
        __doc__, add_options,
        lambda results, output, args: draw(results, output, args.logy, args.show_replicas), argv)


if __name__ == "__main__":
    sys.exit(main())
