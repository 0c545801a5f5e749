"""Tests of the energy figures and columns of analysis/plots (energy_vs_accuracy.py, the energy
panels of time_breakdown.py and strategy_comparison.py, the energy columns of strategy_report.py,
the dispatcher's energy figures), run by run_plot_tests.py. Results written before energy was
recorded must give the figures they gave before."""

from __future__ import annotations

import json
import subprocess
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from plot_test_support import (PNG_SIGNATURE, aggregate, load, png_size, run,  # noqa: I001
                               training_results, with_energy)
import common  # noqa: E402
import energy_report  # noqa: E402
import energy_vs_accuracy  # noqa: E402
import plot  # noqa: E402
import strategy_report  # noqa: E402
import time_breakdown  # noqa: E402

DPI = 120  # common.save_figure's


def two_replica_results() -> dict:
    """One point, two replicas whose energies (J) and accuracies are easy to follow by hand:
    replica 0 evaluates at 0, 1, 2, 3 kJ, replica 1 at 0, 1.5, 3 kJ."""
    series = [[(0.0, 0.1), (1000.0, 0.6), (2000.0, 0.8), (3000.0, 0.9)],
              [(0.0, 0.1), (1500.0, 0.75), (3000.0, 0.95)]]
    replicas = []
    for r, rows in enumerate(series):
        replicas.append({
            "replica": r, "completion_time_s": 3.0, "final_test_accuracy": rows[-1][1],
            "energy_J": 3000.0,
            "accuracy_vs_time": {
                "columns": ["time_s", "iteration", "test_accuracy", "train_loss", "energy_J"],
                "rows": [[e / 1000.0, 10 * k, a, 1.0, e] for k, (e, a) in enumerate(rows)]}})
    return {"schema_version": 1, "scenario": {"name": "solo", "workload": {"kind": "training"}},
            "points": [{"params": {}, "label": "solo", "replicas": replicas,
                        "aggregate": aggregate(replicas)}]}


def comparison_results(energy: bool) -> dict:
    """Strategies a, b under two fault settings (strategy_comparison's input), one replica each;
    with `energy`, the energy metrics (no series)."""
    faults = [{"targets": {"weights": {"probability_per_operation": 3e-4}}}, {}]
    points = []
    for label in ("a", "b"):
        for f in faults:
            replicas = [{"replica": 0, "rollbacks": 2.0, "completion_time_s": 1.5,
                         "final_test_accuracy": 0.9, "time_compute_s": 1.0}]
            points.append({"params": {"/faults": f, "/label": label}, "label": label,
                           "replicas": replicas, "aggregate": aggregate(replicas)})
    document = {"schema_version": 1, "scenario": {"name": "cmp", "workload": {"kind": "training"}},
                "points": points}
    return with_energy(document, series=False) if energy else document


