"""The "A run at production scale" section of results/REPORT.md (written by scripts/reproduce,
step SCALE): scenarios/production_scale.json, one simulated day of training on 16,384 nodes with
Llama 3's failure rates, per strategy. Every number and conclusion is computed from the results."""

from __future__ import annotations

import math

import common
import strategy_report

DAY_S = 86400.0


def per_day(point: common.Point, metric: str) -> float | None:
    """Mean of `metric` per simulated day (the run's completion_time_s is its day, or less when
    it finished its iterations first)."""
    value, elapsed_s = point.mean(metric), point.mean("completion_time_s")
    return None if value is None or not elapsed_s else value * DAY_S / elapsed_s


def row(results: common.Results, point: common.Point) -> dict:
    """The numbers the table and the conclusions use, for one strategy."""
    iterations = point.mean("iterations") or 0.0
    elapsed_s = point.mean("completion_time_s") or 0.0
    silent = per_day(point, "silent_corruptions")
    return {
        "label": results.label(point),
        "nodes": strategy_report.nodes_of(point.params.get("/strategy", {})),
        "iterations_per_day": iterations * DAY_S / elapsed_s if elapsed_s else 0.0,
        "time_per_iteration_s": elapsed_s / iterations if iterations else math.inf,
        "crashes": per_day(point, "crashes"),
        "rollbacks": per_day(point, "rollbacks"),
        "corrected": per_day(point, "corrected"),
        "silent": silent,
        # Poisson: the chance of at least one silent corruption in a day at that mean rate.
        "p_silent": None if silent is None else 1.0 - math.exp(-silent),
        "lost_fraction": ((point.mean("time_lost_s") or 0.0) + (point.mean("time_restart_s") or 0.0))
        / elapsed_s if elapsed_s else None,
    }


def table(rows: list[dict]) -> list[str]:
    head = ("| strategy | nodes | useful iterations per day | s per useful iteration | node "
            "crashes per day | rollbacks per day | corrections per day | silent corruptions per day | "
            "P(silent corruption in a day) | time lost and restarting |")
    lines = [head, "|---" * head.count(" |") + "|"]
    for r in rows:
        lines.append(
            f"| {r['label']} | {r['nodes']} | {r['iterations_per_day']:.0f} | "
            f"{r['time_per_iteration_s']:.3f} | {strategy_report.fmt(r['crashes'], 1)} | "
            f"{strategy_report.fmt(r['rollbacks'], 1)} | {strategy_report.fmt(r['corrected'], 1)} | "
            f"{strategy_report.fmt(r['silent'], 1)} | {strategy_report.fmt(r['p_silent'], 3)} | "
            f"{strategy_report.fmt(None if r['lost_fraction'] is None else 100 * r['lost_fraction'], 1)}% |")
    return lines


def conclusions(rows: list[dict]) -> list[str]:
    """Which strategy trains fastest without silent corruption, and what the others pay."""
    trusted = [r for r in rows if (r["silent"] or 0.0) == 0.0]
    fastest = min(rows, key=lambda r: r["time_per_iteration_s"])
    lines = [f"- Fastest per useful iteration: **{fastest['label']}** "
             f"({fastest['time_per_iteration_s']:.3f} s; silent corruptions per day "
             f"{strategy_report.fmt(fastest['silent'], 1)})."]
    if trusted:
        best = min(trusted, key=lambda r: r["time_per_iteration_s"])
        lines.append(f"- Fastest with no silent corruption in the simulated days: **{best['label']}** "
                     f"({best['time_per_iteration_s']:.3f} s per useful iteration, "
                     f"{best['time_per_iteration_s'] / fastest['time_per_iteration_s']:.3f}x the "
                     "fastest).")
    for r in rows:
        if (r["silent"] or 0.0) > 0.0:
            lines.append(f"- {r['label']} trains on wrong numbers: {r['silent']:.1f} silent "
                         f"corruptions per day (P = {r['p_silent']:.3f} of at least one a day).")
    return lines


def network_phrase(results: common.Results) -> str:
    """How the scenario's network costs transfers, as the resolved scenario records it."""
    network = results.scenario.get("cluster", {}).get("network", {})
    model = network.get("model", "flow")
    topology = str(network.get("topology", "fully_connected")).replace("_", " ")
    how = ("flows sharing its links" if model == "flow"
           else "transfers without contention")
    return f"a {topology} network ({model} model: {how})"


def production_section(results: common.Results) -> list[str]:
    replicas = sorted({len(p.replicas) for p in results.points})
    rows = [row(results, p) for p in results.points]
    lines = ["## A run at production scale", "",
             "Not a claim of the papers: scenarios/production_scale.json in stochastic mode, one "
             "simulated day per replica "
             f"({'/'.join(map(str, replicas))} replicas per strategy), 16,384 nodes with the "
             "failure rates of Meta's Llama 3 pre-training (419 unexpected interruptions in 54 "
             "days on 16,384 GPUs: arXiv:2407.21783, Section 3.3.4; per-node MTBF 1.99e8 s, "
             "rack domains of 16 nodes for the 35 switch and cable failures, 1.37e8 s per rack), "
             "16 mercurial nodes erring in 1e-4 of their products and the rest in 1e-12 (an error: "
             "one exponent bit of one value flipped), " + network_phrase(results) + ". The "
             "scenario's description gives every assumption. Means over the replicas. Node crashes "
             "count nodes going down (a rack failure takes 16).", ""]
    lines += table(rows) + [""] + conclusions(rows)
    return lines
