"""Tests of the MDS and three-copy replication baselines of T5 and T6 and of GPD's cost breakdown
(the baselines the papers leave out): the T6 verdict against every strategy facing errors, the breakdown of GPD's time on a
small results file, and the T5 and T6 figures; run by run_plot_tests.py."""

from __future__ import annotations

import json
import sys
import tempfile
import unittest
from pathlib import Path
from types import SimpleNamespace

from plot_test_support import PNG_SIGNATURE, ROOT, aggregate, load, png_size, run

sys.path.insert(0, str(ROOT / "analysis"))
from reproduction import checkpoint_claims, gpd_cost, mnist_claims  # noqa: E402

EPS = "/faults/targets/weights/probability_per_operation"


def point(label: str, strategy: dict, eps: float, replicas: list[dict]) -> dict:
    return {"params": {"/label": label, "/strategy": strategy, EPS: eps}, "label": label,
            "replicas": replicas, "aggregate": aggregate(replicas)}


def trained(accuracy: float, seconds: float | list[float]) -> list[dict]:
    """Replicas at `accuracy`: two at `seconds` + 0.00 and + 0.01 s, or one per listed time."""
    times = seconds if isinstance(seconds, list) else [seconds + r / 100 for r in range(2)]
    return [{"replica": r, "final_test_accuracy": accuracy, "completion_time_s": t,
             "rollbacks": 0.0, "corrected": 1.0} for r, t in enumerate(times)]


def mnist_results(strategies: list[tuple[str, dict, float, float, float]]) -> dict:
    return {"schema_version": 1, "scenario": {"name": "mnist", "workload": {"kind": "training"}},
            "points": [point(label, strategy, eps, trained(accuracy, seconds))
                       for label, strategy, eps, accuracy, seconds in strategies]}


CODENET = {"scheme": "codenet_grid", "m": 5, "n": 4, "grid_rows": 7, "grid_cols": 6}
REPLICATION2 = {"scheme": "replication", "m": 5, "n": 4, "copies": 2}
REPLICATION3 = {"scheme": "replication", "m": 5, "n": 2, "copies": 3}
MDS = {"scheme": "mds", "nodes": 16, "k": 2}
UNCODED = {"scheme": "uncoded", "m": 5, "n": 8}


def rows_of(strategies: list[tuple[str, dict, float, float, float]]) -> dict[str, dict]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "mnist.json"
        path.write_text(json.dumps(mnist_results(strategies)))
        return mnist_claims.final_rows(path)