class EnergyMath(unittest.TestCase):
    def test_the_target_is_reached_by_interpolating_between_evaluations(self):
        xs, ys = [0.0, 1.0, 2.0, 3.0], [0.5, 0.8, 0.9, 0.95]
        # 0.85 lies halfway between 0.8 (at 1) and 0.9 (at 2).
        self.assertAlmostEqual(energy_vs_accuracy.first_reach(xs, ys, 0.85), 1.5)
        self.assertEqual(energy_vs_accuracy.first_reach(xs, ys, 0.85, step=True), 2.0)
        self.assertEqual(energy_vs_accuracy.first_reach(xs, ys, 0.9), 2.0)
        self.assertEqual(energy_vs_accuracy.first_reach(xs, ys, 0.4), 0.0)
        self.assertIsNone(energy_vs_accuracy.first_reach(xs, ys, 0.96))
        self.assertIsNone(energy_vs_accuracy.first_reach([], [], 0.5))

    def test_the_energy_to_target_is_read_off_the_mean_curve(self):
        results = load(two_replica_results())
        curves = energy_vs_accuracy.energy_curves(results)
        [(point, point_curves)] = curves
        self.assertEqual(list(point_curves[1].x), [0.0, 1.5, 3.0])  # kJ
        # By hand, on the union grid 0, 1, 1.5, 2, 3 kJ: at 1.5 kJ replica 0 is at 0.7 and
        # replica 1 at 0.75, mean 0.725; at 2 kJ replica 0 is at 0.8 and replica 1 at
        # 0.75 + 0.2 * 0.5 / 1.5 = 0.81667, mean 0.80833. The mean crosses 0.8 at
        # 1.5 + 0.5 * (0.8 - 0.725) / (0.80833 - 0.725) = 1.95 kJ.
        energy = energy_vs_accuracy.energy_to_target(point_curves, 0.8)
        self.assertAlmostEqual(energy, 1.95, places=9)
        # Held values: the mean first reaches 0.8 at 3 kJ (0.9 and 0.95; at 2 kJ 0.8 and 0.75).
        self.assertAlmostEqual(energy_vs_accuracy.energy_to_target(point_curves, 0.8, True), 3.0)
        labels, reached = energy_vs_accuracy.legend_labels(results, curves, 0.8)
        self.assertEqual(labels, {0: "solo, E(0.8) = 1.95 kJ"})
        self.assertAlmostEqual(reached[0], 1.95, places=9)
        labels, reached = energy_vs_accuracy.legend_labels(results, curves, 0.99)
        self.assertEqual((labels, reached), ({0: "solo, E(0.99) not reached"}, {}))

    def test_a_target_is_an_accuracy_in_0_to_1(self):
        file = Path("r.json")
        self.assertEqual(energy_vs_accuracy.parse_target("0.9", file), 0.9)
        self.assertEqual(energy_vs_accuracy.parse_target("1", file), 1.0)
        for text in ("abc", "0", "-0.1", "1.5", "nan", "inf", ""):
            with self.subTest(text=text), self.assertRaises(common.InputError) as caught:
                energy_vs_accuracy.parse_target(text, file)
            self.assertIn(f"--target {text} is not an accuracy in (0, 1]", str(caught.exception))

    def test_the_dispatcher_adds_energy_figures_only_for_results_with_energy(self):
        def names(document: dict) -> list[str]:
            return [name for name, _ in plot.figures(load(document))]

        old = names(training_results())
        self.assertEqual(old, ["accuracy_vs_time", "loss_vs_iteration", "time_breakdown",
                               "sweep_final_test_accuracy", "sweep_completion_time_s",
                               "sweep_rollbacks", "sweep_corrected"])
        self.assertEqual(names(with_energy(training_results())),
                         old[:2] + ["energy_vs_accuracy"] + old[2:] + ["sweep_energy_J"])
        # Energy metrics without the series column: a sweep of energy_J, no accuracy figure.
        self.assertEqual(names(with_energy(training_results(), series=False)),
                         old + ["sweep_energy_J"])

    def test_the_report_adds_energy_columns_only_for_results_with_energy(self):
        results = load(two_replica_results())
        point = results.points[0]
        # The first evaluation at or above 0.85 is, in both replicas, the last: 3000 J at 3 s.
        self.assertEqual(strategy_report.time_to_target(results, point), 3.0)
        self.assertEqual(strategy_report.energy_to_target_kJ(results, point), 3.0)
        document = two_replica_results()
        document["points"][0]["replicas"][1]["accuracy_vs_time"]["rows"][1][2] = 0.86
        results = load(document)
        # Replica 1 now reaches 0.85 at 1500 J (1.5 s): means 2.25 kJ and 2.25 s.
        self.assertEqual(strategy_report.energy_to_target_kJ(results, results.points[0]), 2.25)
        self.assertEqual(strategy_report.time_to_target(results, results.points[0]), 2.25)

        def header(document: dict) -> str:
            section = strategy_report.abft_section(load(document))
            return next(line for line in section if line.startswith("| setting"))

        self.assertTrue(header(comparison_results(False)).endswith("| silent corruptions |"))
        self.assertTrue(header(comparison_results(True)).endswith(
            "| silent corruptions | energy (kJ) |"))
        with_series = comparison_results(False)
        for p in with_series["points"]:
            p["replicas"][0]["accuracy_vs_time"] = {
                "columns": ["time_s", "iteration", "test_accuracy", "train_loss", "energy_J"],
                "rows": [[0.0, 0, 0.1, 2.0, 0.0], [1.5, 10, 0.9, 1.0, 4500.0]]}
        section = strategy_report.abft_section(load(with_energy(with_series, series=False)))
        table = [line for line in section if line.startswith("| ")]
        self.assertTrue(table[0].endswith("| energy (kJ) | energy to target (kJ) |"), table[0])
        self.assertTrue(all(row.count("|") == table[0].count("|") for row in table))
        self.assertTrue(table[1].endswith("| 6.00 | 4.50 |"), table[1])  # 4000 W * 1.5 s


