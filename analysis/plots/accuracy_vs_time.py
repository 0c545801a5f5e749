#!/usr/bin/env python3
"""Test accuracy against simulated time, one line per sweep point: the mean over replicas with a
shaded 95% Student-t band (from the accuracy_vs_time series of training results)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import common

SERIES = "accuracy_vs_time"


def draw(results: common.Results, output: Path, step: bool = False,
         show_replicas: bool = False) -> None:
    """Writes the accuracy-vs-time figure of `results` to `output`."""
    curves_by_point = []
    for point in results.points:
        curves = common.replica_curves(results, point, SERIES, "time_s", "test_accuracy")
        if curves:
            curves_by_point.append((point, curves))
    if not curves_by_point:
        raise results.error(f"no replica has an {SERIES} series (is this a training result?)")
    fig, ax = common.new_figure()
    common.plot_mean_lines(results, ax, curves_by_point, step, show_replicas=show_replicas)
    ax.set_xlabel("simulated time (s)")
    ax.set_ylabel("test accuracy")
    common.finish_figure(fig, ax, output, common.band_title(results, curves_by_point), legend={})


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--step", action="store_true",
                        help="hold each evaluation's accuracy until the next (default: linear)")
    common.add_show_replicas_option(parser)


def main(argv=None) -> int:
    return common.script_main(
        __doc__, add_options,
        lambda results, output, args: draw(results, output, args.step, args.show_replicas), argv)


if __name__ == "__main__":
    sys.exit(main())
