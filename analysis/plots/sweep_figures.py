"""The sweeps that extend T1-T3 beyond the papers' single points, drawn from `codesim theory --table ... --json`:
recovery threshold against communication per node (tradeoff), errors corrected over many splits
(tolerance_grid), the decode's conditioning against P (conditioning) and the expected time of the
K-th fastest node under stragglers (stragglers). paper_figures.py dispatches to them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import common

# One marker set per scheme, the same in every figure.
SCHEME_STYLE = {"gpd": ("o", "C0", "GPD"), "mds": ("s", "C1", "MDS (k = 2mn)"),
                "replication": ("^", "C2", "replication"),
                "codenet_grid": ("D", "C3", "CodeNet grid (product code)")}
# 2^-53: a decode loses about cond x u x f in relative accuracy (models/coding/conditioning.hpp).
UNIT_ROUNDOFF = 2.0 ** -53


def guard_condition(table: dict[str, Any]) -> float:
    """The condition number above which the decoding guard warns."""
    return table["target_relative_accuracy"] / (UNIT_ROUNDOFF * table["safety_factor"])


def tradeoff_point(row: dict[str, Any], direction: str) -> tuple[float, int]:
    """(elements sent per node, threshold in nodes) of one row; "both": the two products of a
    training step, sent added and the larger threshold."""
    if direction == "both":
        return (row["forward"]["sent_per_node"] + row["backward"]["sent_per_node"],
                max(row["forward"]["threshold_nodes"], row["backward"]["threshold_nodes"]))
    return row[direction]["sent_per_node"], row[direction]["threshold_nodes"]


def draw_tradeoff(table: dict[str, Any], output: Path) -> None:
    """Recovery threshold (nodes) against elements sent per node, forward, backward and both,
    every scheme at every split; GPD's splits of equal mn joined (polynomial n = 1 to MatDot
    m = 1)."""
    plt = common.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.8), sharey=True)
    rows = table["rows"]
    titles = {"forward": "W x", "backward": "W^T delta", "both": "both (sent added, larger K)"}
    for ax, direction in zip(axes, titles):
        for scheme, (marker, color, label) in SCHEME_STYLE.items():
            points = [tradeoff_point(r, direction) for r in rows if r["scheme"] == scheme]
            ax.scatter([x for x, _ in points], [y for _, y in points], marker=marker,
                       color=color, label=label, alpha=0.7, s=28)
        for blocks in sorted({r["m"] * r["n"] for r in rows}):
            line = sorted((r for r in rows if r["scheme"] == "gpd" and r["m"] * r["n"] == blocks),
                          key=lambda r: r["n"])
            if len(line) < 2:
                continue
            points = [tradeoff_point(r, direction) for r in line]
            ax.plot([x for x, _ in points], [y for _, y in points], "-", color="C0", lw=0.8)
            if blocks == 4:
                for r, (x, y) in zip(line, points):
                    ax.annotate(f"{r['m']}x{r['n']}", (x, y), fontsize=7, xytext=(3, -9),
                                textcoords="offset points", color="C0")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("elements each node sends per entry of the product")
        ax.set_title(f"{titles[direction]}: P = {table['redundancy']}mn, storage 1/(mn)",
                     fontsize=10)
    axes[0].set_ylabel("recovery threshold K (nodes, worst case)")
    axes[0].legend(fontsize=8, title="GPD: equal mn joined", title_fontsize=7)
    common.save_figure(fig, output)


def draw_tolerance_grid(table: dict[str, Any], output: Path) -> None:
    """Errors corrected per decode at P = 2mn, 3mn and 4mn for every split."""
    plt = common.pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(14, 4.4), sharey=True)
    rows = table["rows"]
    splits = sorted({(r["m"], r["n"]) for r in rows}, key=lambda s: (s[0] * s[1], s))
    series = (("gpd_forward", "o", "C0", "GPD forward"), ("gpd_backward", "o", "C9", "GPD backward"),
              ("mds", "s", "C1", "MDS (k = 2mn)"), ("codenet", "D", "C3", "CodeNet grid"),
              ("replication_correctable", "^", "C2", "replication"))
    for ax, factor in zip(axes, (2, 3, 4)):
        at = {(r["m"], r["n"]): r for r in rows if r["nodes"] == factor * r["m"] * r["n"]}
        for i, (key, marker, color, label) in enumerate(series):
            ax.plot(range(len(splits)), [at[s][key] for s in splits], marker=marker, color=color,
                    ls="none", label=label, ms=8 - 1.2 * i, alpha=0.85)
        ax.set_xticks(range(len(splits)))
        ax.set_xticklabels([f"{m}x{n}" for m, n in splits], rotation=90, fontsize=7)
        ax.set_xlabel("split m x n (by mn)")
        ax.set_title(f"P = {factor}mn, storage 1/(mn) per node")
    axes[0].set_ylabel("erroneous nodes corrected per decode (worst case)")
    axes[0].legend(fontsize=8)
    common.save_figure(fig, output)


def draw_conditioning(table: dict[str, Any], output: Path) -> None:
    """Worst decode condition number against P per code and direction (log scale); hollow markers
    where a real decode missed the target, crosses at the top where the system was singular."""
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    points = table["points"]
    finite = [p[d]["worst_condition"] for p in points for d in ("forward", "backward")
              if p[d]["worst_condition"] is not None]
    ceiling = max(finite + [guard_condition(table)]) * 30
    for scheme in dict.fromkeys(p["scheme"] for p in points):
        marker, color, label = SCHEME_STYLE[scheme]
        mine = [p for p in points if p["scheme"] == scheme]
        for direction, ls in (("forward", "-"), ("backward", "--")):
            xs = [p["nodes"] for p in mine]
            ys = [p[direction]["worst_condition"] or ceiling for p in mine]
            ax.plot(xs, ys, ls=ls, color=color, lw=1, label=f"{label} {direction}")
            for p, y in zip(mine, ys):
                d = p[direction]
                if d["worst_condition"] is None:
                    ax.plot(p["nodes"], y, "x", color=color, ms=8)
                else:
                    ax.plot(p["nodes"], y, marker=marker, color=color, ms=6,
                            mfc=color if d["accurate"] else "none")
    ax.axhline(guard_condition(table), color="grey", ls=":", lw=1)
    ax.annotate(f"guard: cond x 2^-53 x {table['safety_factor']:g} = "
                f"{table['target_relative_accuracy']:g}", (points[0]["nodes"],
                                                            guard_condition(table)),
                fontsize=7, xytext=(0, 3), textcoords="offset points")
    ax.set_yscale("log")
    ax.set_xlabel("nodes P (= 3mn; splits s x s and s x (s + 1))")
    ax.set_ylabel("worst condition number of a K-subset decode")
    ax.set_title("decode conditioning against P (filled: float64 decode within "
                 f"{table['target_relative_accuracy']:g}; x: singular)", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    common.save_figure(fig, output)


def draw_stragglers(stragglers: dict[str, Any], tradeoff: dict[str, Any] | None,
                    output: Path) -> None:
    """Expected time of the K-th fastest of P nodes against K, exact lines and Monte Carlo points
    (2 standard errors), with each scheme's forward K at the split whose P = 3mn is this P and,
    as large hollow markers, what each compared scheme's round waits for by its structure."""
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(11, 5))
    p = stragglers["nodes"]
    for i, law in enumerate(stragglers["laws"]):
        ks = [r["k"] for r in law["rows"]]
        label = law["law"] + "(" + ", ".join(f"{k} {v:g}" for k, v in
                                             law["parameters"].items()) + ")"
        ax.plot(ks, [r["expected"] for r in law["rows"]], "-", color=f"C{i}", label=label)
        ax.errorbar(ks, [r["monte_carlo"] for r in law["rows"]],
                    yerr=[2 * r["standard_error"] for r in law["rows"]], fmt="o", color=f"C{i}",
                    ms=3, capsize=2)
    if tradeoff is not None:
        for r in tradeoff["rows"]:
            if r["m"] * r["n"] * tradeoff["redundancy"] != p or r["m"] != r["n"]:
                continue
            marker, color, name = SCHEME_STYLE[r["scheme"]]
            k = r["forward"]["threshold_nodes"]
            ax.axvline(k, color=color, ls=":", lw=1)
            ax.annotate(f"{name} K = {k}", (k, ax.get_ylim()[1]), rotation=90, fontsize=7,
                        va="top", ha="right", color=color)
    # Each compared scheme's round wait by its structure (first law), at its worst-case K: on
    # the curve only for codes that any K nodes decode.
    first = stragglers["laws"][0] if stragglers["laws"] else {}
    for s in first.get("schemes", []):
        w = s["forward"]
        marker, color, name = SCHEME_STYLE.get(s["scheme"], ("x", "k", s["scheme"]))
        ax.plot([w["threshold_nodes"]], [w["monte_carlo"]], marker, color=color, ms=9, mfc="none",
                label=f"{name}: its round's wait by structure ({first['law']})")
    ax.set_xlabel(f"K: results waited for, of P = {p} nodes")
    ax.set_ylabel("expected time of the K-th fastest (nominal task times)")
    ax.set_title(f"stragglers: exact order statistics (lines), Monte Carlo "
                 f"({stragglers['trials']} trials, points +- 2 SE)", fontsize=9)
    ax.set_yscale("log")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))  # off the markers
    fig.tight_layout()
    common.save_figure(fig, output)
