#!/usr/bin/env python3
"""Gantt figure of a codesim timeline trace (Chrome Trace Event JSON from `codesim run --trace`):
one row per node, one colour per activity, markers for faults, crashes and rollbacks, and above
them the energy spent so far when the trace has its energy_J counter."""

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
    common.note_input(file)
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
    energy = energy_counter(events)
    if energy:
        # Energy spent so far above the Gantt rows, on the same time axis.
        fig, (energy_ax, ax) = plt.subplots(
            2, 1, sharex=True, figsize=(10, 2.4 + 0.45 * len(rows)),
            gridspec_kw={"height_ratios": [1.2, 1.2 + 0.45 * len(rows)]})
    else:
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
    if thrown_away(events):
        handles.append(plt.Rectangle((0, 0), 1, 1, color="red", alpha=0.12, linewidth=0))
        labels.append("work thrown away")
    handles.append(plt.Line2D([], [], color="gray", linestyle=":"))
    labels.append("checkpoint")
    ax.set_yticks(range(len(rows)), [rows[pid] for pid in sorted(rows)])
    ax.set_ylim(len(rows) - 0.5, -0.5)
    limits = window if window else (0.0, end_s if end_s > 0 else 1.0)
    ax.set_xlim(*limits)
    ax.set_xlabel("simulated time (s)")
    ax.legend(handles, labels, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    other = document.get("otherData", {})
    if other.get("truncated"):
        title += f" (truncated at {other.get('events_written')} events)"
    if energy:
        title += draw_energy(energy_ax, energy, limits)
        energy_ax.set_title(title, fontsize=9)
    else:
        ax.set_title(title, fontsize=9)
    common.save_figure(fig, output)


def energy_counter(events: list[dict]) -> list[tuple[float, float]]:
    """(seconds, joules) of the energy_J counter track, in time order; [] when absent."""
    points = [(e["ts"] / US_PER_S, e.get("args", {}).get("energy_J")) for e in events
              if e.get("ph") == "C" and e.get("name") == "energy_J"]
    return sorted((t, j) for t, j in points if isinstance(j, (int, float)))


def energy_at(energy: list[tuple[float, float]], t: float) -> float:
    """Joules spent by time t, linear between the counter's samples, held outside them."""
    if t <= energy[0][0]:
        return energy[0][1]
    for (t0, j0), (t1, j1) in zip(energy, energy[1:]):
        if t <= t1:
            return j0 if t1 == t0 else j0 + (j1 - j0) * (t - t0) / (t1 - t0)
    return energy[-1][1]


def draw_energy(ax: Any, energy: list[tuple[float, float]], limits: tuple[float, float]) -> str:
    """The energy spent so far (kJ) against time; returns the title's energy note: the joules
    spent inside the shown time range."""
    times = [t for t, _ in energy]
    ax.plot(times, [j / 1e3 for _, j in energy], color="black", linewidth=1.0)
    ax.set_ylabel("energy (kJ)", fontsize=8)
    ax.grid(alpha=0.3)
    low_kJ, high_kJ = energy_at(energy, limits[0]) / 1e3, energy_at(energy, limits[1]) / 1e3
    if high_kJ > low_kJ:  # the part of the curve in view, not the whole run's
        margin = 0.05 * (high_kJ - low_kJ)
        ax.set_ylim(low_kJ - margin, high_kJ + margin)
    return f"; {high_kJ - low_kJ:.4g} kJ spent in view"


def thrown_away(events: list[dict]) -> list[tuple[float, float]]:
    """(start, end) seconds of the work each rollback threw away: from the checkpoint it returned
    to (the checkpoint instant of its to_iteration; the run's start for iteration 0), or from the
    rollback before it when that is later, to the rollback."""
    spans = []
    checkpoint_s: dict[int, float] = {0: 0.0}
    last_rollback_s = 0.0
    for e in sorted((e for e in events if e.get("ph") == "i"), key=lambda e: e["ts"]):
        t = e["ts"] / US_PER_S
        args = e.get("args", {})
        if e.get("name") == "checkpoint" and isinstance(args.get("iteration"), int):
            checkpoint_s[args["iteration"]] = t
        elif e.get("name") == "rollback":
            start = max(checkpoint_s.get(args.get("to_iteration"), 0.0), last_rollback_s)
            spans.append((start, t))
            last_rollback_s = t
    return spans


def draw_markers(ax: Any, events: list[dict], order: dict[int, int]) -> None:
    """Faults and crashes on their node's row; rollbacks and checkpoints across every row, and
    the work each rollback threw away shaded."""
    points: dict[str, tuple[list[float], list[float]]] = {"fault": ([], []), "crash": ([], [])}
    for start, end in thrown_away(events):
        ax.axvspan(start, end, color="red", alpha=0.12, linewidth=0)
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
