#!/usr/bin/env python3
"""Gantt figure of a codesim timeline trace (Chrome Trace Event JSON from `codesim run --trace`):
one row per node, one colour per activity, markers for faults, crashes and rollbacks."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import common

# Activities in legend order: (legend label, slice names, colour).
ACTIVITIES = (
    ("compute (forward/backward)", ("forward", "backward"), "tab:blue"),
    ("block check", ("block check",), "tab:cyan"),
    ("update", ("update",), "tab:green"),
    ("communication", ("communication",), "tab:orange"),
    ("decode", ("decode",), "tab:purple"),
    ("regeneration", ("regeneration",), "tab:pink"),
    ("verification", ("verification",), "tab:olive"),
    ("checkpoint write", ("checkpoint write",), "tab:brown"),
    ("restart", ("restart",), "tab:red"),
    ("waiting for repairs", ("waiting for repairs",), "gold"),
    ("evaluation", ("evaluation",), "lightsteelblue"),
    ("down", ("down",), "dimgray"),
)
ACTIVITY_OF = {name: label for label, names, _ in ACTIVITIES for name in names}
COLOUR = {label: colour for label, _, colour in ACTIVITIES}
US_PER_S = 1e6
# Lanes inside a node's row (tid): compute on top, protocol below, state over the whole row.
LANE_BAND = {0: (-0.4, 0.4), 1: (0.0, 0.4), 2: (-0.4, 0.8)}


def parse_window(text: str | None, file: Path) -> tuple[float, float] | None:
    """'T0,T1' seconds with 0 <= T0 < T1, or None; raises InputError otherwise."""
    if text is None:
        return None
    try:
        t0, t1 = (float(part) for part in text.split(","))
    except ValueError:
        t0 = t1 = math.nan
    if not (math.isfinite(t0) and math.isfinite(t1) and 0 <= t0 < t1):
        raise common.InputError(file, f"--window {text} is not a window (expected T0,T1 seconds"
                                      " with 0 <= T0 < T1)")
    return t0, t1


def load_trace(file: Path) -> dict[str, Any]:
    """The trace document; raises InputError when it is missing or not a Chrome trace."""
    try:
        document = json.loads(file.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise common.InputError(file, "no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise common.InputError(file, f"cannot read ({exc.__class__.__name__})") from None
    except json.JSONDecodeError as exc:
        raise common.InputError(file, f"not valid JSON: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(document, dict) or not isinstance(document.get("traceEvents"), list):
        raise common.InputError(file, "expected a Chrome trace with a traceEvents list"
                                      " (codesim run --trace)")
    return document


def node_rows(events: list[dict]) -> dict[int, str]:
    """{pid: name} of the node processes (not the job's), from the process_name metadata."""
    rows = {}
    for e in events:
        if e.get("ph") == "M" and e.get("name") == "process_name":
            name = e.get("args", {}).get("name", "")
            if name.startswith("node "):
                rows[e["pid"]] = name
    return rows


def draw(document: dict[str, Any], output: Path, window: tuple[float, float] | None,
         title: str) -> None:
    events = document["traceEvents"]
    rows = node_rows(events)
    if not rows:
        raise ValueError("no node processes")
    order = {pid: i for i, pid in enumerate(sorted(rows))}
    # (activity, row, lane, cut short) -> spans; a task cut short (cancelled when its round
    # stopped waiting, lost to a crash, thrown away by a rollback) is hatched.
    bars: dict[tuple[str, int, int, bool], list[tuple[float, float]]] = {}
    end_s = 0.0
    for e in events:
        if e.get("ph") != "X" or e.get("pid") not in order:
            continue
        label = ACTIVITY_OF.get(e.get("name"))
        if label is None:
            continue
        start, duration = e["ts"] / US_PER_S, (e.get("dur") or 0.0) / US_PER_S
        end_s = max(end_s, start + duration)
        cut = e.get("args", {}).get("outcome", "done") not in ("done", "run ended")
        bars.setdefault((label, order[e["pid"]], e.get("tid", 0), cut), []).append(
            (start, duration))
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.45 * len(rows)))
    for (label, row, lane, cut), spans in sorted(bars.items()):
        low, height = LANE_BAND.get(lane, (-0.4, 0.8))
        ax.broken_barh(spans, (row + low, height), facecolors=COLOUR[label],
                       alpha=0.45 if label == "down" or cut else 0.9, linewidth=0,
                       hatch="////" if cut else None)
    draw_markers(ax, events, order)
    handles = [plt.Rectangle((0, 0), 1, 1, color=COLOUR[label]) for label, _, _ in ACTIVITIES
               if any(key[0] == label for key in bars)]
    labels = [label for label, _, _ in ACTIVITIES if any(key[0] == label for key in bars)]
    if any(key[3] for key in bars):
        handles.append(plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="black",
                                     hatch="////"))
        labels.append("task cut short")
    for marker, colour, name in (("x", "red", "fault"), ("v", "black", "crash")):
        handles.append(plt.Line2D([], [], marker=marker, color=colour, linestyle=""))
        labels.append(name)
    handles.append(plt.Line2D([], [], color="red", linestyle="--"))
    labels.append("rollback")
    handles.append(plt.Line2D([], [], color="gray", linestyle=":"))
    labels.append("checkpoint")
    ax.set_yticks(range(len(rows)), [rows[pid] for pid in sorted(rows)])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(*(window if window else (0.0, end_s if end_s > 0 else 1.0)))
    ax.set_xlabel("simulated time (s)")
    ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    other = document.get("otherData", {})
    if other.get("truncated"):
        title += f" (truncated at {other.get('events_written')} events)"
    ax.set_title(title, fontsize=9)
    common.save_figure(fig, output)


def draw_markers(ax: Any, events: list[dict], order: dict[int, int]) -> None:
    """Faults and crashes on their node's row; rollbacks and checkpoints across every row."""
    points: dict[str, tuple[list[float], list[float]]] = {"fault": ([], []), "crash": ([], [])}
    for e in events:
        if e.get("ph") != "i":
            continue
        name, t = e.get("name"), e["ts"] / US_PER_S
        if name in points and e.get("pid") in order:
            points[name][0].append(t)
            points[name][1].append(order[e["pid"]] - 0.25)
        elif name == "rollback":
            ax.axvline(t, color="red", linestyle="--", linewidth=1.0)
        elif name == "checkpoint":
            ax.axvline(t, color="gray", linestyle=":", linewidth=1.0)
    ax.scatter(*points["fault"], marker="x", color="red", s=25, zorder=3)
    ax.scatter(*points["crash"], marker="v", color="black", s=25, zorder=3)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("trace", type=Path, help="Chrome trace JSON of codesim run --trace")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    parser.add_argument("--window", help="T0,T1: simulated seconds to show")
    args = parser.parse_args(argv)
    try:
        window = parse_window(args.window, args.trace)
        document = load_trace(args.trace)
        if not node_rows(document["traceEvents"]):
            raise common.InputError(args.trace, "the trace names no node processes"
                                                " (expected a trace of codesim run --trace)")
        draw(document, args.output, window, f"timeline of {args.trace.name}")
    except common.InputError as exc:
        print(exc, file=sys.stderr)
        return common.EXIT_BAD_INPUT
    except OSError as exc:
        common.report_write_error(args.output, exc)
        return common.EXIT_ENVIRONMENT
    print(args.output, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