class T6Verdict(unittest.TestCase):
    BASE = [("error-free", UNCODED, 0.0, 0.90, 1.0), ("uncoded", UNCODED, 3e-4, 0.70, 1.2),
            ("replication 2x", REPLICATION2, 3e-4, 0.90, 8.0),
            ("codenet", CODENET, 3e-4, 0.90, 1.5)]

    def test_rows_carry_the_scheme_the_copies_and_epsilon(self):
        rows = rows_of(self.BASE + [("rep3", REPLICATION3, 3e-4, 0.9, 2.0)])
        self.assertEqual(rows["rep3"]["scheme"], "replication")
        self.assertEqual(rows["rep3"]["copies"], 3)
        self.assertEqual(rows["error-free"]["eps"], 0.0)
        self.assertAlmostEqual(rows["codenet"]["completion_time_s"], 1.505)

    def test_codenet_beating_every_strategy_facing_errors_is_reproduced(self):
        rows = rows_of(self.BASE + [("rep3", REPLICATION3, 3e-4, 0.90, 2.0),
                                    ("mds", MDS, 3e-4, 0.89, 1.0)])
        verdict, sentence = mnist_claims.t6_verdict(rows)
        self.assertEqual(verdict, "reproduced")
        # The error-free reference is faster here but faces no errors: not compared.
        self.assertIn("against the 4 other strategies facing errors", sentence)
        self.assertIn("rep3: CodeNet wins (+0.500 +- 0.000 s and +0.00 +- 0.00 accuracy points against "
                      "CodeNet (2 paired replicas))", sentence)
        self.assertIn("mds: CodeNet wins", sentence)  # less accurate, by every pair

    def test_means_apart_but_paired_intervals_that_include_zero_are_inconclusive(self):
        # CodeNet 1.5, 1.6, 1.4 s; three copies 1.55, 1.5, 1.5 s: faster in 1 of 3 pairs, the
        # mean 0.017 s slower, paired 95% half-width t(2) 0.104 / sqrt(3) = 0.26 s.
        base = [row if row[0] != "codenet" else ("codenet", CODENET, 3e-4, 0.90, [1.5, 1.6, 1.4])
                for row in self.BASE]
        base = [(label, strategy, eps, accuracy, [t, t, t] if not isinstance(t, list) else t)
                for label, strategy, eps, accuracy, t in base]
        rows = rows_of(base + [("rep3", REPLICATION3, 3e-4, 0.90, [1.55, 1.5, 1.5])])
        verdict, sentence = mnist_claims.t6_verdict(rows)
        self.assertEqual(verdict,
                         "inconclusive (the paired intervals include no difference against rep3)")
        self.assertIn("rep3: CodeNet cannot be told apart (+0.017 +- 0.259 s", sentence)

    def test_a_baseline_as_accurate_and_faster_makes_it_partly_reproduced_and_is_named(self):
        rows = rows_of(self.BASE + [("rep3", REPLICATION3, 3e-4, 0.90, 1.1),
                                    ("mds", MDS, 3e-4, 0.90, 9.0)])
        verdict, sentence = mnist_claims.t6_verdict(rows)
        self.assertEqual(verdict, "partly reproduced (CodeNet loses to rep3)")
        self.assertIn("rep3: CodeNet loses (-0.400 +- 0.000 s", sentence)
        self.assertIn("mds: CodeNet wins", sentence)

    def test_losing_to_the_papers_replication_is_not_reproduced(self):
        base = [row if row[0] != "replication 2x" else ("replication 2x", REPLICATION2, 3e-4,
                                                         0.90, 1.0) for row in self.BASE]
        verdict, _ = mnist_claims.t6_verdict(rows_of(base))
        self.assertEqual(verdict, "NOT reproduced (CodeNet loses to replication 2x)")

    def test_a_more_accurate_strategy_wins_only_if_also_faster_by_its_paired_interval(self):
        codenet = {"accuracies": [0.90, 0.91, 0.89], "times": [1.5, 1.6, 1.4]}

        def outcome(accuracies: list[float], times: list[float]) -> str:
            return mnist_claims.paired_comparison(
                codenet, {"accuracies": accuracies, "times": times})[0]

        self.assertEqual(outcome([0.95, 0.96, 0.94], [1.6, 1.7, 1.5]), "wins")  # slower
        self.assertEqual(outcome([0.95, 0.96, 0.94], [1.4, 1.5, 1.3]), "loses")  # faster
        self.assertEqual(outcome([0.85, 0.86, 0.84], [0.1, 0.2, 0.0]), "wins")  # less accurate
        self.assertEqual(outcome([0.95, 0.96, 0.94], [1.5, 1.5, 1.5]), "inconclusive")
        # One pair gives no interval: never a verdict either way.
        self.assertEqual(mnist_claims.paired_comparison(
            {"accuracies": [0.9], "times": [1.5]},
            {"accuracies": [0.9], "times": [1.0]})[0], "inconclusive")


class T7Verdict(unittest.TestCase):
    def claimed(self, uncoded: float) -> dict:
        claims = []
        r = SimpleNamespace(paper=False, results=Path(tempfile.gettempdir()),
                            claim=lambda *args: claims.append(args))
        rows = rows_of([("error-free", UNCODED, 0.0, 0.90, 1.0),
                        ("uncoded", UNCODED, 3e-4, uncoded, 1.2)])
        mnist_claims.t7(r, rows)
        step, claim, _, measured, verdict, _ = claims[0]
        return {"step": step, "claim": claim, "measured": measured, "verdict": verdict}

    def test_without_the_papers_network_the_verdict_is_inconclusive_and_says_why(self):
        c = self.claimed(0.70)
        self.assertIn("784-10000-10000-10", c["claim"])
        self.assertEqual(c["verdict"], "inconclusive (the paper's network is run by --paper; "
                                       "the small one degrades, not collapses)")
        self.assertIn("uncoded ends at 70.00%", c["measured"])


