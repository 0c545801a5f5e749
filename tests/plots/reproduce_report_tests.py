"""Tests of scripts/reproduce's report: every paper claim's verdict names what it was checked
against (issue 42), run by run_plot_tests.py."""

from __future__ import annotations

import importlib.machinery
import importlib.util
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
        for step, (kind, what) in reproduce.REFERENCES.items():
            self.assertIn(kind, reproduce.KIND_NAMES, step)
            self.assertTrue(what, step)
            if kind == "paper":
                self.assertIn("\"", what, f"{step} quotes the paper")

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
        self.assertIn("| T6 | best trade-off | a paper's statement | v |", text)
        self.assertIn("Checked against (a paper's statement): CodeNet abstract: \"Our "
                      "experiments show", text)


if __name__ == "__main__":
    unittest.main()
