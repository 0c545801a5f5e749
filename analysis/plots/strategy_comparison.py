#!/usr/bin/env python3
"""Named strategies compared across settings: for a sweep that zips labelled strategies with
other swept settings (fault models, straggler laws, ...), one panel per metric (energy_J in kJ
when the results have it), one group of bars per setting and one bar per strategy: the mean with
its 95% interval."""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path
from typing import Any

import common

METRICS = ("completion_time_s", "final_test_accuracy", "rollbacks", "corrected",
           "silent_corruptions", "energy_J")
# Metrics drawn in another unit than they are recorded in: (factor, axis label).
SCALED = {"energy_J": (1e-3, "energy (kJ)")}


def short_text(value: Any) -> str:
    """A few words for a swept value: a law by its kind, a faults section by its struck targets
    and their value models, an empty object as 'off', other objects as key=value pairs."""
    if not isinstance(value, dict):
        return common.format_value(value)
    if not value:
        return "off"
    if "targets" in value:
        default_model = value.get("value_model", {})
        struck = []
        for target, spec in value["targets"].items():
            if spec.get("probability_per_operation", 0) or spec.get("rate_per_flop", 0):
                model = spec.get("value_model", default_model)
                struck.append(f"{target}: {short_text(model) if model else 'default'}")
        return ", ".join(struck) or "no faults"
    if "kind" in value:
        extras = [common.format_value(v) for k, v in value.items()
                  if k in ("field", "density") and v is not None]
        return " ".join([str(value["kind"])] + extras)
    return ", ".join(f"{k}={common.format_value(v)}" for k, v in value.items())


def setting_keys(results: common.Results) -> list[str]:
    """Swept params that vary among the points of one label (the settings the strategies are
    compared under); params that change only with the label describe the strategy."""
    keys = []
    for key in common.varying_params(results.points, exclude=[common.LABEL_PARAM]):
        values: dict[str, set] = {}
        for p in results.points:
            values.setdefault(results.label(p), set()).add(common.canonical(p.params.get(key)))
        if any(len(v) > 1 for v in values.values()):
            keys.append(key)
    return keys


def fits(results: common.Results) -> bool:
    """True for labelled points compared under two or more non-numeric settings."""
    if not any(common.LABEL_PARAM in p.params for p in results.points):
        return False
    keys = setting_keys(results)
    return bool(keys) and not all(
        all(common.is_number(p.params.get(k)) for p in results.points) for k in keys)


def setting_name(point: common.Point, keys: list[str]) -> str:
    """One line per swept setting, wrapped to fit under its group of bars."""
    return "\n".join(textwrap.fill(short_text(point.params.get(k)), 20) for k in keys)


def draw(results: common.Results, output: Path) -> None:
    """Writes the comparison figure of `results` to `output`."""
    if not fits(results):
        raise results.error("no labelled strategies swept under other settings (expected a "
                            "/label zip crossed with non-numeric swept params)")
    keys = setting_keys(results)
    labels = list(dict.fromkeys(results.label(p) for p in results.points))
    settings = list(dict.fromkeys(setting_name(p, keys) for p in results.points))
    by_cell = {(results.label(p), setting_name(p, keys)): p for p in results.points}
    metrics = [m for m in METRICS if any(p.mean(m) is not None for p in results.points)]
    plt = common.pyplot()
    width_in = max(7.0, 1.5 + 0.3 * len(labels) * len(settings))
    fig, axes = plt.subplots(len(metrics), 1, figsize=(width_in, 2.2 * len(metrics) + 1.4),
                             sharex=True, squeeze=False)
    bar = 0.8 / len(labels)
    for ax, metric in zip(axes[:, 0], metrics):
        scale, ylabel = SCALED.get(metric, (1.0, common.quantity_label(metric)))
        for i, label in enumerate(labels):
            xs, means, errors = [], [], []
            for j, setting in enumerate(settings):
                point = by_cell.get((label, setting))
                if point is None or point.mean(metric) is None:
                    continue
                xs.append(j - 0.4 + bar * (i + 0.5))
                means.append(point.mean(metric) * scale)
                errors.append((point.ci95(metric) or 0.0) * scale)
            ax.bar(xs, means, bar, yerr=errors, capsize=2, label=label,
                   color=f"C{i % 10}", error_kw={"elinewidth": 0.8})
        if all((p.mean(metric) or 0.0) >= 0.0 for p in results.points):
            ax.set_ylim(bottom=0.0)  # counts and times: an interval below 0 is cut at 0
        ax.set_ylabel(ylabel, fontsize=8)
        ax.grid(True, axis="y", alpha=0.3)
    bottom = axes[-1, 0]
    bottom.set_xticks(range(len(settings)))
    bottom.set_xticklabels(settings, fontsize=7)
    axes[0, 0].legend(fontsize=7, ncol=min(len(labels), 3), loc="lower left",
                      bbox_to_anchor=(0.0, 1.02), borderaxespad=0.0)
    counts = [p.count("completion_time_s") or len(p.replicas) for p in results.points]
    fig.suptitle(f"{results.name}: strategies by setting, means and 95% intervals "
                 f"({common.replica_count_text(counts)})", fontsize=9)
    common.save_figure(fig, output)


def add_options(parser: argparse.ArgumentParser) -> None:
    del parser  # no options beyond RESULTS.json -o OUT.png


def main(argv=None) -> int:
    return common.script_main(__doc__, add_options,
                              lambda results, output, args: draw(results, output), argv)


if __name__ == "__main__":
    sys.exit(main())
