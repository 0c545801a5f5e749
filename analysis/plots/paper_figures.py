#!/usr/bin/env python3
"""The papers' figures T2-T6 (scripts/reproduce draws them): decode success versus erroneous
nodes, errors tolerated versus nodes, rollback probability versus epsilon, expected time
versus checkpoint interval and accuracy versus runtime, from codesim's `codes`, `theory` and
`run` JSON outputs."""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any, Sequence

import common
import sweep_figures

EPS_PARAM = "/faults/targets/weights/probability_per_operation"
TAU_PARAM = "/checkpoint/every_iterations"


def load_json(path: str | Path) -> Any:
    """A JSON document; InputError when it cannot be read or parsed."""
    common.note_input(path)
    try:
        return json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise common.InputError(path, f"cannot read JSON ({exc})") from exc


def wilson95(successes: float, trials: float) -> tuple[float, float, float]:
    """Proportion and its 95% Wilson interval (lo, hi)."""
    if trials <= 0:
        return math.nan, math.nan, math.nan
    z = 1.959963984540054
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # Clamped to [0, p] and [p, 1]: round-off must not put p outside its own interval.
    return p, min(p, max(0.0, centre - half)), max(p, min(1.0, centre + half))


def log_axes(ax: Any, xlabel: str, ylabel: str, title: str) -> None:
    """Log-log axes with their labels, title and a small legend."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7)


def rollback_estimates(results: common.Results) -> dict[str, list[dict[str, float]]]:
    """Per point label: rollback probability per iteration attempt, rollbacks / (rollbacks +
    useful iterations) pooled over replicas, with its Wilson interval, by epsilon."""
    by_label: dict[str, list[dict[str, float]]] = {}
    for point in results.points:
        eps = point.params.get(EPS_PARAM)
        if not common.is_number(eps):
            raise results.error(f"point {point.index} has no numeric {EPS_PARAM}")
        rollbacks = sum(float(r.get("rollbacks", 0)) for r in point.replicas)
        useful = sum(float(r.get("iterations", 0)) for r in point.replicas)
        q, lo, hi = wilson95(rollbacks, rollbacks + useful)
        by_label.setdefault(results.label(point), []).append(
            {"eps": float(eps), "q": q, "lo": lo, "hi": hi, "rollbacks": rollbacks,
             "attempts": rollbacks + useful, "replicas": len(point.replicas)})
    return by_label


def draw_decode_success(trials: dict[str, Any], output: Path) -> None:
    """T2: success rate versus erroneous nodes, per direction and error model."""
    plt = common.pyplot()
    decode = trials.get("decode_trials")
    if not isinstance(decode, dict):
        raise common.InputError(output, "no decode_trials in the codes JSON")
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    for ax, direction in zip(axes, ("forward", "backward")):
        symbols = decode[direction]["symbols"]
        threshold = trials["recovery_threshold"][direction]
        for model, style in (("adversarial", "o-"), ("random", "s--")):
            rows = decode[direction]["by_model"][model]
            bounds = [wilson95(r["exact"], decode["trials"]) for r in rows]
            ax.errorbar([r["errors"] for r in rows], [100 * p for p, _, _ in bounds],
                        yerr=[[100 * (p - lo) for p, lo, _ in bounds],
                              [100 * (hi - p) for p, _, hi in bounds]],
                        fmt=style, capsize=3, label=f"random values, {model} decoder (95% CI)")
        worst = decode[direction].get("adversarial_values")
        if worst:  # worst-case values under the adversarial decoder: exact and wrong decodes
            rows, n = worst["rows"], decode.get("adversarial_trials", decode["trials"])
            for key, style, color, label in (
                    ("exact", "^-", "C2", "worst-case values, exact"),
                    ("wrong", "x:", "C3", "worst-case values, wrong (silent)")):
                bounds = [wilson95(r[key], n) for r in rows]
                ax.errorbar([r["errors"] for r in rows], [100 * p for p, _, _ in bounds],
                            yerr=[[100 * (p - lo) for p, lo, _ in bounds],
                                  [100 * (hi - p) for p, _, hi in bounds]],
                            fmt=style, color=color, capsize=3, label=f"{label} (n = {n})")
            ax.axvline(worst["detects"] + 0.1, color="C3", lw=0.8, ls=":",
                       label=f"detection bound P-K-t = {worst['detects']}")
        ax.axvline((symbols - threshold) // 2, color="C0", lw=0.8, ls=":",
                   label=f"floor((P-K)/2) = {(symbols - threshold) // 2}")
        ax.axvline(symbols - threshold - 1, color="C1", lw=0.8, ls=":",
                   label=f"P-K-1 = {symbols - threshold - 1}")
        ax.set_title(f"{direction}: P = {symbols}, K = {threshold}")
        ax.set_xlabel("erroneous nodes per decode")
        ax.legend(fontsize=8)
    axes[0].set_ylabel(f"exact (or wrong) decodes (%), n = {decode['trials']} per point")
    params = ", ".join(f"{k} {v}" for k, v in trials["parameters"].items())
    random_clean = all(r["wrong"] == 0 for d in ("forward", "backward")
                       for rows in decode[d]["by_model"].values() for r in rows)
    # Worst-case values may fool the decoder only beyond its detection bound.
    worst_clean = all(r["wrong"] == 0 for d in ("forward", "backward")
                      for r in decode[d].get("adversarial_values", {}).get("rows", [])
                      if r["errors"] <= decode[d]["adversarial_values"]["detects"])
    title = f"T2 decode success, {trials['scheme']} ({params})"
    if random_clean and worst_clean:
        title += ("; none wrong within the bounds" if "adversarial_values" in decode["forward"]
                  else "; no wrong product returned")
    fig.suptitle(title)
    common.save_figure(fig, output)


def draw_tolerance(table: dict[str, Any], output: Path) -> None:
    """T3: errors tolerated versus nodes at equal storage, and GPD's gain over replication."""
    plt = common.pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    rows = table["rows"]
    nodes = [r["nodes"] for r in rows]
    series = (("gpd_forward", "GPD forward"), ("gpd_backward", "GPD backward"),
              ("codenet", "CodeNet grid"), ("mds", "MDS (row + column copies)"),
              ("replication_correctable", "replication (correct)"),
              ("replication_detectable", "replication (detect)"))
    # Lines overlap where schemes tie: thinner and dashed later ones keep every line visible.
    styles = ("-", "-", "--", "-.", ":", (0, (5, 1)))
    for i, (key, label) in enumerate(series):
        xs = [n for n, r in zip(nodes, rows) if r.get(key) is not None]
        ys = [r[key] for r in rows if r.get(key) is not None]
        left.step(xs, ys, where="post", label=label, ls=styles[i], lw=3.0 - 0.4 * i)
    left.set_xlabel("nodes P")
    left.set_ylabel("erroneous nodes corrected per decode (worst case)")
    left.set_title(f"T3: m = {table['m']}, n = {table['n']}, each node stores 1/(mn) of W")
    left.legend(fontsize=8)
    ratio = table["ratio"]
    right.plot([r["blocks"] for r in ratio], [r["ratio_at_3mn"] for r in ratio], "o-",
               label="corrected, GPD forward / replication at P = 3mn")
    # Older tables lack the backward column; training needs both products.
    if all("training_ratio_at_3mn" in r for r in ratio):
        right.plot([r["blocks"] for r in ratio], [r["training_ratio_at_3mn"] for r in ratio],
                   "^-", label="over both products (a training round) at P = 3mn")
    right.plot([r["blocks"] for r in ratio], [r["detection_ratio_at_2mn"] for r in ratio], "s--",
               label="GPD corrected / replication detected at P = 2mn")
    right.set_xlabel("blocks mn (square splits)")
    right.set_ylabel("ratio of errors tolerated")
    right.set_title("GPD's gain grows without bound")
    right.legend(fontsize=8)
    common.save_figure(fig, output)


