"""The "Coded computing versus ABFT" section of results/REPORT.md (written by scripts/reproduce):
a table of every strategy under every setting of scenarios/abft_vs_coded.json, and conclusions
computed from it (which strategy wins where), never written by hand."""

from __future__ import annotations

from typing import Any, Callable

import common
import strategy_comparison

# Time to this test accuracy (mean over replicas of the first evaluation at or above it).
TARGET_ACCURACY = 0.85
ENERGY = "energy_J"  # the metric and, in results that have it, the accuracy_vs_time column


def nodes_of(strategy: dict[str, Any]) -> int:
    """Nodes a strategy uses (as `codesim codes` counts them): its `nodes` when it names them
    (GPD, MDS), else from its shape."""
    if "nodes" in strategy:
        return strategy["nodes"]
    m, n = strategy.get("m", 1), strategy.get("n", 1)
    scheme = strategy.get("scheme", "uncoded")
    if scheme == "replication":
        return strategy.get("copies", 2) * m * n
    if scheme in ("codenet_grid", "abft_codenet"):
        return m * strategy["grid_cols"] + n * (strategy["grid_rows"] - m)
    return m * n


def at_target(results: common.Results, point: common.Point, column: str) -> float | None:
    """Mean of `column` of accuracy_vs_time at each replica's first evaluation at or above
    TARGET_ACCURACY, over the replicas that reach it (and have a value there); None if none do."""
    values = []
    for replica in point.replicas:
        series = results.series(point, replica, "accuracy_vs_time") or {}
        for v, a in zip(series.get(column, []), series.get("test_accuracy", [])):
            if a is not None and a >= TARGET_ACCURACY:
                if v is not None:
                    values.append(v)
                break
    return sum(values) / len(values) if values else None


def time_to_target(results: common.Results, point: common.Point) -> float | None:
    """Mean simulated time to TARGET_ACCURACY over the replicas that reach it; None if none do."""
    return at_target(results, point, "time_s")


def energy_to_target_kJ(results: common.Results, point: common.Point) -> float | None:
    """Mean energy (kJ) spent up to TARGET_ACCURACY, counted like time_to_target; None if no
    replica reaches it or the series has no energy_J column."""
    energy = at_target(results, point, ENERGY)
    return None if energy is None else energy / 1e3


def rows_by_setting(results: common.Results) -> dict[str, list[dict[str, Any]]]:
    keys = strategy_comparison.setting_keys(results)
    table: dict[str, list[dict[str, Any]]] = {}
    for p in results.points:
        setting = "; ".join(strategy_comparison.short_text(p.params.get(k)) for k in keys)
        table.setdefault(setting, []).append({
            "strategy": results.label(p),
            "nodes": nodes_of(p.params.get("/strategy", {})),
            "time": p.mean("completion_time_s"),
            "target": time_to_target(results, p),
            "accuracy": p.mean("final_test_accuracy"),
            "rollbacks": p.mean("rollbacks"),
            "corrected": p.mean("corrected"),
            "silent": p.mean("silent_corruptions") or 0.0,
            "energy_kJ": (p.mean(ENERGY) / 1e3) if p.mean(ENERGY) is not None else None,
            "energy_target_kJ": energy_to_target_kJ(results, p),
        })
    return table


def fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def winner(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest strategy a user could trust: no silent corruption, and an accuracy within 0.5
    points of the best such strategy's."""
    clean = [r for r in rows if r["silent"] == 0] or rows
    best = max(r["accuracy"] for r in clean)
    return min((r for r in clean if r["accuracy"] >= best - 0.005), key=lambda r: r["time"])


def least_energy(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The trusted strategy (as winner() counts trust) that spent the least energy; None when the
    results have no energy."""
    clean = [r for r in rows if r["silent"] == 0 and r["energy_kJ"] is not None]
    if not clean:
        return None
    best = max(r["accuracy"] for r in clean)
    return min((r for r in clean if r["accuracy"] >= best - 0.005), key=lambda r: r["energy_kJ"])


def conclusions(table: dict[str, list[dict[str, Any]]]) -> list[str]:
    lines = []
    for setting, rows in table.items():
        w = winner(rows)
        by_name = {r["strategy"]: r for r in rows}
        abft = next((r for n, r in by_name.items() if n.startswith("abft ")), None)
        codenet = next((r for n, r in by_name.items() if n.startswith("codenet")), None)
        text = f"- **{setting}**: fastest trusted strategy {w['strategy']} ({w['time']:.2f} s)"
        if abft and codenet:
            faster = "ABFT" if abft["time"] < codenet["time"] else "CodeNet"
            text += (f"; ABFT {abft['time']:.2f} s ({abft['rollbacks']:.0f} rollbacks) against "
                     f"CodeNet {codenet['time']:.2f} s ({codenet['rollbacks']:.0f}): "
                     f"{faster} is faster")
        silent = [r["strategy"] for r in rows if r["silent"] > 0]
        if silent:
            text += f"; silent corruptions only under {', '.join(silent)}"
        frugal = least_energy(rows)
        if frugal is not None:
            text += (f"; least energy among the trusted: {frugal['strategy']} "
                     f"({frugal['energy_kJ']:.2f} kJ)")
        lines.append(text + ".")
    return lines


def iteration_s(results: common.Results, label: str) -> float | None:
    """A strategy's simulated time per executed iteration without checkpoints, restarts, lost
    work or evaluations (compute, communication, decode), over its points; None without data."""
    times = []
    for p in results.points:
        if results.label(p) != label or not p.mean("iterations_executed"):
            continue
        busy = sum(p.mean(f"time_{k}_s") or 0.0 for k in ("compute", "communication", "decode"))
        times.append(busy / p.mean("iterations_executed"))
    return min(times) if times else None


def crossover_lines(results: common.Results, expected_time: Callable[..., float]) -> list[str]:
    """Where ABFT and CodeNet trade places as epsilon grows, from the closed forms:
    expected_time(scheme_label, eps, fault, iteration_s) is `codesim theory`'s expected time per
    useful iteration at the optimal checkpoint interval."""
    labels = [results.label(p) for p in results.points]
    abft = next((x for x in labels if x.startswith("abft ")), None)
    codenet = next((x for x in labels if x.startswith("codenet")), None)
    if abft is None or codenet is None:
        return []
    t_abft, t_codenet = iteration_s(results, abft), iteration_s(results, codenet)
    if t_abft is None or t_codenet is None:
        return []
    grid = [10 ** (-6 + k / 10) for k in range(41)]  # 1e-6 .. 1e-2
    lines = ["", f"Where the curves cross (closed forms of `codesim theory` at each strategy's "
                 f"optimal checkpoint interval, with the iteration times measured here: "
                 f"{abft} {1e3 * t_abft:.3f} ms, {codenet} {1e3 * t_codenet:.3f} ms; epsilon "
                 "from 1e-6 to 1e-2 per node per operation, weight strikes):", ""]
    for fault in ("sparse_additive", "bitflip"):
        faster = []
        for eps in grid:
            a = expected_time(abft, eps, fault, t_abft)
            c = expected_time(codenet, eps, fault, t_codenet)
            faster.append("ABFT" if a < c else "CodeNet")
        # Segments of the epsilon range with the same faster strategy.
        segments = []
        for eps, who in zip(grid, faster):
            if segments and segments[-1][0] == who:
                segments[-1][2] = eps
            else:
                segments.append([who, eps, eps])
        where = "; ".join(f"{who} is faster from epsilon = {lo:.2g} to {hi:.2g}"
                          for who, lo, hi in segments)
        name = {"sparse_additive": "sparse additive (0.5% of a block)",
                "bitflip": "single bit flips (any bit)"}.get(fault, fault)
        lines.append(f"- {name}: {where}.")
    return lines


def table_lines(results: common.Results, table: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The markdown table; the energy columns only for results that carry energy (mean energy
    with the energy_J metric, energy to target with the accuracy_vs_time energy_J column), so
    older results keep the table they had."""
    energy = any(p.mean(ENERGY) is not None for p in results.points)
    energy_target = common.has_column(results, "accuracy_vs_time", ENERGY)
    head = ("| setting | strategy | nodes | time (s) | time to target (s) | final accuracy (%) "
            "| rollbacks | corrected | silent corruptions |")
    head += " energy (kJ) |" * energy + " energy to target (kJ) |" * energy_target
    lines = [head, "|---" * head.count(" |") + "|"]
    for setting, rows in table.items():
        for r in rows:
            line = (f"| {setting} | {r['strategy']} | {r['nodes']} | {fmt(r['time'])} | "
                    f"{fmt(r['target'])} | {fmt(100 * r['accuracy'])} | "
                    f"{fmt(r['rollbacks'], 1)} | {fmt(r['corrected'], 1)} | "
                    f"{fmt(r['silent'], 1)} |")
            line += f" {fmt(r['energy_kJ'])} |" * energy
            line += f" {fmt(r['energy_target_kJ'])} |" * energy_target
            lines.append(line)
    return lines


def abft_section(results: common.Results,
                 expected_time: Callable[..., float] | None = None) -> list[str]:
    """The report section's lines (markdown)."""
    table = rows_by_setting(results)
    replicas = {len(p.replicas) for p in results.points}
    energy = ""
    if any(p.mean(ENERGY) is not None for p in results.points):
        energy = (" Energy: `energy_J` with the default `cluster.power` (scenarios/README.md); "
                  "energy to target: the energy spent up to that evaluation.")
    lines = ["## Coded computing versus ABFT", "",
             "Not a claim of the papers: the practical competitor, under the same faults "
             "(scenarios/abft_vs_coded.json, "
             f"{'/'.join(str(r) for r in sorted(replicas))} replicas per point, means). "
             "ABFT keeps checksum rows and columns in every block and corrects at the node; "
             "abft_codenet adds them to the CodeNet grid. Time to target: first evaluation at "
             f"{100 * TARGET_ACCURACY:.0f}% test accuracy or more. Silent corruptions: steps "
             f"whose loss differs from an error-free shadow's.{energy}", ""]
    lines += table_lines(results, table)
    lines += ["", "Which strategy wins where (computed from the table):", ""]
    lines += conclusions(table)
    if expected_time is not None:
        lines += crossover_lines(results, expected_time)
    lines += ["", f"![{results.name}.strategy_comparison.png]"
                  f"(../figures/{results.name}.strategy_comparison.png)"]
    return lines
