"""The "Energy" section of results/REPORT.md (written by scripts/reproduce): what each strategy
spends at the CodeNet paper's configuration (stochastic mode) and in the quickstart (numeric, with
the energy to reach the target accuracy). Tables and conclusions are computed from the results,
never written by hand."""

from __future__ import annotations

import common
import strategy_report

PARTS = ("compute", "idle", "network", "checkpoint", "restart", "lost")


def fmt_ci(point: common.Point, metric: str, scale: float = 1.0, digits: int = 1) -> str:
    """'mean +- ci95' of `metric` times `scale`; '-' when absent."""
    mean = point.mean(metric)
    if mean is None:
        return "-"
    ci = point.ci95(metric)
    text = f"{scale * mean:.{digits}f}"
    # No interval when it rounds to zero (replicas that agree, like an error-free run's).
    if not ci or round(scale * ci, digits) == 0:
        return text
    return f"{text} +- {scale * ci:.{digits}f}"


def per_useful_iteration_J(point: common.Point) -> float | None:
    """Mean energy per useful iteration (energy_J / iterations), None without the metrics."""
    energy, iterations = point.mean("energy_J"), point.mean("iterations")
    return None if energy is None or not iterations else energy / iterations


def paper_table(results: common.Results) -> list[str]:
    """One row per strategy: nodes, time, energy and its breakdown (kJ), J per useful iteration."""
    head = ("| strategy | nodes | time (s) | energy (kJ) | J per useful iteration | "
            + " | ".join(f"{p} (kJ)" for p in PARTS) + " |")
    lines = [head, "|---" * head.count(" |") + "|"]
    for p in results.points:
        per_iteration = per_useful_iteration_J(p)
        lines.append(
            f"| {results.label(p)} | {strategy_report.nodes_of(p.params.get('/strategy', {}))} | "
            f"{fmt_ci(p, 'completion_time_s')} | {fmt_ci(p, 'energy_J', 1e-3)} | "
            f"{strategy_report.fmt(per_iteration, 1)} | "
            + " | ".join(strategy_report.fmt(_kJ(p.mean(f"energy_{part}_J")), 1)
                         for part in PARTS) + " |")
    return lines


def _kJ(joules: float | None) -> float | None:
    return None if joules is None else joules / 1e3


def find(results: common.Results, prefix: str) -> common.Point | None:
    """The first point whose label starts with `prefix`."""
    return next((p for p in results.points if results.label(p).startswith(prefix)), None)


def paper_conclusion(results: common.Results) -> list[str]:
    """CodeNet against replication: their energy ratio, and where replication's extra goes."""
    codenet, replication = find(results, "codenet"), find(results, "replication")
    if codenet is None or replication is None:
        return []
    e_c, e_r = codenet.mean("energy_J"), replication.mean("energy_J")
    if not e_c or not e_r:
        return []
    overhead = sum(replication.mean(f"energy_{k}_J") or 0.0 for k in ("checkpoint", "restart",
                                                                        "lost"))
    reference = find(results, "error-free")
    text = (f"- CodeNet spends {e_c / e_r:.2f}x the energy of replication "
            f"({e_c / 1e3:.0f} against {e_r / 1e3:.0f} kJ) with {codenet.mean('rollbacks'):.1f} "
            f"rollbacks against {replication.mean('rollbacks'):.0f}; "
            f"{100 * overhead / e_r:.0f}% of replication's energy goes to checkpoints, "
            "restarts and work rolled back")
    if reference is not None and reference.mean("energy_J"):
        text += (f"; against the error-free run CodeNet costs "
                 f"{e_c / reference.mean('energy_J'):.2f}x, replication "
                 f"{e_r / reference.mean('energy_J'):.2f}x")
    return [text + "."]


def quickstart_table(results: common.Results) -> list[str]:
    """Energy and energy to the target accuracy per strategy of a numeric training run."""
    target = f"{100 * strategy_report.TARGET_ACCURACY:.0f}%"
    lines = [f"| strategy | nodes | energy (kJ) | energy to {target} (kJ) | "
             f"time to {target} (s) | final accuracy (%) |", "|---|---|---|---|---|---|"]
    for p in results.points:
        accuracy = p.mean("final_test_accuracy")
        lines.append(
            f"| {results.label(p)} | {strategy_report.nodes_of(p.params.get('/strategy', {}))} | "
            f"{fmt_ci(p, 'energy_J', 1e-3, 2)} | "
            f"{strategy_report.fmt(strategy_report.energy_to_target_kJ(results, p))} | "
            f"{strategy_report.fmt(strategy_report.time_to_target(results, p))} | "
            f"{strategy_report.fmt(None if accuracy is None else 100 * accuracy)} |")
    return lines


def energy_section(paper: common.Results, quickstart: common.Results | None) -> list[str]:
    """The report section's lines (markdown): `paper` is the paper configuration in stochastic
    mode, `quickstart` the numeric quickstart (None: left out)."""
    replicas = sorted({len(p.replicas) for p in paper.points})
    lines = ["## Energy", "",
             "Not a claim of the papers: the joules each strategy spends, with the default "
             "`cluster.power` (300 W busy, 150 W idle per node, 2e-8 J per network byte, 3e-8 J "
             "per checkpoint byte; sources in scenarios/README.md). Means +- 95% intervals.", "",
             f"At the CodeNet paper's configuration (scenarios/codenet_mnist_paper.json: "
             f"784-10000-10000-10, batch 1, 8000 iterations, epsilon = 3e-4) in stochastic mode "
             f"({'/'.join(map(str, replicas))} replicas; the same protocol, time and energy model "
             "without the arithmetic):", ""]
    lines += paper_table(paper) + [""] + paper_conclusion(paper)
    if quickstart is not None:
        lines += ["", "The quickstart (numeric, MNIST, 784-280-280-10; energy to the target: "
                      "the energy spent up to each replica's first evaluation at or above it, "
                      "averaged):", ""]
        lines += quickstart_table(quickstart)
        lines += ["", f"![{quickstart.name}.energy_vs_accuracy.png]"
                      f"(../figures/{quickstart.name}.energy_vs_accuracy.png)"]
    return lines

