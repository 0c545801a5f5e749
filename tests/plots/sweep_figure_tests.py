"""Tests of the sweeps extending T1-T3: paper_figures.py's tradeoff, tolerance_grid,
conditioning and stragglers kinds on small generated tables, and the checks in
analysis/reproduction/code_sweeps.py on tables that must pass or fail. Run by run_plot_tests.py."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from plot_test_support import PNG_SIGNATURE, ROOT, png_size, run  # noqa: I001

sys.path.insert(0, str(ROOT / "analysis"))
import sweep_figures  # noqa: E402
from reproduction import code_sweeps  # noqa: E402


def direction(k: int, sent: float) -> dict:
    return {"participants": k + 1, "threshold_nodes": k, "threshold_symbols": k,
            "sent_per_node": sent, "received_per_node": sent * 3}


def tradeoff_table() -> dict:
    """Every scheme at (1, 1) .. (2, 2), P = 3mn, with the thresholds docs/reproduction.md
    derives."""
    rows = []
    for m, n in ((1, 1), (1, 2), (2, 1), (2, 2)):
        for scheme in ("gpd", "mds", "replication", "codenet_grid"):
            want = code_sweeps.derived_tradeoff({"m": m, "n": n, "scheme": scheme}, 3)
            rows.append({"m": m, "n": n, "scheme": scheme, "configuration": "c", "nodes": 3 * m * n,
                         "storage_fraction_per_node": 1 / (m * n),
                         "forward": direction(want["ff"], want["sent_ff"]),
                         "backward": direction(want["bp"], want["sent_bp"])})
    return {"table": "tradeoff", "redundancy": 3, "rows": rows}


def grid_row(m: int, n: int, nodes: int, gpd: int, mds: int, codenet: int,
             replication: int) -> dict:
    return {"m": m, "n": n, "nodes": nodes, "gpd_forward": gpd, "gpd_backward": gpd,
            "gpd_forward_random": gpd, "gpd_backward_random": gpd, "codenet": codenet,
            "codenet_nodes": nodes, "mds": mds, "replication_copies": 3,
            "replication_correctable": replication, "replication_detectable": 2}


def tolerance_grid(gpd_at_12: int = 3) -> dict:
    """m = n = 2 at P = 8..16 and m = n = 1 at P = 2..4, as T3 counts them."""
    rows = [grid_row(2, 2, p, (p - 5) // 2, (p - 8) // 2, int(p >= 12), int(p >= 12))
            for p in range(8, 17)]
    rows += [grid_row(1, 1, p, (p - 1) // 2, (p - 2) // 2, 0, int(p >= 3)) for p in range(2, 5)]
    rows[4]["gpd_forward"] = gpd_at_12
    return {"table": "tolerance_grid", "rows": rows}


def conditioning_direction(condition: float | None, accurate: bool) -> dict:
    flagged = condition is None or condition * 2.0 ** -53 * 16 > 1e-8
    return {"symbols": 6, "dimension": 4, "worst_condition": condition, "flagged": flagged,
            "subset_relative_error": 1e-15 if accurate else None, "subset_detected": not accurate,
            "all_relative_error": 1e-15, "all_detected": False, "all_clean": accurate,
            "accurate": accurate}


def conditioning_table(unflagged_inaccurate: bool = False) -> dict:
    points = []
    for i, nodes in enumerate((3, 12, 27)):
        for scheme, condition in (("gpd", 10.0 ** (4 * i + 1) if i < 2 else None),
                                  ("mds", 50.0), ("codenet_grid", 20.0)):
            accurate = condition is not None and not (unflagged_inaccurate and scheme == "mds"
                                                      and nodes == 27)
            d = conditioning_direction(condition, accurate)
            points.append({"scheme": scheme, "configuration": "c", "m": 1, "n": 1,
                           "nodes": nodes, "forward": d, "backward": d})
    return {"table": "conditioning", "target_relative_accuracy": 1e-8, "safety_factor": 16.0,
            "points": points,
            "accurate_up_to": [{"scheme": "gpd", "nodes": 12, "first_inaccurate_nodes": 27},
                               {"scheme": "mds", "nodes": 27, "first_inaccurate_nodes": None},
                               {"scheme": "codenet_grid", "nodes": 27,
                                "first_inaccurate_nodes": None}]}


def straggler_table(offset: float = 0.0) -> dict:
    rows = [{"k": k, "expected": 1.0 + 2.0 * sum(1 / i for i in range(13 - k, 13)),
             "monte_carlo": 1.0 + 2.0 * sum(1 / i for i in range(13 - k, 13)) + offset,
             "exact_standard_error": 0.01, "standard_error": 0.01} for k in range(1, 13)]
    return {"table": "stragglers", "nodes": 12, "trials": 100, "seed": 1, "unit": "u",
            "laws": [{"law": "shifted_exponential", "parameters": {"shift": 1.0, "rate": 0.5},
                      "source": "s", "rows": rows}]}


class SweepFigures(unittest.TestCase):
    def test_each_sweep_kind_draws_a_png_from_its_table(self):
        with tempfile.TemporaryDirectory() as tmp:
            out = Path(tmp)
            tables = {"tradeoff": tradeoff_table(), "tolerance_grid": tolerance_grid(),
                      "conditioning": conditioning_table(), "stragglers": straggler_table()}
            for kind, table in tables.items():
                (out / f"{kind}.json").write_text(json.dumps(table))
            for kind in tables:
                extra = [str(out / "tradeoff.json")] if kind == "stragglers" else []
                png = out / f"{kind}.png"
                result = run("paper_figures.py", kind, str(out / f"{kind}.json"), *extra, "-o",
                             str(png))
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertEqual(png.read_bytes()[:8], PNG_SIGNATURE)
                width, height = png_size(png)
                self.assertGreater(width, height, kind)

    def test_a_table_of_another_kind_exits_2_with_one_error_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "grid.json"
            path.write_text(json.dumps(tolerance_grid()))
            result = run("paper_figures.py", "conditioning", str(path), "-o",
                         str(Path(tmp) / "c.png"))
            self.assertEqual(result.returncode, 2, result.stderr)
            self.assertEqual(len(result.stderr.splitlines()), 1)
            self.assertIn("is not a `--table conditioning` output", result.stderr)

    def test_both_directions_add_traffic_and_take_the_larger_threshold(self):
        row = {"forward": direction(5, 0.5), "backward": direction(6, 0.25)}
        self.assertEqual(sweep_figures.tradeoff_point(row, "both"), (0.75, 6))
        self.assertEqual(sweep_figures.tradeoff_point(row, "backward"), (0.25, 6))

    def test_the_guard_condition_is_the_target_over_roundoff_and_safety(self):
        self.assertAlmostEqual(sweep_figures.guard_condition(conditioning_table()) / 5.6295e6, 1.0,
                               places=4)


class SweepChecks(unittest.TestCase):
    """code_sweeps' verdicts with codesim's table replaced and no figure drawn."""

    def check(self, step: str, table: dict) -> tuple[str, bool, list[str]]:
        with tempfile.TemporaryDirectory() as tmp:
            r = SimpleNamespace(results=Path(tmp), figures=Path(tmp))
            with mock.patch.object(code_sweeps, "codesim_json", return_value=table), \
                    mock.patch.object(code_sweeps, "figure"):
                return getattr(code_sweeps, step)(r)

    def test_the_derived_tradeoff_holds_and_a_changed_threshold_fails(self):
        note, ok, figures = self.check("tradeoff", tradeoff_table())
        self.assertTrue(ok, note)
        self.assertIn("16/16 rows equal the derived thresholds", note)
        self.assertEqual(figures, ["t1_threshold_vs_communication.png"])
        table = tradeoff_table()
        table["rows"][12]["forward"]["threshold_nodes"] += 1  # GPD (2, 2)
        note, ok, _ = self.check("tradeoff", table)
        self.assertFalse(ok)
        self.assertIn("differ: gpd (2, 2)", note)

    def test_gpd_behind_a_baseline_anywhere_fails_t3s_grid(self):
        note, ok, _ = self.check("tolerance_grid", tolerance_grid())
        self.assertTrue(ok, note)
        self.assertIn("at m = n = 2: P = 12, 13, 14, 15, 16, correcting 1, 1, 1, 1, 1", note)
        note, ok, _ = self.check("tolerance_grid", tolerance_grid(gpd_at_12=1))
        self.assertFalse(ok)
        self.assertIn("not at (2, 2) P = 12", note)

    def test_an_unflagged_inaccurate_decode_fails_the_conditioning_check(self):
        note, ok, _ = self.check("conditioning", conditioning_table())
        self.assertTrue(ok, note)
        self.assertIn("gpd up to P = 12 (not at 27)", note)
        note, ok, _ = self.check("conditioning", conditioning_table(unflagged_inaccurate=True))
        self.assertFalse(ok)
        self.assertIn("mds P = 27 forward", note)

    def test_each_t3_point_says_whether_the_papers_construction_decodes_accurately_there(self):
        with mock.patch.object(code_sweeps, "codesim_json", return_value=conditioning_table()):
            accuracy = code_sweeps.gpd_accuracy_at(SimpleNamespace(), [3, 12, 27, 48])
        self.assertEqual([accuracy[p][0] for p in (3, 12, 27, 48)], [True, True, False, False])
        self.assertIn("accurate in float64, condition 1.0e+05 / 1.0e+05", accuracy[12][1])
        self.assertIn("NOT accurate in float64, condition singular", accuracy[27][1])
        self.assertIn("NOT accurate: beyond P = 27", accuracy[48][1])

    def test_a_monte_carlo_far_from_the_order_statistic_fails(self):
        note, ok, _ = self.check("stragglers", straggler_table())
        self.assertTrue(ok, note)
        note, ok, _ = self.check("stragglers", straggler_table(offset=0.06))
        self.assertFalse(ok)
        self.assertIn("worst |difference| 6.00 exact standard errors", note)


if __name__ == "__main__":
    unittest.main()