def draw_rollback_vs_epsilon(monte_carlo: Sequence[tuple[str, common.Results]],
                             theory: dict[str, Any], output: Path) -> None:
    """T4: rollback probability per iteration attempt versus epsilon, Monte Carlo points with
    95% Wilson intervals on the closed-form lines."""
    fig, ax = common.new_figure(7.2, 5.0)
    colours: dict[str, str] = {}
    for i, line in enumerate(theory["schemes"]):
        colours[line["label"]] = f"C{i}"
        ax.plot(line["eps"], line["q"], "-", color=colours[line["label"]],
                label=f"{line['label']}: theory (slope {line['slope']:.2f})")
    markers = ("o", "^", "s", "v")
    for m, (mode, results) in enumerate(monte_carlo):
        for label, rows in rollback_estimates(results).items():
            shown = [r for r in rows if r["rollbacks"] > 0]
            if not shown:
                continue
            ys = [r["q"] for r in shown]
            ax.errorbar([r["eps"] for r in shown], ys,
                        yerr=[[y - r["lo"] for y, r in zip(ys, shown)],
                              [r["hi"] - y for y, r in zip(ys, shown)]],
                        fmt=markers[m % len(markers)], color=colours.get(label, "k"), capsize=3,
                        mfc="none" if m else None,
                        label=f"{label}: {mode} ({common.replica_count_text([r['replicas'] for r in shown])})")
    log_axes(ax, theory.get("xlabel", "epsilon, strike probability per node per operation"),
             "rollback probability per iteration attempt",
             theory.get("title",
                        "T4: rollbacks versus epsilon (checkpoint every iteration), 95% CI"))
    common.save_figure(fig, output)


