"""Tests of analysis/plots/cnn_report.py (the report's coded LeNet-5 section), run by
run_plot_tests.py."""

from __future__ import annotations

import unittest

from plot_test_support import aggregate, load  # noqa: I001
import cnn_report  # noqa: E402


def lenet_results(codenet_accuracy: float, uncoded_silent: float) -> dict:
    """An error-free run at 80%, uncoded at 79% with `uncoded_silent` silent corruptions and
    CodeNet at `codenet_accuracy`."""
    points = []
    for label, strategy, accuracy, silent, corrected in (
            ("error-free", {"scheme": "uncoded", "m": 2, "n": 1}, 0.80, 0.0, 0.0),
            ("uncoded 2x1", {"scheme": "uncoded", "m": 2, "n": 1}, 0.79, uncoded_silent, 0.0),
            ("codenet 4x3 (2,1)", {"scheme": "codenet_grid", "m": 2, "n": 1, "grid_rows": 4,
                                   "grid_cols": 3}, codenet_accuracy, 0.0, 14.0)):
        replica = {"replica": 0, "final_test_accuracy": accuracy, "completion_time_s": 40.0,
                   "faults_injected": 5.0, "rollbacks": 0.0, "corrected": corrected,
                   "silent_corruptions": silent}
        points.append({"params": {"/label": label, "/strategy": strategy}, "label": label,
                       "replicas": [replica], "aggregate": aggregate([replica])})
    return {"schema_version": 1,
            "scenario": {"name": "lenet_fashion", "workload": {"kind": "training"}},
            "points": points}


class CnnReport(unittest.TestCase):
    def test_codenet_at_the_error_free_accuracy_and_uncoded_below_hold(self):
        lines, held = cnn_report.cnn_section(
            [("Fashion-MNIST", load(lenet_results(0.80, 3.0), "lenet_fashion"))])
        self.assertTrue(held)
        self.assertIn("| codenet 4x3 (2,1) | 8 | 80.00 | 40.00 | 5.0 | 0.0 | 14.0 | 0.0 |", lines)
        self.assertIn("- uncoded 2x1: 79.00% (-1.00 points), 3 of its iterations silently "
                      "corrupted (5 faults injected, none corrected).", lines)
        self.assertTrue(lines[-1].startswith("Verdict: CodeNet and replication end at"))

    def test_codenet_off_the_error_free_accuracy_fails_the_verdict(self):
        lines, held = cnn_report.cnn_section(
            [("MNIST", load(lenet_results(0.795, 3.0), "lenet_fashion"))])
        self.assertFalse(held)
        self.assertTrue(any("-0.50 points from the error-free run" in line for line in lines))
        self.assertTrue(lines[-1].startswith("Verdict: NOT as expected"))
