#!/usr/bin/env python3
"""Every figure that fits a codesim results document (used by `codesim plot`): picks the
figures by scenario.workload.kind, writes DIR/<results stem>.<figure>.png and prints each path.
An ADVICE.json or MAP.json of codesim advise (top-level "kind" advice or advice_map) gets its
Pareto figure (advice_figures.py) or its map (advice_map_figure.py) instead."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

import accuracy_vs_time
import advice_figures
import advice_map_figure
import common
import energy_vs_accuracy
import loss_vs_iteration
import strategy_comparison
import sweep_metric
import time_breakdown

Figure = tuple[str, Callable[[common.Results, Path], None]]


def swept_within_labels(results: common.Results) -> str | None:
    """The first numeric params pointer that takes two or more values among the points of one
    label, None if none does."""
    for key in common.params_keys(results.points):
        if not all(common.is_number(p.params.get(key)) for p in results.points):
            continue
        values: dict[str, set] = {}
        for p in results.points:
            values.setdefault(results.label(p), set()).add(p.params[key])
        if any(len(v) > 1 for v in values.values()):
            return key
    return None


def sweep_figures(results: common.Results, metrics: list[str]) -> list[Figure]:
    """sweep_<metric> figures when there is more than one point and a numeric swept param; a
    logarithmic x axis when the swept values are positive and span a decade or more."""
    x = common.numeric_param(results.points)
    if len(results.points) < 2 or x is None:
        return []
    # Labelled points (a zip over strategies) are a comparison of named runs: a numeric param
    # is an x axis only when it varies between points of the same label (a grid crossed with the
    # strategies, e.g. epsilon x {codenet, replication}), drawn as one line per label; a param
    # that only changes with the label (a rate that is 0 for the reference) is not.
    if any("/label" in p.params for p in results.points):
        x = swept_within_labels(results)
        if x is None:
            return []
    values = [p.params[x] for p in results.points]
    logx = min(values) > 0 and max(values) >= 10 * min(values)
    available = results.metrics()
    return [(f"sweep_{metric}",
             lambda r, out, m=metric: sweep_metric.draw(r, out, x=x, y=m, logx=logx))
            for metric in metrics if metric in available]


def has_series(results: common.Results, names: list[str]) -> bool:
    """True when some replica of some point has one of the series `names`."""
    return any(results.series(point, replica, name) is not None
               for point in results.points for replica in point.replicas for name in names)


def figures(results: common.Results) -> list[Figure]:
    """(figure name, draw function) for `results`, in output order. Raises InputError when
    nothing fits."""
    kind = results.workload_kind
    if kind == "training":
        chosen: list[Figure] = []
        # Stochastic-mode results have no accuracy or loss series: skip their figures.
        for name, draw, series in (
                ("accuracy_vs_time", accuracy_vs_time.draw, ["accuracy_vs_time"]),
                ("loss_vs_iteration", loss_vs_iteration.draw,
                 ["loss_vs_iteration", "accuracy_vs_time"])):
            if has_series(results, series):
                chosen.append((name, draw))
            else:
                print(f"skipping {name}: no replica has a {' or '.join(series)} series"
                      " (stochastic mode computes no accuracy or loss)", file=sys.stderr)
        # Results written before energy was recorded have no energy_J column: no figure, and
        # no message either (nothing is wrong with them).
        if common.has_column(results, energy_vs_accuracy.SERIES, energy_vs_accuracy.ENERGY_COLUMN):
            chosen.append(("energy_vs_accuracy", energy_vs_accuracy.draw))
        chosen.append(("time_breakdown", time_breakdown.draw))
        if strategy_comparison.fits(results):
            chosen.append(("strategy_comparison", strategy_comparison.draw))
        return chosen + sweep_figures(
            results,
            ["final_test_accuracy", "completion_time_s", "rollbacks", "corrected", "energy_J"])
    if kind == "iterative_job":
        return [("time_breakdown", time_breakdown.draw)] + sweep_figures(
            results, ["completion_time_s", "energy_J"])
    # Another kind: the time breakdown when it has one, a sweep of its main metric.
    chosen = []
    if any(m.startswith("time_") and m.endswith("_s") for m in results.metrics()):
        chosen.append(("time_breakdown", time_breakdown.draw))
    metrics = results.metrics()
    if metrics:
        main = "completion_time_s" if "completion_time_s" in metrics else metrics[0]
        chosen += sweep_figures(results, [main])
    if not chosen:
        raise results.error(f"nothing to plot for workload kind {kind or '(none)'}"
                            " (no time_*_s metrics and no numeric sweep)")
    return chosen


def chosen_figures(file: Path) -> list[tuple[str, Callable[[Path], None]]]:
    """(figure name, draw into an output path) for `file`, checked before anything is drawn. The
    file is read once; its "kind" sends advice documents to advice_figures or advice_map_figure,
    anything else is checked as a results document."""
    document = common.read_json_document(file)
    if advice_figures.is_advice(document):
        module = advice_figures if document["kind"] == "advice" else advice_map_figure
        return module.figures(file, document)
    results = common.results_from_document(file, document)
    return [(name, lambda output, draw=draw: draw(results, output))
            for name, draw in figures(results)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("results", type=Path,
                        help="codesim results JSON, or ADVICE.json / MAP.json of codesim advise")
    parser.add_argument("-o", "--output-dir", type=Path, default=Path("figures"),
                        help="directory for the PNG files (default: figures)")
    parser.add_argument("--only", metavar="FIGURE",
                        help="draw only this figure (e.g. accuracy_vs_time, pareto)")
    args = parser.parse_args(argv)
    try:
        chosen = chosen_figures(args.results)
        if args.only is not None:
            names = [name for name, _ in chosen]
            if args.only not in names:
                print(f"error: {args.results}: no figure {args.only!r} fits this file (expected "
                      f"one of: {', '.join(names)})", file=sys.stderr)
                return common.EXIT_BAD_INPUT
            chosen = [(name, draw) for name, draw in chosen if name == args.only]
        stem = args.results.name.removesuffix(".json")
        for name, draw in chosen:
            output = args.output_dir / f"{stem}.{name}.png"
            try:
                draw(output)
            except OSError as exc:
                common.report_write_error(output, exc)
                return common.EXIT_ENVIRONMENT
            print(output, flush=True)
    except common.InputError as exc:
        print(exc, file=sys.stderr)
        return common.EXIT_BAD_INPUT
    return 0


if __name__ == "__main__":
    sys.exit(main())