def per_useful_iteration(monte_carlo: common.Results, metric: str,
                         ) -> dict[str, list[tuple[float, float, float, int]]]:
    """Per label, (tau, mean, 95% half-width, replicas) of `metric` / iterations over the
    replicas that finished, sorted by tau."""
    by_label: dict[str, list[tuple[float, float, float, int]]] = {}
    for point in monte_carlo.points:
        tau = point.params.get(TAU_PARAM)
        values = [float(r[metric]) / float(r["iterations"]) for r in point.replicas
                  if r.get("completed") and r.get("iterations") and common.is_number(r.get(metric))]
        if not common.is_number(tau) or not values:
            continue
        mean = sum(values) / len(values)
        half = 0.0
        if len(values) > 1:
            var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
            half = common.student_t95(len(values) - 1) * math.sqrt(var / len(values))
        by_label.setdefault(monte_carlo.label(point), []).append((float(tau), mean, half,
                                                                  len(values)))
    for rows in by_label.values():
        rows.sort()
    return by_label


def draw_against_tau(ax: Any, theory: dict[str, Any], rows_by_label: dict[str, list],
                     key: str, scale: float, colours: dict[str, str]) -> None:
    """Closed-form lines (theory schemes' `key` per tau, dotted at the optimal tau) and Monte
    Carlo points with 95% intervals, both times `scale`; y limited to 0.5x the fastest and 30x
    the slowest measured point (the closed form explodes for replication at long intervals)."""
    for line in theory["schemes"]:
        if key not in line:
            continue
        colour = colours[line["label"]]
        ax.plot(line["tau"], [scale * t for t in line[key]], "-", color=colour,
                label=f"{line['label']}: theory")
        ax.axvline(line["optimal_tau"], color=colour, ls=":", lw=0.8)
    for label, rows in rows_by_label.items():
        ax.errorbar([r[0] for r in rows], [scale * r[1] for r in rows],
                    yerr=[scale * r[2] for r in rows], fmt="o", capsize=3,
                    color=colours.get(label, "k"),
                    label=f"{label}: Monte Carlo ({common.replica_count_text([r[3] for r in rows])})")
    measured = [scale * r[1] for rows in rows_by_label.values() for r in rows]
    if measured:
        ax.set_ylim(0.5 * min(measured), 30 * max(measured))


def per_useful_iteration_of_all(runs: Sequence[common.Results], metric: str,
                                ) -> dict[str, list[tuple[float, float, float, int]]]:
    """per_useful_iteration over several results files (their labels differ)."""
    rows: dict[str, list[tuple[float, float, float, int]]] = {}
    for monte_carlo in runs:
        rows.update(per_useful_iteration(monte_carlo, metric))
    return rows