def paper_results() -> dict:
    """The paper configuration's three reference strategies in stochastic mode (no series), one
    replica each: energies 1000, 4000 and 2000 kJ over 8000 iterations."""
    points = []
    for label, strategy, energy_kJ, rollbacks in (
            ("error-free", {"scheme": "uncoded", "m": 5, "n": 8}, 1000.0, 0.0),
            ("replication 2x(5x4)", {"scheme": "replication", "m": 5, "n": 4, "copies": 2},
             4000.0, 900.0),
            ("codenet 7x6 (5,4)", {"scheme": "codenet_grid", "m": 5, "n": 4, "grid_rows": 7,
                                   "grid_cols": 6}, 2000.0, 4.0)):
        replica = {"replica": 0, "completion_time_s": energy_kJ / 10.0, "iterations": 8000.0,
                   "rollbacks": rollbacks, "energy_J": 1e3 * energy_kJ}
        for part, share in (("compute", 0.2), ("idle", 0.3), ("network", 0.0),
                            ("checkpoint", 0.25), ("restart", 0.15), ("lost", 0.1)):
            replica[f"energy_{part}_J"] = share * 1e3 * energy_kJ
        points.append({"params": {"/label": label, "/strategy": strategy}, "label": label,
                       "replicas": [replica], "aggregate": aggregate([replica])})
    return {"schema_version": 1, "scenario": {"name": "paper", "workload": {"kind": "training"}},
            "points": points}


class EnergyReport(unittest.TestCase):
    def test_the_energy_section_compares_codenet_with_replication_from_the_results(self):
        paper = load(paper_results(), "paper")
        self.assertEqual(energy_report.per_useful_iteration_J(paper.points[2]), 250.0)
        lines = energy_report.energy_section(paper, None)
        self.assertEqual(lines[0], "## Energy")
        rows = [line for line in lines if line.startswith("| codenet") or
                line.startswith("| replication") or line.startswith("| error-free")]
        self.assertEqual(len(rows), 3)
        # codenet: 38 nodes, 200 s, 2000 kJ, 250 J per iteration, parts 400/600/0/500/300/200 kJ.
        self.assertEqual(rows[2], "| codenet 7x6 (5,4) | 38 | 200.0 | 2000.0 | 250.0 | 400.0 | "
                                  "600.0 | 0.0 | 500.0 | 300.0 | 200.0 |")
        conclusion = [line for line in lines if line.startswith("- CodeNet")]
        self.assertEqual(conclusion, [
            "- CodeNet spends 0.50x the energy of replication (2000 against 4000 kJ) with 4.0 "
            "rollbacks against 900; 50% of replication's energy goes to checkpoints, restarts "
            "and work rolled back; against the error-free run CodeNet costs 2.00x, replication "
            "4.00x."])

    def test_the_quickstart_table_gives_the_energy_to_the_target(self):
        quickstart = load(two_replica_results(), "solo")
        table = energy_report.quickstart_table(quickstart)
        # The replicas first reach 85% at 3.0 and 3.0 kJ (0.9 and 0.95 accuracy).
        self.assertEqual(table[2], "| solo | 1 | 3.00 | 3.00 | 3.00 | 92.50 |")
        section = energy_report.energy_section(load(paper_results(), "paper"), quickstart)
        self.assertIn("![solo.energy_vs_accuracy.png](../figures/solo.energy_vs_accuracy.png)",
                      section)


