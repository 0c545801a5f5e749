#!/usr/bin/env python3
"""Where simulated time goes: one stacked bar per sweep point of the mean time_*_s components
(compute, communication, decode, checkpoint, restart, eval, lost), with the mean completion time
and its 95% interval as an error bar."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import common

COMPONENTS = ("compute", "communication", "decode", "checkpoint", "restart", "eval", "lost")
# Fixed colours per component so that figures of different results compare at a glance.
COLORS = {
    "compute": "tab:blue", "communication": "tab:orange", "decode": "tab:purple",
    "checkpoint": "tab:green", "restart": "tab:red", "eval": "tab:olive", "lost": "tab:gray",
}


def draw(results: common.Results, output: Path) -> None:
    """Writes the time-breakdown figure of `results` to `output`."""
    present = [c for c in COMPONENTS
               if any(p.mean(f"time_{c}_s") is not None for p in results.points)]
    if not present:
        raise results.error("no time_*_s metric in any point's aggregate (expected "
                            + ", ".join(f"time_{c}_s" for c in COMPONENTS) + ")")
    points = results.points
    positions = list(range(len(points)))
    fig, ax = common.new_figure(max(6.4, 1.0 + 0.9 * len(points)), 4.6)
    bottoms = [0.0] * len(points)
    for component in present:
        heights = [p.mean(f"time_{component}_s") or 0.0 for p in points]
        ax.bar(positions, heights, 0.65, bottom=bottoms, label=component,
               color=COLORS[component])
        bottoms = [b + h for b, h in zip(bottoms, heights)]
    completion = [(x, p.mean("completion_time_s"), p.ci95("completion_time_s") or 0.0)
                  for x, p in zip(positions, points) if p.mean("completion_time_s") is not None]
    if completion:
        xs, means, errors = zip(*completion)
        ax.errorbar(xs, means, yerr=errors, fmt="_", color="black", markersize=14, capsize=5,
                    elinewidth=1.2, label="completion time, 95% CI")
    labels = [results.label(p) for p in points]
    rotate = len(points) > 4 or max(len(label) for label in labels) > 14
    pad = max(0.0, (3 - len(points)) * 0.5)  # keep few bars narrow
    ax.set_xlim(-0.5 - pad, len(points) - 0.5 + pad)
    ax.set_xticks(positions)
    ax.set_xticklabels(labels, rotation=30 if rotate else 0, ha="right" if rotate else "center",
                       fontsize=8)
    ax.set_ylabel("simulated time (s)")
    counts = [p.count("completion_time_s") or len(p.replicas) for p in points]
    ax.set_title(f"{results.name}: mean time per run ({common.replica_count_text(counts)})",
                 fontsize=9)
    ax.grid(True, axis="y", alpha=0.3)
    handles, names = ax.get_legend_handles_labels()
    # Legend top-down in stack order (top component first), the completion time last.
    stacked = [(h, n) for h, n in zip(handles, names) if n in present][::-1]
    others = [(h, n) for h, n in zip(handles, names) if n not in present]
    ax.legend(*zip(*(stacked + others)), fontsize=8, loc="upper left",
              bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0)
    common.save_figure(fig, output)


def add_options(parser: argparse.ArgumentParser) -> None:
    del parser  # no options beyond RESULTS.json -o OUT.png


def main(argv=None) -> int:
    return common.script_main(__doc__, add_options,
                              lambda results, output, args: draw(results, output), argv)


if __name__ == "__main__":
    sys.exit(main())