def draw_time_vs_checkpoint(runs: Sequence[common.Results], theory: dict[str, Any],
                            output: Path) -> None:
    """T5: time per useful iteration versus the checkpoint interval (Monte Carlo with 95% CI
    from every results file of `runs`, and the closed form with measured costs), the closed
    form at the optimal interval versus epsilon, and, when the theory has energy, the energy per
    useful iteration versus the interval the same way as the time."""
    plt = common.pyplot()
    energy = any("energy_per_iteration_J" in line for line in theory["schemes"])
    if energy:
        fig, (left, right, third) = plt.subplots(1, 3, figsize=(17.0, 4.4))
    else:
        fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
    colours = {line["label"]: f"C{i}" for i, line in enumerate(theory["schemes"])}
    for line in theory["schemes"]:
        right.plot(line["vs_eps"]["eps"], [1e3 * t for t in line["vs_eps"]["time_per_iteration_s"]],
                   "-", color=colours[line["label"]],
                   label=f"{line['label']} at its optimal interval")
    draw_against_tau(left, theory, per_useful_iteration_of_all(runs, "completion_time_s"),
                     "time_per_iteration_s", 1e3, colours)
    log_axes(left, "checkpoint interval tau (iterations); dotted: optimal tau",
             "simulated time per useful iteration (ms)", f"T5 at epsilon = {theory['eps']:g}")
    log_axes(right, "epsilon", "time per useful iteration at the optimal tau (ms)",
             "T5: expected time versus epsilon (closed form)")
    if energy:
        draw_against_tau(third, theory, per_useful_iteration_of_all(runs, "energy_J"),
                         "energy_per_iteration_J", 1.0, colours)
        log_axes(third, "checkpoint interval tau (iterations); dotted: optimal tau (time)",
                 "energy per useful iteration (J)",
                 f"energy at epsilon = {theory['eps']:g} (default cluster.power)")
    common.save_figure(fig, output)


def draw_time_across_costs(theory: dict[str, Any], output: Path) -> None:
    """T5 across the cost the project chose: each strategy's expected time per useful iteration
    at its optimal interval against the checkpoint and restart cost (each, in iterations of that
    strategy), and the first strategy's (CodeNet's) over each other's."""
    plt = common.pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11.5, 4.4))
    vs_cost = theory["vs_cost"]
    for i, line in enumerate(vs_cost["schemes"]):
        iteration_s = theory["schemes"][i]["iteration_s"]
        left.plot(vs_cost["ratio"], [t / iteration_s for t in line["time_per_iteration_s"]],
                  "o-", color=f"C{i}", label=line["label"])
    first = vs_cost["schemes"][0]
    for i, other in enumerate(vs_cost["schemes"][1:], start=1):
        right.plot(vs_cost["ratio"], [a / b for a, b in zip(first["time_per_iteration_s"],
                                                            other["time_per_iteration_s"])],
                   "o-", color=f"C{i}", label=f"{first['label']} / {other['label']}")
    right.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    log_axes(left, "checkpoint and restart cost (iterations each)",
             "time per useful iteration at the optimal tau (iterations)",
             f"T5 across checkpoint costs (closed form, epsilon = {theory['eps']:g})")
    log_axes(right, "checkpoint and restart cost (iterations each)",
             "ratio of the optimal times (seconds)",
             f"below 1: {first['label'].split()[0]} faster")
    common.save_figure(fig, output)


def t6_rows(runs: Sequence[common.Results]) -> list[dict[str, Any]]:
    """Every labelled strategy of the T6 runs: label, mean completion time and final test
    accuracy with their 95% half-widths (0 when absent)."""
    rows = []
    for results in runs:
        for p in results.points:
            time, accuracy = p.mean("completion_time_s"), p.mean("final_test_accuracy")
            if time is None or accuracy is None:
                raise results.error(f"points[{p.index}]: no completion_time_s or "
                                    "final_test_accuracy (expected training results)")
            rows.append({"label": results.label(p), "time": time, "accuracy": accuracy,
                         "time_ci": p.ci95("completion_time_s") or 0.0,
                         "accuracy_ci": p.ci95("final_test_accuracy") or 0.0})
    return rows