class GpdCost(unittest.TestCase):
    # GPD (2, 1) on 4 nodes, layers 4-6-2, batch 1 (worked by hand):
    # layer 0 (6 x 4): block 3 x 4; decode forward 2 * 16 * 3 = 96; task 2 * 12 + 2 * 4 = 32;
    # layer 1 (2 x 6): block 1 x 6; decode forward 2 * 16 * 1 = 32, backward 2 * 16 * 6 = 192;
    # tasks 2 * 6 + 2 * 6 = 24 and 2 * 6 + 2 * 2 = 16. Decode 320, task 72.
    STRATEGY = {"scheme": "gpd", "m": 2, "n": 1, "nodes": 4}

    def results(self) -> dict:
        replicas = [{"replica": r, "completion_time_s": 10.0, "time_compute_s": 4.0 - r,
                     "time_decode_s": 3.0 + r, "time_communication_s": 1.0,
                     "time_checkpoint_s": 1.0, "time_restart_s": 0.5, "time_lost_s": 0.5 - r / 2,
                     "time_eval_s": r / 2, "iterations": 10} for r in range(2)]
        other = [dict(x, time_decode_s=0.5) for x in replicas]
        return {"schema_version": 1,
                "scenario": {"name": "q", "workload": {"kind": "training", "layers": [4, 6, 2],
                                                       "batch": 1},
                             "cluster": {"speed_flops_per_s": 1000.0}},
                "points": [point("codenet", CODENET, 3e-4, other),
                           point("gpd (2,1) on 4", self.STRATEGY, 3e-4, replicas)]}

    def test_the_decode_flops_come_from_the_scheme(self):
        flops = gpd_cost.gpd_flops_per_iteration(self.STRATEGY, [4, 6, 2], 1)
        self.assertEqual(flops["decode"], 320.0)
        self.assertEqual(flops["task"], 72.0)
        self.assertEqual(flops["update"], 44.0 + 28.0)
        self.assertEqual((flops["k_forward"], flops["k_backward"]), (2, 3))
        self.assertEqual(gpd_cost.gpd_flops_per_iteration(self.STRATEGY, [4, 6, 2], 3)["decode"],
                         960.0)

    def test_the_breakdown_splits_decode_compute_and_protocol_over_the_completion_time(self):
        b = gpd_cost.gpd_breakdown(load(self.results()))
        self.assertEqual(b.label, "gpd (2,1) on 4")
        self.assertAlmostEqual(b.shares["time_decode_s"], 7.0 / 20.0)
        self.assertAlmostEqual(b.shares["time_compute_s"], 7.0 / 20.0)
        # communication 2 + checkpoints 2 + restarts 1 + lost 0.5, of 20 s.
        self.assertAlmostEqual(b.protocol_share, 5.5 / 20.0)
        self.assertAlmostEqual(sum(b.shares.values()), 1.0)
        # 320 flops at 1000 flop/s for 10 iterations per run; 3.5 s measured per run.
        self.assertAlmostEqual(b.decode_s_predicted, 3.2)
        self.assertAlmostEqual(b.decode_s_measured, 3.5)
        # Tasks and updates: 144 flops per iteration; 7 s of compute over two runs.
        self.assertAlmostEqual(b.compute_s_predicted, 1.44)
        self.assertAlmostEqual(b.compute_s_measured, 3.5)
        self.assertEqual(b.blocks, 2)
        self.assertEqual(gpd_cost.compute_ratio_note(load(self.results()), b),
                         "codenet 10.0 s (compute 3.5 s, GPD's 1.00 times it)")
        note = gpd_cost.breakdown_note(b, 0.05)
        self.assertIn("decode 35.0%", note)
        self.assertIn("protocol 27.5%", note)
        self.assertIn("4.44 times a node's own products", note)
        self.assertIn("CodeNet's decode is 5.0%", note)
        self.assertIn("a 1/2 block of each layer's W per node) predict 1.440 s", note)

    def test_results_without_gpd_have_no_breakdown(self):
        document = self.results()
        document["points"] = document["points"][:1]
        self.assertIsNone(gpd_cost.gpd_breakdown(load(document)))


