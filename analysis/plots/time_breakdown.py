#!/usr/bin/env python3
"""Where simulated time goes: one stacked bar per sweep point of the mean time_*_s components
(compute, communication, decode, checkpoint, restart, eval, lost), with the mean completion time
and its 95% interval as an error bar; when the results carry energy, a second panel with the
mean energy_*_J components in kJ (compute, idle, network, checkpoint, restart, lost) and the mean
energy_J with its 95% interval."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import common

COMPONENTS = ("compute", "communication", "decode", "checkpoint", "restart", "eval", "lost")
ENERGY_COMPONENTS = ("compute", "idle", "network", "checkpoint", "restart", "lost")
# Fixed colours per component so that figures of different results compare at a glance; an
# energy component has the colour of the time it is spent in (network: communication).
COLORS = {
    "compute": "tab:blue", "communication": "tab:orange", "decode": "tab:purple",
    "checkpoint": "tab:green", "restart": "tab:red", "eval": "tab:olive", "lost": "tab:gray",
    "idle": "tab:cyan", "network": "tab:orange",
}
KJ_PER_J = 1e-3


def stacked_bars(ax: Any, points: list[common.Point], present: list[str], metric: str,
                 scale: float = 1.0) -> None:
    """One stacked bar per point of the means of metric.format(component), times `scale`."""
    bottoms = [0.0] * len(points)
    for component in present:
        heights = [p.mean(metric.format(component)) or 0.0 for p in points]
        if scale != 1.0:
            heights = [h * scale for h in heights]
        ax.bar(range(len(points)), heights, 0.65, bottom=bottoms, label=component,
               color=COLORS[component])
        bottoms = [b + h for b, h in zip(bottoms, heights)]


def total_bar(ax: Any, points: list[common.Point], metric: str, label: str,
              scale: float = 1.0) -> None:
    """The mean of `metric` (times `scale`) with its 95% interval as a black error bar."""
    rows = [(x, p.mean(metric), p.ci95(metric) or 0.0)
            for x, p in enumerate(points) if p.mean(metric) is not None]
    if not rows:
        return
    xs, means, errors = zip(*rows)
    if scale != 1.0:
        means, errors = [m * scale for m in means], [e * scale for e in errors]
    ax.errorbar(xs, means, yerr=errors, fmt="_", color="black", markersize=14, capsize=5,
                elinewidth=1.2, label=label)


def finish_panel(ax: Any, results: common.Results, present: list[str], ylabel: str,
                 title: str) -> None:
    """Point names under the bars, the y label, the title, the grid and the legend right of the
    axes, top-down in stack order (top component first) with the total last."""
    points = results.points
    labels = [results.label(p) for p in points]
    rotate = len(points) > 4 or max(len(label) for label in labels) > 14
    pad = max(0.0, (3 - len(points)) * 0.5)  # keep few bars narrow
    ax.set_xlim(-0.5 - pad, len(points) - 0.5 + pad)
    ax.set_xticks(list(range(len(points))))
    ax.set_xticklabels(labels, rotation=30 if rotate else 0, ha="right" if rotate else "center",
                       fontsize=8)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    stacked = [(h, n) for h, n in zip(handles, names) if n in present][::-1]
    others = [(h, n) for h, n in zip(handles, names) if n not in present]
    ax.legend(*zip(*(stacked + others)), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)


def present_energy(results: common.Results) -> list[str]:
    """The energy components some point has; empty for results without energy."""
    return [c for c in ENERGY_COMPONENTS
            if any(p.mean(f"energy_{c}_J") is not None for p in results.points)]


def draw(results: common.Results, output: Path) -> None:
    """Writes the time-breakdown figure of `results` to `output`."""
    present = [c for c in COMPONENTS
               if any(p.mean(f"time_{c}_s") is not None for p in results.points)]
    if not present:
        raise results.error("no time_*_s metric in any point's aggregate (expected "
                            + ", ".join(f"time_{c}_s" for c in COMPONENTS) + ")")
    points = results.points
    energy = present_energy(results)
    has_energy = bool(energy) or any(p.mean("energy_J") is not None for p in points)
    width_in = max(6.4, 1.0 + 0.9 * len(points))
    if has_energy and width_in > 9.0:
        # Many points: the energy panel under the time panel rather than beside it, so the
        # figure stays readable on a page.
        fig, (ax, energy_ax) = common.pyplot().subplots(2, 1, figsize=(width_in, 9.2))
    elif has_energy:
        fig, (ax, energy_ax) = common.pyplot().subplots(1, 2, figsize=(2 * width_in, 4.6))
    else:
        # Results without energy: the single panel exactly as before energy was recorded.
        fig, ax = common.new_figure(width_in, 4.6)
    stacked_bars(ax, points, present, "time_{}_s")
    total_bar(ax, points, "completion_time_s", "completion time, 95% CI")
    counts = [p.count("completion_time_s") or len(p.replicas) for p in points]
    finish_panel(ax, results, present, "simulated time (s)",
                 f"{results.name}: mean time per run ({common.replica_count_text(counts)})")
    if has_energy:
        stacked_bars(energy_ax, points, energy, "energy_{}_J", KJ_PER_J)
        total_bar(energy_ax, points, "energy_J", "energy, 95% CI", KJ_PER_J)
        counts = [p.count("energy_J") or len(p.replicas) for p in points]
        finish_panel(energy_ax, results, energy, "energy (kJ)",
                     f"mean energy per run ({common.replica_count_text(counts)})")
    common.save_figure(fig, output)


def add_options(parser: argparse.ArgumentParser) -> None:
    del parser  # no options beyond RESULTS.json -o OUT.png


def main(argv=None) -> int:
    return common.script_main(__doc__, add_options,
                              lambda results, output, args: draw(results, output), argv)


if __name__ == "__main__":
    sys.exit(main())
