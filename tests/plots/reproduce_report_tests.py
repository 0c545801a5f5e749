"""Tests of scripts/reproduce's report: every paper claim's verdict names what it was checked
against (a paper, the project's derivation or an independent check), run by run_plot_tests.py."""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import math
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[2]


def load_reproduce():
    """scripts/reproduce as a module (it has no .py suffix)."""
    loader = importlib.machinery.SourceFileLoader("reproduce", str(ROOT / "scripts" / "reproduce"))
    spec = importlib.util.spec_from_loader("reproduce", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


class ReproduceReport(unittest.TestCase):
    def test_every_claim_names_its_reference_and_the_kind_of_it(self):
        reproduce = load_reproduce()
        claims = [f"T{i}" for i in range(1, 9)]
        self.assertEqual(sorted(reproduce.REFERENCES), claims)
        for step, (source, check, what) in reproduce.REFERENCES.items():
            self.assertIn(source, reproduce.SOURCE_NAMES, step)
            self.assertIn(check, reproduce.CHECK_NAMES, step)
            self.assertTrue(what, step)
            if source == "paper":
                self.assertIn("\"", what, f"{step} quotes the paper")
        # The closed forms are the project's, not a paper's: T4, T5 and T8 say so.
        for step in ("T4", "T5", "T8"):
            self.assertEqual(reproduce.REFERENCES[step][1], "derivation", step)
        self.assertEqual(reproduce.REFERENCES["T6"][1], "runs")

    def test_the_report_lists_each_claims_reference(self):
        reproduce = load_reproduce()
        with tempfile.TemporaryDirectory() as directory:
            report = SimpleNamespace(full=False, reuse=False, arithmetic="auto",
                                     arithmetics_run=set(), jobs="2", sections=[],
                                     results=Path(directory),
                                     claims=[{"step": "T6", "claim": "best trade-off",
                                              "figures": [], "measured": "m", "verdict": "v",
                                              "note": ""}])
            reproduce.report.write_report(report, 1.0)
            text = (Path(directory) / "REPORT.md").read_text()
        self.assertIn("| T6 | best trade-off | a paper's statement, quoted | the simulated runs, "
                      "paired | v |", text)
        self.assertIn("Source (a paper's statement, quoted) and check (the simulated runs, "
                      "paired): CodeNet abstract: \"Our experiments show", text)


class PooledSlope(unittest.TestCase):
    @staticmethod
    def counts(rate: float, slope: float, attempts: int) -> list[dict]:
        """Rollbacks at their expected counts for q = 1 - exp(-rate eps^slope)."""
        rows = []
        for eps in (1e-4, 3e-4, 1e-3, 3e-3):
            q = -math.expm1(-rate * eps ** slope)
            rows.append({"eps": eps, "rollbacks": round(q * attempts), "attempts": attempts})
        return rows

    def test_the_pooled_slope_recovers_a_linear_and_a_quadratic_rate(self):
        load_reproduce()  # puts analysis/ on the path
        from reproduction.rollback_lines import slope_interval
        linear = slope_interval(self.counts(300.0, 1.0, 20000))
        self.assertAlmostEqual(linear["slope"], 1.0, delta=0.021)
        self.assertTrue(linear["lo"] <= 1.0 <= linear["hi"] < 2.0)
        quadratic = slope_interval(self.counts(3e5, 2.0, 20000))
        self.assertAlmostEqual(quadratic["slope"], 2.0, delta=0.021)
        self.assertTrue(1.0 < quadratic["lo"] <= 2.0 <= quadratic["hi"])

    def test_fewer_rollbacks_give_a_wider_interval_that_still_holds_the_slope(self):
        load_reproduce()  # puts analysis/ on the path
        from reproduction.rollback_lines import slope_interval
        many = slope_interval(self.counts(3e5, 2.0, 20000))
        few = slope_interval(self.counts(3e5, 2.0, 200))
        self.assertTrue(few["lo"] <= 2.0 <= few["hi"])
        self.assertGreater(few["hi"] - few["lo"], 5 * (many["hi"] - many["lo"]))
        # Fewer than two points that roll back: no slope.
        self.assertIsNone(slope_interval([{"eps": 1e-4, "rollbacks": 0, "attempts": 500},
                                          {"eps": 1e-3, "rollbacks": 3, "attempts": 500}]))


class ReadmeVerdicts(unittest.TestCase):
    def test_the_readme_table_is_rewritten_between_its_markers_only(self):
        reproduce = load_reproduce()
        report = reproduce.report
        run = SimpleNamespace(full=False, jobs="2", claims=[
            {"step": "T8", "claim": "all steps", "verdict": "reproduced"}])
        block = report.verdict_block(run, 192.0, __import__("datetime").date(2026, 12, 4))
        self.assertIn("| T8 | all steps | a paper's statement, quoted | the project's derivation "
                      "| reproduced |", block)
        self.assertIn("2026-12-04", block[0])
        with tempfile.TemporaryDirectory() as directory:
            readme = Path(directory) / "README.md"
            readme.write_text(f"before\n{report.README_BEGIN}\nold\n{report.README_END}\nafter\n")
            report.update_readme(readme, block)
            text = readme.read_text()
            self.assertTrue(text.startswith("before\n"))
            self.assertTrue(text.endswith(f"{report.README_END}\nafter\n"))
            self.assertNotIn("old", text)
            readme.write_text("no markers\n")
            with self.assertRaises(ValueError):
                report.update_readme(readme, block)
            self.assertEqual(readme.read_text(), "no markers\n")

    def test_the_repository_readme_has_the_markers(self):
        reproduce = load_reproduce()
        text = (ROOT / "README.md").read_text()
        self.assertLess(text.index(reproduce.report.README_BEGIN),
                        text.index(reproduce.report.README_END))


def load_all_steps_claims():
    """analysis/reproduction/all_steps_claims.py (T8)."""
    import sys
    sys.path.insert(0, str(ROOT / "analysis"))
    from reproduction import all_steps_claims
    return all_steps_claims


class AllStepsVerdict(unittest.TestCase):
    EPS = "/faults/targets/weights/probability_per_operation"

    def results(self, rollbacks: list[int]) -> "object":
        import common
        points = []
        for eps, count in zip((1e-4, 1e-3), rollbacks):
            replicas = [{"replica": r, "rollbacks": count, "iterations": 500} for r in range(2)]
            points.append({"params": {self.EPS: eps}, "label": "code", "replicas": replicas,
                           "aggregate": {}})
        document = {"schema_version": 1, "complete": True, "scenario": {"name": "t8"},
                    "seed": 1, "points": points}
        with tempfile.TemporaryDirectory() as directory:
            path = Path(directory) / "t8.json"
            path.write_text(__import__("json").dumps(document))
            return common.load_results(path)

    def test_points_whose_intervals_hold_the_closed_form_reproduce_and_others_do_not(self):
        t8 = load_all_steps_claims()
        # Closed form: 2% at 1e-4, 20% at 1e-3 (per attempt: rollbacks / (rollbacks + 500)).
        theory = {"schemes": [{"label": "code", "eps": [1e-4, 1e-3], "q": [0.02, 0.2]}]}
        ok, notes = t8.rollbacks_against_theory(self.results([10, 125]), theory)
        self.assertTrue(ok, notes)
        self.assertIn("2/2 points", notes[0])
        # Four times too many rollbacks at both points: not reproduced.
        ok, notes = t8.rollbacks_against_theory(self.results([45, 800]), theory)
        self.assertFalse(ok, notes)

    def test_a_strategy_trains_to_the_error_free_accuracy_within_one_point(self):
        t8 = load_all_steps_claims()
        rows = {"error-free": {"final_test_accuracy": 0.889},
                "codenet": {"final_test_accuracy": 0.885},
                "uncoded": {"final_test_accuracy": 0.817}}
        self.assertEqual(t8.trains_to_error_free(rows), {"codenet": True, "uncoded": False})


class AdviceSection(unittest.TestCase):
    def test_the_advice_section_tabulates_each_cells_family_and_counts_them(self):
        import sys
        sys.path.insert(0, str(ROOT / "analysis"))
        from reproduction import beyond_claims
        columns = ["values", "label", "family", "scheme", "checkpoint"]
        rows = [[[eps, mtbf], "x", family, scheme, "none"]
                for (eps, mtbf), family, scheme in (
                    ((1e-5, 10.0), "replication", "replication"), ((1e-3, 10.0), "coding", "gpd"),
                    ((1e-5, 1e4), "uncoded", "uncoded"), ((1e-3, 1e4), "coding", "codenet_grid"))]
        document = {"budget_s": 10.0, "cells": {"columns": columns, "rows": rows},
                    "axes": [{"pointer": "/faults/targets/weights/probability_per_operation",
                              "values": [1e-5, 1e-3]},
                             {"pointer": "/cluster/crashes/mtbf_s", "values": [10.0, 1e4]}]}
        lines = beyond_claims.advice_section(document)
        self.assertIn("coding 2, replication 1, uncoded 1", "\n".join(lines))
        self.assertIn("| 10 | replication: replication, none | coding: gpd, none |", lines)
        self.assertIn("| 1e+04 | uncoded: uncoded, none | coding: codenet_grid, none |", lines)


if __name__ == "__main__":
    unittest.main()