class BaselineFigures(unittest.TestCase):
    def test_t6_draws_every_strategy_of_every_run_and_refuses_results_without_accuracy(self):
        out = Path(tempfile.mkdtemp())
        (out / "a.json").write_text(json.dumps(mnist_results(T6Verdict.BASE)))
        (out / "b.json").write_text(json.dumps(mnist_results(
            [("rep3", REPLICATION3, 3e-4, 0.9, 2.0), ("mds", MDS, 3e-4, 0.9, 9.0)])))
        rows = checkpoint_claims.paper_figures.t6_rows(
            [load(mnist_results(T6Verdict.BASE)), load(mnist_results([("m", MDS, 0, .9, 9.0)]))])
        self.assertEqual([r["label"] for r in rows],
                         ["error-free", "uncoded", "replication 2x", "codenet", "m"])
        result = run("paper_figures.py", "t6", str(out / "a.json"), str(out / "b.json"), "-o",
                     str(out / "t6.png"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((out / "t6.png").read_bytes()[:8], PNG_SIGNATURE)
        self.assertEqual(png_size(out / "t6.png"), (int(7.5 * 120), int(4.8 * 120)))
        bad = mnist_results(T6Verdict.BASE)
        for p in bad["points"]:
            del p["aggregate"]["final_test_accuracy"]
        (out / "bad.json").write_text(json.dumps(bad))
        result = run("paper_figures.py", "t6", str(out / "bad.json"), "-o", str(out / "no.png"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("final_test_accuracy", result.stderr)
        self.assertFalse((out / "no.png").exists())

    def test_t5_across_costs_compares_codenet_with_each_baseline(self):
        vs_cost = {"ratio": [1, 10], "schemes": [
            {"label": "codenet", "time_per_iteration_s": [1.0, 2.0]},
            {"label": "replication", "time_per_iteration_s": [2.0, 8.0]},
            {"label": "mds", "time_per_iteration_s": [0.5, 4.0]}]}
        text = checkpoint_claims.across_costs_text(vs_cost)
        self.assertIn("over replication's: 0.500 (x1), 0.250 (x10) (lower at 2 of 2 costs)", text)
        self.assertIn("over mds's: 2.000 (x1), 0.500 (x10) (lower at 1 of 2 costs)", text)
        theory = {"eps": 3e-4, "schemes": [
            {"label": s["label"], "iteration_s": 0.5, "optimal_time_per_iteration_s": t}
            for s, t in zip(vs_cost["schemes"], (1.0, 2.0, 0.8))]}
        theory["schemes"].append({"label": "rep3", "optimal_time_per_iteration_s": 4.0})
        comparison = checkpoint_claims.baseline_comparison(theory)
        self.assertEqual(comparison, "CodeNet's closed-form optimum is 1.250 of mds's (CodeNet "
                                     "NOT lower), 0.250 of rep3's")
        out = Path(tempfile.mkdtemp())
        theory["vs_cost"] = vs_cost
        (out / "theory.json").write_text(json.dumps(theory))
        result = run("paper_figures.py", "t5cost", str(out / "theory.json"), "-o",
                     str(out / "cost.png"))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_t5_counts_rollbacks_that_no_detected_decode_explains(self):
        replicas = [{"rollbacks": 3.0, "detected": 3.0}, {"rollbacks": 2.0, "detected": 0.0},
                    {"rollbacks": 0.0, "detected": 1.0}]
        self.assertEqual(checkpoint_claims.unexplained_rollbacks(replicas), 2.0)

    def test_t5_draws_the_monte_carlo_points_of_several_results_files(self):
        tau = "/checkpoint/every_iterations"
        docs = []
        for label in ("a", "b"):
            points = [{"params": {tau: t, "/label": label}, "label": label,
                       "replicas": [{"replica": 0, "completed": 1, "iterations": 10,
                                     "completion_time_s": t / 10.0}], "aggregate": {}}
                      for t in (1, 10)]
            docs.append(load({"schema_version": 1, "scenario": {"name": label},
                              "points": points}, label))
        rows = checkpoint_claims.paper_figures.per_useful_iteration_of_all(docs,
                                                                          "completion_time_s")
        self.assertEqual(sorted(rows), ["a", "b"])
        self.assertEqual([r[1] for r in rows["b"]], [0.01, 0.1])


if __name__ == "__main__":
    unittest.main()
