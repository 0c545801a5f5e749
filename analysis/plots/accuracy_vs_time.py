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
    curves = common.curves_by_point(results, SERIES, "time_s", "test_accuracy")
    if not curves:
        raise results.error(f"no replica has an {SERIES} series (is this a training result?)")
    common.mean_lines_figure(results, output, curves, "simulated time (s)", "test accuracy",
                             step, show_replicas)


def add_options(parser: argparse.ArgumentParser) -> None:
    common.add_step_option(parser)
    common.add_show_replicas_option(parser)


def main(argv=None) -> int:
    return common.script_main(
        __doc__, add_options,
        lambda results, output, args: draw(results, output, args.step, args.show_replicas), argv)


if __name__ == "__main__":
    sys.exit(main())
