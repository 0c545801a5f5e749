"""What T4 and T8 share: the closed-form rollback probability per iteration attempt at a
checkpoint every iteration (tau = 1) from `codesim theory`, and how many Monte Carlo points'
95% intervals hold it."""

from __future__ import annotations

import math

from .context import codesim_json, interp, slope


def closed_form_line(label: str, options: list[str], eps_grid: list[float],
                     eps_options, slope_below: float) -> dict:
    """{label, eps, q, slope}: q = 1 - 1 / (protocol executions per iteration) at tau = 1 for
    each eps of eps_grid, `eps_options(eps)` giving the theory's strike options; the slope of
    log q against log eps over eps <= slope_below."""
    q = []
    for eps in eps_grid:
        t = codesim_json(["theory", *options, *eps_options(eps), "--tau", "1", "--json"])
        first = next(i for i in t["intervals"] if i["tau"] == 1)
        q.append(1.0 - 1.0 / first["protocol_executions_per_iteration"])
    low = [(e, v) for e, v in zip(eps_grid, q) if e <= slope_below and v > 0]
    return {"label": label, "eps": eps_grid, "q": q,
            "slope": slope([e for e, _ in low], [v for _, v in low])}


def predicted(line: dict, eps: float) -> float:
    """The line at eps, interpolated on log-log axes."""
    return float(10 ** interp(math.log10(eps), [math.log10(e) for e in line["eps"]],
                              [math.log10(max(v, 1e-300)) for v in line["q"]]))


def points_inside(rows: list[dict], line: dict) -> tuple[int, list[str]]:
    """How many rows' 95% intervals (rollback_estimates) hold the line, and each row's
    measured / predicted."""
    inside, ratios = 0, []
    for row in rows:
        at = predicted(line, row["eps"])
        inside += row["lo"] <= at <= row["hi"]
        ratios.append(f"{row['q'] / at:.2f}" if at > 0 else "-")
    return inside, ratios
