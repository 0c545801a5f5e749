"""Tests of analysis/plots/production_report.py (the report's production-scale section), run by
run_plot_tests.py."""

from __future__ import annotations

import unittest

from plot_test_support import aggregate, load  # noqa: I001
import production_report  # noqa: E402


def day_results() -> dict:
    """Two strategies over one day: 'fast' makes 10000 iterations with 4 silent corruptions, 'safe'
    8000 iterations in half a day (it finished early) with none."""
    points = []
    for label, strategy, elapsed_s, iterations, silent in (
            ("fast", {"scheme": "uncoded", "m": 4, "n": 4}, 86400.0, 10000.0, 4.0),
            ("safe", {"scheme": "codenet_grid", "m": 3, "n": 3, "grid_rows": 4, "grid_cols": 4},
             43200.0, 8000.0, 0.0)):
        replica = {"replica": 0, "completion_time_s": elapsed_s, "iterations": iterations,
                   "crashes": 3.0, "rollbacks": 1.0, "corrected": 2.0,
                   "silent_corruptions": silent, "time_lost_s": 0.01 * elapsed_s,
                   "time_restart_s": 0.01 * elapsed_s}
        points.append({"params": {"/label": label, "/strategy": strategy}, "label": label,
                       "replicas": [replica], "aggregate": aggregate([replica])})
    return {"schema_version": 1,
            "scenario": {"name": "production_scale", "workload": {"kind": "training"}},
            "points": points}


class ProductionReport(unittest.TestCase):
    def test_the_section_counts_per_simulated_day_and_names_the_fastest_trusted_strategy(self):
        lines = production_report.production_section(load(day_results(), "production_scale"))
        self.assertEqual(lines[0], "## A run at production scale")
        rows = [line for line in lines if line.startswith("| fast") or line.startswith("| safe")]
        # safe ran half a day: its counts double per day; 16000 iterations a day, 5.4 s each.
        self.assertEqual(rows[1], "| safe | 15 | 16000 | 5.400 | 6.0 | 2.0 | 4.0 | 0.0 | 0.000 | "
                                  "2.0% |")
        # fast: 4 silent corruptions a day, P = 1 - e^-4 = 0.982.
        self.assertEqual(rows[0], "| fast | 16 | 10000 | 8.640 | 3.0 | 1.0 | 2.0 | 4.0 | 0.982 | "
                                  "2.0% |")
        self.assertIn("- Fastest per useful iteration: **safe** (5.400 s; silent corruptions per "
                      "day 0.0).", lines)
        self.assertIn("- fast trains on wrong numbers: 4.0 silent corruptions per day (P = 0.982 "
                      "of at least one a day).", lines)

    def test_the_section_says_how_the_scenarios_network_costs_transfers(self):
        document = day_results()
        document["scenario"]["cluster"] = {"network": {"model": "flow",
                                                       "topology": "leaf_spine"}}
        intro = production_report.production_section(load(document, "production_scale"))[2]
        self.assertIn("a leaf spine network (flow model: flows sharing its links)", intro)
        document["scenario"]["cluster"]["network"]["model"] = "analytic"
        intro = production_report.production_section(load(document, "production_scale"))[2]
        self.assertIn("(analytic model: transfers without contention)", intro)