class EnergyScripts(unittest.TestCase):
    """The energy figures as commands, started together in setUpClass (as Scripts does)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        inputs = {"energy_sample": with_energy(training_results()),
                  "training_sample": training_results(),
                  "cmp_energy": comparison_results(True), "cmp_old": comparison_results(False)}
        for stem, document in inputs.items():
            (cls.dir / f"{stem}.json").write_text(json.dumps(document, indent=2))
        cls.energy, cls.old = cls.dir / "energy_sample.json", cls.dir / "training_sample.json"
        jobs = {name: ("plot.py", str(cls.energy), "-o", str(cls.dir / name))
                for name in ("figures_a", "figures_b")}
        for name in ("single_a", "single_b"):
            jobs[name] = ("energy_vs_accuracy.py", str(cls.energy), "--target", "0.8", "--step",
                          "--show-replicas", "-o", str(cls.dir / f"{name}.png"))
        for name in ("cmp_energy", "cmp_old"):
            jobs[name] = ("strategy_comparison.py", str(cls.dir / f"{name}.json"), "-o",
                          str(cls.dir / f"{name}.png"))
        jobs["breakdown_old"] = ("time_breakdown.py", str(cls.old), "-o",
                                 str(cls.dir / "breakdown_old.png"))
        bad = str(cls.dir / "bad" / "x.png")
        for name, target in (("bad_text", "abc"), ("bad_zero", "0"), ("bad_high", "1.5")):
            jobs[name] = ("energy_vs_accuracy.py", str(cls.energy), "--target", target, "-o", bad)
        jobs["bad_old"] = ("energy_vs_accuracy.py", str(cls.old), "-o", bad)
        cls.pool = ThreadPoolExecutor(max_workers=4)
        cls.runs = {name: cls.pool.submit(run, *args) for name, args in jobs.items()}

    @classmethod
    def tearDownClass(cls):
        cls.pool.shutdown(wait=True)
        cls.tmp.cleanup()

    def result(self, name: str) -> subprocess.CompletedProcess:
        result = self.runs[name].result()
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        return result

    def test_the_dispatcher_writes_the_energy_figures_the_same_bytes_every_time(self):
        names = ["accuracy_vs_time", "loss_vs_iteration", "energy_vs_accuracy", "time_breakdown",
                 "sweep_final_test_accuracy", "sweep_completion_time_s", "sweep_rollbacks",
                 "sweep_corrected", "sweep_energy_J"]
        expected = [self.dir / "figures_a" / f"energy_sample.{name}.png" for name in names]
        self.assertEqual(self.result("figures_a").stdout.splitlines(), [str(p) for p in expected])
        self.result("figures_b")
        for path in expected:
            data = path.read_bytes()
            self.assertEqual(data[:8], PNG_SIGNATURE, path.name)
            self.assertEqual(data, (self.dir / "figures_b" / path.name).read_bytes(), path.name)
        single = [(self.dir / f"{name}.png") for name in ("single_a", "single_b")]
        self.result("single_a"), self.result("single_b")
        self.assertEqual(single[0].read_bytes()[:8], PNG_SIGNATURE)
        self.assertEqual(single[0].read_bytes(), single[1].read_bytes())

    def test_the_time_breakdown_gains_an_energy_panel_only_with_energy(self):
        self.result("figures_a"), self.result("breakdown_old")
        old_width, old_height = png_size(self.dir / "breakdown_old.png")
        # Without energy, one panel of max(6.4, 1 + 0.9 * points) inches, as before energy.
        self.assertEqual((old_width, old_height), (int(6.4 * DPI), int(4.6 * DPI)))
        breakdown = self.dir / "figures_a" / "energy_sample.time_breakdown.png"
        self.assertEqual(png_size(breakdown), (2 * old_width, old_height))

    def test_with_many_points_the_energy_panel_goes_under_the_time_panel(self):
        document = with_energy(training_results())
        document["points"] = [dict(document["points"][i % 2], label=f"p{i}") for i in range(10)]
        output = self.dir / "breakdown_many.png"
        time_breakdown.draw(load(document, "many"), output)
        # 1 + 0.9 * 10 = 10 inches wide, two panels of 4.6 inches stacked.
        self.assertEqual(png_size(output), (int(10.0 * DPI), int(9.2 * DPI)))

    def test_the_strategy_comparison_gains_an_energy_panel_only_with_energy(self):
        self.result("cmp_energy"), self.result("cmp_old")
        old_width, old_height = png_size(self.dir / "cmp_old.png")
        width, height = png_size(self.dir / "cmp_energy.png")
        self.assertEqual((width, height - old_height), (old_width, int(2.2 * DPI)))

    def test_bad_targets_and_results_without_energy_exit_2_with_one_error_line(self):
        for name, words in (("bad_text", "--target abc"), ("bad_zero", "--target 0 "),
                            ("bad_high", "--target 1.5"), ("bad_old", "no accuracy_vs_time "
                                                           "series has an energy_J column")):
            with self.subTest(name=name):
                result = self.runs[name].result()
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertTrue(lines[0].startswith("error: "), lines[0])
                self.assertIn(words, lines[0])
        self.assertFalse((self.dir / "bad").exists(), "a figure was written for bad input")


if __name__ == "__main__":
    unittest.main()