def draw_accuracy_vs_runtime(runs: Sequence[common.Results], output: Path) -> None:
    """T6: each strategy's mean final test accuracy against its mean completion time (95%
    intervals), over all the runs given; the best trade-off is up and to the left."""
    plt = common.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.8))
    for i, row in enumerate(t6_rows(runs)):
        ax.errorbar([row["time"]], [100 * row["accuracy"]], xerr=[row["time_ci"]],
                    yerr=[100 * row["accuracy_ci"]], fmt="os^vDP*X"[i % 8], color=f"C{i % 10}",
                    capsize=3, label=f"{row['label']}: {100 * row['accuracy']:.2f}% at "
                                     f"{row['time']:.2f} s")
    ax.set_xscale("log")
    plain = plt.FuncFormatter(lambda value, _: f"{value:g}")
    ax.xaxis.set_major_formatter(plain)
    ax.xaxis.set_minor_formatter(plain)
    ax.tick_params(axis="x", which="minor", labelsize=7)
    ax.set_xlabel("mean simulated completion time (s, log scale)")
    ax.set_ylabel("mean final test accuracy (%)")
    ax.set_title("T6: accuracy against runtime on MNIST (eps = 3e-4; best: up and left)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    common.save_figure(fig, output)


# The sweeps extending T1-T3 (sweep_figures.py), each drawn from `codesim theory --table KIND`.
SWEEP_KINDS = ("tradeoff", "tolerance_grid", "conditioning", "stragglers")


def draw_sweep(kind: str, inputs: Sequence[Path], output: Path) -> None:
    table = load_json(inputs[0])
    if table.get("table") != kind:
        raise common.InputError(inputs[0], f"is not a `--table {kind}` output")
    if kind == "stragglers":
        sweep_figures.draw_stragglers(table, load_json(inputs[1]) if len(inputs) > 1 else None,
                                      output)
    else:
        getattr(sweep_figures, f"draw_{kind}")(table, output)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("figure",
                        choices=("t2", "t3", "t4", "t5", "t5cost", "t6", *SWEEP_KINDS))
    parser.add_argument("inputs", nargs="+", type=Path,
                        help="t2: CODES.json; t3: TOLERANCE.json; t4: THEORY.json "
                             "MODE=RESULTS.json...; t5: THEORY.json RESULTS.json...; t5cost: "
                             "THEORY.json with vs_cost; t6: RESULTS.json... (training); "
                             "tradeoff, tolerance_grid, conditioning: the table's JSON; "
                             "stragglers: STRAGGLERS.json [TRADEOFF.json]")
    parser.add_argument("-o", "--output", type=Path, required=True, help="PNG file to write")
    args = parser.parse_args(argv)
    try:
        if args.figure == "t2":
            draw_decode_success(load_json(args.inputs[0]), args.output)
        elif args.figure == "t3":
            draw_tolerance(load_json(args.inputs[0]), args.output)
        elif args.figure == "t4":
            runs = []
            for item in args.inputs[1:]:
                mode, _, path = str(item).partition("=")
                runs.append((mode, common.load_results(path)))
            draw_rollback_vs_epsilon(runs, load_json(args.inputs[0]), args.output)
        elif args.figure in SWEEP_KINDS:
            draw_sweep(args.figure, args.inputs, args.output)
        elif args.figure == "t6":
            draw_accuracy_vs_runtime([common.load_results(f) for f in args.inputs], args.output)
        elif args.figure == "t5cost":
            draw_time_across_costs(load_json(args.inputs[0]), args.output)
        else:
            draw_time_vs_checkpoint([common.load_results(f) for f in args.inputs[1:]],
                                    load_json(args.inputs[0]), args.output)
    except (common.InputError, KeyError, IndexError, TypeError) as exc:
        print(exc if isinstance(exc, common.InputError) else f"error: bad input ({exc!r})",
              file=sys.stderr)
        return common.EXIT_BAD_INPUT
    except OSError as exc:
        common.report_write_error(args.output, exc)
        return common.EXIT_ENVIRONMENT
    print(args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
