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


def _log_likelihood(rows: list[dict], a: float, b: float) -> float:
    """Binomial log-likelihood of the rows' rollbacks among their attempts when
    log(-log(1 - q)) = a + b log eps (the complementary log-log link: q = 1 - (1 - eps)^n has
    slope 1 exactly, a rate quadratic in eps slope 2)."""
    total = 0.0
    for row in rows:
        eta = a + b * math.log(row["eps"])
        hazard = math.exp(min(eta, 50.0))
        log_survive = -hazard  # log(1 - q)
        log_fail = math.log(-math.expm1(-hazard)) if hazard > 1e-300 else -math.inf
        k, n = row["rollbacks"], row["attempts"]
        if k > 0:
            total += k * log_fail
        total += (n - k) * log_survive
    return total


def _best_intercept(rows: list[dict], b: float) -> tuple[float, float]:
    """The intercept that maximizes the likelihood at slope b (a concave function of a:
    golden-section search over a wide bracket), and that likelihood."""
    lo, hi = -80.0, 80.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = _log_likelihood(rows, x1, b), _log_likelihood(rows, x2, b)
    for _ in range(120):
        if f1 < f2:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = _log_likelihood(rows, x2, b)
        else:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = _log_likelihood(rows, x1, b)
    a = (lo + hi) / 2.0
    return a, _log_likelihood(rows, a, b)


def slope_interval(rows: list[dict]) -> dict | None:
    """The slope of the rollback rate against eps pooled over every point (rows of
    paper_figures.rollback_estimates: eps, rollbacks, attempts): the maximum-likelihood slope of
    the complementary log-log of q against log eps, and its 95% profile-likelihood interval
    (slopes whose profile log-likelihood lies within 1.92 of the best). None with fewer than two
    points, or without two points that roll back."""
    used = [r for r in rows if r["attempts"] > 0]
    if len(used) < 2 or sum(1 for r in used if r["rollbacks"] > 0) < 2:
        return None
    grid = [0.02 * i for i in range(1, 301)]  # slopes 0.02 .. 6
    profile = [(b, _best_intercept(used, b)[1]) for b in grid]
    best_b, best = max(profile, key=lambda item: item[1])
    inside = [b for b, value in profile if value >= best - 1.92]
    return {"slope": best_b, "lo": min(inside), "hi": max(inside),
            "points": len(used), "rollbacks": sum(r["rollbacks"] for r in used)}
