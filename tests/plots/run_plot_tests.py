#!/usr/bin/env python3
"""Tests of the plot scripts in analysis/plots: shared helpers in-process, every script and the
dispatcher as commands on small generated results. Exit 77 (skipped) without matplotlib."""

from __future__ import annotations

import importlib.util
import json
import math
import os
import subprocess
import sys
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

# plot_test_support puts analysis/plots on sys.path, for the script modules imported after it.
from plot_test_support import (PLOTS, PNG_SIGNATURE, T95_DOF2, aggregate, iterative_results,  # noqa: I001
                               load, png_size, run, training_results)
import common  # noqa: E402
# The energy tests live in their own module; importing their classes here runs them with these.
from energy_plot_tests import EnergyMath, EnergyReport, EnergyScripts  # noqa: E402, F401
from production_report_tests import ProductionReport  # noqa: E402, F401
from cnn_report_tests import CnnReport  # noqa: E402, F401
from reproduce_report_tests import (AllStepsVerdict, PooledSlope, ReadmeVerdicts,  # noqa: E402, F401
                                    ReproduceReport)
from baseline_tests import BaselineFigures, GpdCost, T6Verdict, T7Verdict  # noqa: E402, F401
from sweep_figure_tests import SweepChecks, SweepFigures  # noqa: E402, F401
from advice_plot_tests import AdviceChecks, AdviceFigures  # noqa: E402, F401
import loss_vs_iteration  # noqa: E402
import paper_figures  # noqa: E402
import sweep_metric  # noqa: E402

SKIP = 77


# ------------------------------------------------------------------------------------------


class SharedHelpers(unittest.TestCase):
    def test_student_t_quantiles_match_the_tables(self):
        # t(0.975, dof) from Boost.Math, as analysis/summary_statistics.cpp uses.
        for dof, expected in [(1, 12.7062047361747), (2, 4.30265272974946), (10, 2.22813885198627),
                              (30, 2.04227245630124), (31, 2.03951344639641),
                              (40, 2.02107539030627), (120, 1.97993040508244),
                              (1000, 1.96233908082641)]:
            self.assertAlmostEqual(common.student_t95(dof), expected, places=6, msg=f"dof {dof}")
        with self.assertRaises(ValueError):
            common.student_t95(0)

    def test_axis_labels_turn_unit_suffixes_into_units(self):
        self.assertEqual(common.quantity_label("completion_time_s"), "completion time (s)")
        self.assertEqual(common.quantity_label("/cluster/network/bandwidth_Bps"), "bandwidth (B/s)")
        self.assertEqual(common.quantity_label("/cluster/speed_flops_per_s"), "speed (FLOP/s)")
        self.assertEqual(common.quantity_label("final_test_accuracy"), "final test accuracy")
        self.assertEqual(common.quantity_label("/strategy/epsilon"), "epsilon")
        self.assertEqual(common.pointer_name("/a/b~1c~0d"), "b/c~d")

    def test_points_are_named_by_label_then_params_then_scenario(self):
        def names(doc: dict, stem: str = "r") -> list[str]:
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / f"{stem}.json"
                path.write_text(json.dumps(doc))
                results = common.load_results(path)
            return [results.label(p) for p in results.points]

        # Only the params that vary name a point; a lone point is named by all of its params.
        self.assertEqual(names(training_results()),
                         ["codenet, p = 0.001", "probability_per_operation=0.01"])
        lone = {"scenario": {"name": "lone"},
                "points": [{"params": {"/cluster/nodes": 8, "/strategy/scheme": "mds"},
                            "replicas": [], "aggregate": {}}]}
        self.assertEqual(names(lone), ["nodes=8, scheme=mds"])
        lone["points"][0]["params"] = {}
        self.assertEqual(names(lone), ["lone"])
        del lone["scenario"]
        self.assertEqual(names(lone, "stem_name"), ["stem_name"])

    def test_mean_band_averages_where_all_replicas_have_data(self):
        a = common.make_curve([0, 1, 2], [0.0, 1.0, 2.0])
        b = common.make_curve([0, 1, 2, 3], [2.0, 3.0, 4.0, 5.0])
        grid, mean, half = common.mean_band([a, b])
        self.assertEqual(list(grid), [0.0, 1.0, 2.0])
        self.assertEqual(list(mean), [1.0, 2.0, 3.0])
        # sd of {x, x+2} is sqrt(2); half-width t(1) * sqrt(2) / sqrt(2)
        for h in half:
            self.assertAlmostEqual(h, 12.706204736174707)
        grid, mean, half = common.mean_band([a])
        self.assertEqual(list(mean), [0.0, 1.0, 2.0])
        self.assertEqual(list(half), [0.0, 0.0, 0.0])

    def test_mean_band_interpolates_linearly_or_holds_steps(self):
        a = common.make_curve([0, 2], [0.0, 2.0])
        b = common.make_curve([0, 1, 2], [0.0, 0.0, 0.0])
        self.assertEqual(list(common.mean_band([a, b])[1]), [0.0, 0.5, 1.0])
        self.assertEqual(list(common.mean_band([a, b], step=True)[1]), [0.0, 0.0, 1.0])
        disjoint = common.make_curve([5, 6], [1.0, 1.0])
        self.assertEqual(len(common.mean_band([a, disjoint])[0]), 0)

    def test_the_loss_axis_turns_logarithmic_when_losses_span_more_than_three_decades(self):
        def curve(*losses):
            return common.make_curve(range(len(losses)), losses)

        self.assertFalse(loss_vs_iteration.spans_decades([curve(2.3, 0.4, 0.3)]))
        self.assertFalse(loss_vs_iteration.spans_decades([curve(2.3, 0.01)]))  # under 1e3
        self.assertTrue(loss_vs_iteration.spans_decades([curve(2.3, 0.4), curve(2.3, 1e42)]))
        self.assertFalse(loss_vs_iteration.spans_decades([curve(2.3, 0.0, 1e42)]))  # a zero
        self.assertFalse(loss_vs_iteration.spans_decades([]))

    def test_curves_drop_missing_values_and_keep_the_last_value_of_a_redone_x(self):
        curve = common.make_curve([0, 10, 20, 10, 20, 30], [5.0, 4.0, 3.0, 3.5, None, 2.0])
        self.assertEqual(list(curve.x), [0.0, 10.0, 20.0, 30.0])
        self.assertEqual(list(curve.y), [5.0, 3.5, 3.0, 2.0])

    def test_the_swept_param_and_the_varying_params_are_found(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.json"
            path.write_text(json.dumps(iterative_results()))
            results = common.load_results(path)
        self.assertEqual(common.numeric_param(results.points), "/checkpoint/interval_s")
        self.assertEqual(common.varying_params(results.points, exclude=["/checkpoint/interval_s"]),
                         ["/cluster/nodes"])
        # Lines of a sweep are named by the other varying params, or by a /label param.
        self.assertEqual(common.params_summary({"/a/x_s": 1.5, "/b": "mds"}), "x_s=1.5, b=mds")
        self.assertEqual(common.params_summary({"/label": "coded", "/b": "mds"}), "coded")
        self.assertEqual(common.params_summary({"/label": "coded", "/b": "mds"}, ["/b"]), "b=mds")
        self.assertEqual(common.replica_count_text([2, 2]), "n = 2 replicas")
        self.assertEqual(common.replica_count_text([3, 20]), "n = 3-20 replicas")


class SweepLines(unittest.TestCase):
    def results(self, doc: dict) -> common.Results:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "r.json"
            path.write_text(json.dumps(doc))
            return common.load_results(path)

    def lines(self, results: common.Results, x: str, group: str | None = None) -> list:
        return [(name, [p.index for p in points])
                for name, points in sweep_metric.groups(results, x, group)]

    def test_lines_follow_the_other_swept_params_or_the_group_param(self):
        results = self.results(iterative_results())
        by_nodes = [("nodes=8", [0, 1, 2, 3]), ("nodes=16", [4, 5, 6, 7])]
        self.assertEqual(self.lines(results, "/checkpoint/interval_s"), by_nodes)
        self.assertEqual(self.lines(results, "/checkpoint/interval_s", "/cluster/nodes"), by_nodes)
        self.assertEqual([name for name, _ in self.lines(results, "/cluster/nodes")],
                         ["interval_s=10", "interval_s=30", "interval_s=100", "interval_s=300"])
        with self.assertRaises(common.InputError):
            sweep_metric.groups(results, "/checkpoint/interval_s", "/no/such")

    def test_a_label_param_names_the_lines(self):
        doc = iterative_results()
        for point in doc["points"]:
            nodes = point["params"]["/cluster/nodes"]
            point["params"]["/label"] = f"{nodes} nodes"
        results = self.results(doc)
        self.assertEqual([name for name, _ in self.lines(results, "/checkpoint/interval_s")],
                         ["8 nodes", "16 nodes"])


class Scripts(unittest.TestCase):
    # The figure-writing runs (about a second each, mostly importing matplotlib) start together
    # in setUpClass and the tests collect them, so the suite takes the time of the slowest few.
    SINGLE = {
        "accuracy_vs_time.py": ["training", "--step", "--show-replicas"],
        "loss_vs_iteration.py": ["training", "--logy"],
        "time_breakdown.py": ["iterative"],
        "sweep_metric.py": ["iterative", "--x", "/checkpoint/interval_s", "--y", "time_lost_s",
                            "--group", "/cluster/nodes", "--logx", "--logy"],
    }

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        cls.inputs = {"training": cls.dir / "training_sample.json",
                      "iterative": cls.dir / "checkpoint_sweep.json"}
        cls.inputs["training"].write_text(json.dumps(training_results(), indent=2))
        cls.inputs["iterative"].write_text(json.dumps(iterative_results(), indent=2))
        cls.training, cls.iterative = cls.inputs["training"], cls.inputs["iterative"]
        cls.pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
        cls.runs = {}
        for script, args in cls.SINGLE.items():
            cls.start(script, script, str(cls.inputs[args[0]]), *args[1:], "-o",
                      str(cls.dir / "single" / f"{script}.png"))
        for run_name, source in (("figures_a", "training"), ("figures_b", "training"),
                                 ("figures_iterative", "iterative")):
            cls.start(run_name, "plot.py", str(cls.inputs[source]), "-o", str(cls.dir / run_name))

    @classmethod
    def start(cls, name: str, script: str, *args: str) -> None:
        cls.runs[name] = cls.pool.submit(run, script, *args)

    @classmethod
    def tearDownClass(cls):
        cls.pool.shutdown(wait=True)
        cls.tmp.cleanup()

    def assert_png(self, path: Path):
        self.assertTrue(path.is_file(), f"{path} was not written")
        data = path.read_bytes()
        self.assertGreater(len(data), 1000, f"{path} is too small")
        self.assertEqual(data[:8], PNG_SIGNATURE, f"{path} is not a PNG")

    def assert_ok(self, result: subprocess.CompletedProcess):
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")

    def assert_bad_input(self, result: subprocess.CompletedProcess, file: Path, words: str):
        self.assertEqual(result.returncode, 2, result.stderr)
        lines = result.stderr.splitlines()
        self.assertEqual(len(lines), 1, result.stderr)
        self.assertTrue(lines[0].startswith(f"error: {file}: "), lines[0])
        self.assertIn(words, lines[0])

    def test_every_script_writes_a_png(self):
        for script in self.SINGLE:
            with self.subTest(script=script):
                self.assert_ok(self.runs[script].result())
                self.assert_png(self.dir / "single" / f"{script}.png")

    def test_the_dispatcher_writes_the_training_figures_and_the_sweeps(self):
        result = self.runs["figures_a"].result()
        self.assert_ok(result)
        out = self.dir / "figures_a"
        names = ["accuracy_vs_time", "loss_vs_iteration", "time_breakdown",
                 "sweep_final_test_accuracy", "sweep_completion_time_s", "sweep_rollbacks",
                 "sweep_corrected"]
        expected = [out / f"training_sample.{name}.png" for name in names]
        self.assertEqual(result.stdout.splitlines(), [str(p) for p in expected])
        for path in expected:
            self.assert_png(path)

    def test_a_figure_that_cannot_be_written_keeps_the_previous_one_and_leaves_nothing(self):
        # Files may grow to 4 KiB (as on a full disk, the PNG's writes fail): before, writing
        # truncated the previous figure first, and a full disk left an empty one.
        import resource
        import signal

        def small_files():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))

        out = self.dir / "full_disk"
        out.mkdir()
        (out / "loss.png").write_bytes(b"the previous figure")
        result = subprocess.run(
            [sys.executable, str(PLOTS / "loss_vs_iteration.py"), str(self.training), "-o",
             str(out / "loss.png")], capture_output=True, text=True, timeout=120,
            preexec_fn=small_files)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertIn("cannot write the figure", result.stderr)
        self.assertEqual(sorted(p.name for p in out.iterdir()), ["loss.png"])
        self.assertEqual((out / "loss.png").read_bytes(), b"the previous figure")

    def test_a_figure_named_like_the_file_it_is_drawn_from_is_refused_and_the_file_kept(self):
        # Before, -o naming the results file replaced it with the PNG.
        own = self.dir / "own_input.json"
        own.write_bytes(Path(self.training).read_bytes())
        before = own.read_bytes()
        result = subprocess.run(
            [sys.executable, str(PLOTS / "loss_vs_iteration.py"), str(own), "-o", str(own)],
            capture_output=True, text=True, timeout=120)
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(result.stderr,
                         f"error: {own}: is {own}, which this figure is drawn from (expected -o "
                         "naming another file)\n")
        self.assertEqual(own.read_bytes(), before)

    def test_the_same_results_give_the_same_png_bytes(self):
        self.assert_ok(self.runs["figures_a"].result())
        self.assert_ok(self.runs["figures_b"].result())
        first = sorted((self.dir / "figures_a").iterdir())
        self.assertEqual(len(first), 7)
        for path in first:
            again = self.dir / "figures_b" / path.name
            self.assertEqual(path.read_bytes(), again.read_bytes(), path.name)

    def test_the_dispatcher_writes_the_iterative_job_figures(self):
        result = self.runs["figures_iterative"].result()
        self.assert_ok(result)
        out = self.dir / "figures_iterative"
        expected = [out / "checkpoint_sweep.time_breakdown.png",
                    out / "checkpoint_sweep.sweep_completion_time_s.png"]
        self.assertEqual(result.stdout.splitlines(), [str(p) for p in expected])
        for path in expected:
            self.assert_png(path)

    def test_bad_input_exits_2_with_one_error_line(self):
        missing = self.dir / "missing.json"
        not_json = self.dir / "not_json.json"
        not_json.write_text("{\"points\": [")
        no_points = self.dir / "no_points.json"
        no_points.write_text(json.dumps({"schema_version": 1, "scenario": {}, "points": []}))
        bad_rows = self.dir / "bad_rows.json"
        doc = training_results()
        doc["points"][1]["replicas"][2]["accuracy_vs_time"]["rows"][3] = [1.0, 2.0]
        bad_rows.write_text(json.dumps(doc))
        out = str(self.dir / "bad" / "x.png")
        self.assert_bad_input(run("plot.py", str(missing), "-o", out), missing, "no such file")
        self.assert_bad_input(run("accuracy_vs_time.py", str(not_json), "-o", out), not_json,
                              "not valid JSON")
        self.assert_bad_input(run("time_breakdown.py", str(no_points), "-o", out), no_points,
                              "points")
        self.assert_bad_input(run("accuracy_vs_time.py", str(bad_rows), "-o", out), bad_rows,
                              "points[1].replicas[2].accuracy_vs_time.rows[3]")
        self.assert_bad_input(run("sweep_metric.py", str(self.iterative), "--y", "nope", "-o", out),
                              self.iterative, "nope")
        self.assert_bad_input(run("loss_vs_iteration.py", str(self.iterative), "-o", out),
                              self.iterative, "series")
        self.assertFalse((self.dir / "bad").exists(), "a figure was written for bad input")

    def test_replicas_without_a_common_range_are_drawn_one_by_one(self):
        doc = training_results()
        rows = doc["points"][0]["replicas"][0]["accuracy_vs_time"]["rows"]
        del rows[2:]  # replica 0 now ends before the others start
        for row in rows:
            row[0] *= 0.1
        path = self.dir / "disjoint.json"
        path.write_text(json.dumps(doc))
        out = self.dir / "disjoint" / "accuracy.png"
        self.assert_ok(run("accuracy_vs_time.py", str(path), "-o", str(out)))
        self.assert_png(out)

    def test_missing_matplotlib_exits_1_with_the_install_hint(self):
        shadow = self.dir / "no_matplotlib" / "matplotlib"
        shadow.mkdir(parents=True)
        (shadow / "__init__.py").write_text("raise ImportError('matplotlib is hidden')\n")
        env = dict(os.environ, PYTHONPATH=str(shadow.parent))
        result = run("plot.py", str(self.training), "-o", str(self.dir / "none"), env=env)
        self.assertEqual(result.returncode, 1, result.stderr)
        self.assertEqual(result.stderr.strip(), common.MISSING_MATPLOTLIB)
        self.assertFalse((self.dir / "none").exists())


def timeline_trace(truncated: bool = False, energy: bool = False) -> dict:
    """A small trace shaped like codesim run --trace writes: 3 nodes and the job; with
    `energy`, the energy_J counter (1 kJ per ms of simulated time)."""
    events = []
    for pid, name in ((0, "node 0"), (1, "node 1"), (2, "node 2"), (3, "job")):
        events.append({"name": "process_name", "ph": "M", "pid": pid, "tid": 0,
                       "args": {"name": name}})
    for k in range(6):
        for pid in range(3):
            start = k * 1000.0
            events.append({"name": "forward", "ph": "X", "pid": pid, "tid": 0, "ts": start,
                           "dur": 300.0 + 100 * pid,
                           "args": {"straggler_factor": 1.0 + pid,
                                    "outcome": "cancelled" if pid == 2 else "done"}})
            events.append({"name": "communication", "ph": "X", "pid": pid, "tid": 1,
                           "ts": start + 600, "dur": 200.0})
            events.append({"name": "decode", "ph": "X", "pid": pid, "tid": 1,
                           "ts": start + 800, "dur": 100.0})
    events.append({"name": "down", "ph": "X", "pid": 2, "tid": 2, "ts": 2500.0, "dur": 1000.0})
    events.append({"name": "fault", "ph": "i", "s": "t", "pid": 1, "tid": 0, "ts": 1200.0,
                   "args": {"target": "weights"}})
    events.append({"name": "crash", "ph": "i", "s": "t", "pid": 2, "tid": 0, "ts": 2500.0})
    events.append({"name": "rollback", "ph": "i", "s": "t", "pid": 3, "tid": 0, "ts": 3000.0,
                   "args": {"from_iteration": 3, "to_iteration": 2}})
    events.append({"name": "checkpoint", "ph": "i", "s": "t", "pid": 3, "tid": 0, "ts": 2000.0,
                   "args": {"iteration": 2}})
    events.append({"name": "rollback", "ph": "i", "s": "t", "pid": 3, "tid": 0, "ts": 3500.0,
                   "args": {"from_iteration": 2, "to_iteration": 2}})
    if energy:
        events += [{"name": "energy_J", "ph": "C", "pid": 3, "tid": 0, "ts": 1000.0 * k,
                    "args": {"energy_J": 1e3 * k}} for k in range(7)]
    return {"displayTimeUnit": "ms", "traceEvents": events,
            "otherData": {"truncated": truncated, "events_written": len(events)}}


class Timeline(unittest.TestCase):
    """analysis/plots/timeline.py, the Gantt figure of codesim run --trace."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = Path(self.tmp.name)
        self.trace = self.dir / "trace.json"
        self.trace.write_text(json.dumps(timeline_trace()))

    def tearDown(self):
        self.tmp.cleanup()

    def test_a_trace_is_drawn_as_a_gantt_png_the_same_bytes_every_time(self):
        first, second = self.dir / "a.png", self.dir / "b.png"
        for output in (first, second):
            result = run("timeline.py", str(self.trace), "-o", str(output), "--window", "0,4")
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")
        self.assertEqual(first.read_bytes()[:8], PNG_SIGNATURE)
        self.assertEqual(first.read_bytes(), second.read_bytes())
        truncated = self.dir / "truncated.json"
        truncated.write_text(json.dumps(timeline_trace(truncated=True)))
        result = run("timeline.py", str(truncated), "-o", str(self.dir / "t.png"))
        self.assertEqual(result.returncode, 0, result.stderr)

    def test_the_work_a_rollback_threw_away_runs_from_its_checkpoint_or_the_last_rollback(self):
        import timeline
        self.assertEqual(timeline.thrown_away(timeline_trace()["traceEvents"]),
                         [(0.002, 0.003), (0.003, 0.0035)])

    def test_a_trace_with_its_energy_counter_gains_an_energy_panel(self):
        import timeline
        energy = timeline.energy_counter(timeline_trace(energy=True)["traceEvents"])
        self.assertEqual(len(energy), 7)
        self.assertEqual(timeline.energy_at(energy, 0.0025), 2500.0)
        self.assertEqual(timeline.energy_at(energy, 99.0), 6000.0)
        plain, with_energy = self.dir / "plain.png", self.dir / "energy.png"
        traced = self.dir / "energy.json"
        traced.write_text(json.dumps(timeline_trace(energy=True)))
        for trace, output in ((self.trace, plain), (traced, with_energy)):
            result = run("timeline.py", str(trace), "-o", str(output))
            self.assertEqual(result.returncode, 0, result.stderr)
        (width, height), (energy_width, energy_height) = png_size(plain), png_size(with_energy)
        self.assertEqual(energy_width, width)
        self.assertEqual(energy_height - height, int(1.2 * 120))  # the energy panel's 1.2 in

    def test_bad_timeline_input_exits_2_with_one_error_line(self):
        not_trace = self.dir / "results.json"
        not_trace.write_text(json.dumps({"points": []}))
        out = self.dir / "bad" / "x.png"
        for args, words in (((str(self.trace), "--window", "3,1"), "--window 3,1"),
                            ((str(self.trace), "--window", "x"), "--window x"),
                            ((str(self.dir / "missing.json"),), "no such file"),
                            ((str(not_trace),), "traceEvents")):
            with self.subTest(args=args):
                result = run("timeline.py", *args, "-o", str(out))
                self.assertEqual(result.returncode, 2, result.stderr)
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertTrue(lines[0].startswith("error: "), lines[0])
                self.assertIn(words, lines[0])
        self.assertFalse((self.dir / "bad").exists())


class PaperFigures(unittest.TestCase):
    """analysis/plots/paper_figures.py (scripts/reproduce's T2-T5) on small inputs."""

    EPS = paper_figures.EPS_PARAM
    TAU = paper_figures.TAU_PARAM

    @staticmethod
    def results_with(points: list[dict]) -> dict:
        return {"schema_version": 1, "complete": True, "scenario": {"name": "paper"}, "seed": 1,
                "points": points}

    @staticmethod
    def point(params: dict, label: str, replicas: list[dict]) -> dict:
        return {"params": params, "label": label, "replicas": replicas,
                "aggregate": aggregate(replicas)}

    def rollback_results(self) -> dict:
        points = []
        for eps, rollbacks in ((1e-3, 10), (1e-2, 100)):
            replicas = [{"replica": r, "rollbacks": rollbacks, "iterations": 90, "checkpoints": 89}
                        for r in range(2)]
            points.append(self.point({self.EPS: eps, "/label": "a"}, "a", replicas))
        return self.results_with(points)

    def test_rollback_estimates_pool_replicas_with_wilson_intervals(self):
        path = Path(tempfile.mkdtemp()) / "t4.json"
        path.write_text(json.dumps(self.rollback_results()))
        rows = paper_figures.rollback_estimates(common.load_results(path))["a"]
        self.assertEqual([r["eps"] for r in rows], [1e-3, 1e-2])
        self.assertAlmostEqual(rows[0]["q"], 20 / 200)
        self.assertLess(rows[0]["lo"], rows[0]["q"])
        self.assertGreater(rows[0]["hi"], rows[0]["q"])
        p, lo, hi = paper_figures.wilson95(0, 100)
        self.assertEqual(p, 0.0)
        self.assertAlmostEqual(lo, 0.0, places=12)
        self.assertAlmostEqual(hi, 0.037, places=3)

    def test_every_paper_figure_writes_a_png(self):
        out = Path(tempfile.mkdtemp())
        codes = {"scheme": "gpd", "parameters": {"m": 2, "n": 1, "nodes": 6},
                 "recovery_threshold": {"forward": 2, "backward": 3},
                 "decode_trials": {"trials": 5}}
        for direction, symbols in (("forward", 6), ("backward", 6)):
            rows = [{"errors": e, "exact": 5 if e < 2 else 0, "detected": 0 if e < 2 else 5,
                     "wrong": 0, "success_rate": 1.0 if e < 2 else 0.0,
                     "worst_relative_error": 0.0} for e in range(4)]
            codes["decode_trials"][direction] = {"symbols": symbols,
                                                 "by_model": {"adversarial": rows,
                                                              "random": rows},
                                                 "adversarial_values": {"corrects": 1,
                                                                        "detects": 2,
                                                                        "rows": rows}}
        tolerance = {"m": 2, "n": 2, "rows": [
            {"nodes": p, "gpd_forward": p // 3, "gpd_backward": p // 4, "codenet": 1,
             "mds": None if p < 8 else 1, "replication_correctable": 0,
             "replication_detectable": 1} for p in range(5, 12)],
            "ratio": [{"blocks": b, "ratio_at_3mn": b, "detection_ratio_at_2mn": b / 2,
                       "training_ratio_at_3mn": b / 2}
                      for b in (1, 4, 9)]}
        t4_theory = {"schemes": [{"label": "a", "eps": [1e-4, 1e-3, 1e-2],
                                  "q": [1e-3, 1e-2, 1e-1], "slope": 1.0}]}
        t5_theory = {"eps": 3e-4, "schemes": [{
            "label": "a", "tau": [1, 10, 100], "time_per_iteration_s": [0.01, 0.002, 0.003],
            "optimal_tau": 10, "vs_eps": {"eps": [1e-4, 1e-3], "time_per_iteration_s": [1, 2]}}]}
        t5_results = self.results_with([
            self.point({self.TAU: tau, "/label": "a"}, "a",
                       [{"replica": r, "completed": 1, "iterations": 100,
                         "completion_time_s": 0.2 * tau ** 0.1 + 0.01 * r} for r in range(3)])
            for tau in (1, 10, 100)])
        inputs = {"codes.json": codes, "tolerance.json": tolerance, "t4.json": t4_theory,
                  "t5.json": t5_theory, "t4_results.json": self.rollback_results(),
                  "t5_results.json": t5_results}
        for name, document in inputs.items():
            (out / name).write_text(json.dumps(document))
        jobs = {"t2": [str(out / "codes.json")], "t3": [str(out / "tolerance.json")],
                "t4": [str(out / "t4.json"), f"numeric={out / 't4_results.json'}"],
                "t5": [str(out / "t5.json"), str(out / "t5_results.json")]}
        for figure, args in jobs.items():
            with self.subTest(figure=figure):
                png = out / f"{figure}.png"
                result = run("paper_figures.py", figure, *args, "-o", str(png))
                self.assertEqual(result.returncode, 0, result.stderr)
                data = png.read_bytes()
                self.assertGreater(len(data), 1000)
                self.assertEqual(data[:8], PNG_SIGNATURE)

    def test_t5_gains_an_energy_panel_when_the_theory_has_energy(self):
        out = Path(tempfile.mkdtemp())
        theory = {"eps": 3e-4, "schemes": [{
            "label": "a", "tau": [1, 10], "time_per_iteration_s": [0.01, 0.002],
            "energy_per_iteration_J": [5.0, 1.0], "optimal_tau": 10,
            "vs_eps": {"eps": [1e-4, 1e-3], "time_per_iteration_s": [1, 2]}}]}
        results = self.results_with([
            self.point({self.TAU: tau, "/label": "a"}, "a",
                       [{"replica": r, "completed": 1, "iterations": 100,
                         "completion_time_s": 0.1 * tau, "energy_J": 100.0 * tau + 10 * r}
                        for r in range(3)])
            for tau in (1, 10)])
        rows = paper_figures.per_useful_iteration(load(results, "t5"), "energy_J")["a"]
        # tau = 1: (100, 110, 120) J over 100 iterations, mean 1.1 J, half-width t(2) * 0.1 / sqrt 3.
        self.assertEqual([r[0] for r in rows], [1.0, 10.0])
        self.assertAlmostEqual(rows[0][1], 1.1)
        self.assertAlmostEqual(rows[0][2], T95_DOF2 * 0.1 / math.sqrt(3))
        (out / "theory.json").write_text(json.dumps(theory))
        (out / "results.json").write_text(json.dumps(results))
        result = run("paper_figures.py", "t5", str(out / "theory.json"), str(out / "results.json"),
                     "-o", str(out / "t5.png"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(png_size(out / "t5.png"), (int(17.0 * 120), int(4.4 * 120)))

    def test_t5_across_costs_draws_each_strategy_and_their_ratio(self):
        out = Path(tempfile.mkdtemp())
        theory = {"eps": 3e-4, "schemes": [{"label": "a", "iteration_s": 0.5},
                                           {"label": "b", "iteration_s": 0.25}],
                  "vs_cost": {"ratio": [1, 10, 100], "schemes": [
                      {"label": "a", "time_per_iteration_s": [0.6, 1.0, 3.0]},
                      {"label": "b", "time_per_iteration_s": [0.5, 2.0, 9.0]}]}}
        (out / "theory.json").write_text(json.dumps(theory))
        result = run("paper_figures.py", "t5cost", str(out / "theory.json"), "-o",
                     str(out / "cost.png"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(png_size(out / "cost.png"), (int(11.5 * 120), int(4.4 * 120)))
        # A theory without the sweep is bad input, not a crash.
        del theory["vs_cost"]
        (out / "theory.json").write_text(json.dumps(theory))
        result = run("paper_figures.py", "t5cost", str(out / "theory.json"), "-o",
                     str(out / "none.png"))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertFalse((out / "none.png").exists())

    def test_the_dispatcher_draws_a_labelled_grid_as_one_line_per_label(self):
        # epsilon x {a, b}: epsilon varies within each label, so it is the x axis.
        points = []
        for label in ("a", "b"):
            for eps in (1e-3, 1e-2):
                replicas = [{"replica": 0, "rollbacks": 5.0, "completion_time_s": 1.0,
                             "time_compute_s": 1.0, "iterations": 90}]
                points.append(self.point({self.EPS: eps, "/label": label}, label, replicas))
        document = self.results_with(points)
        document["scenario"]["workload"] = {"kind": "training"}
        out = Path(tempfile.mkdtemp())
        (out / "grid.json").write_text(json.dumps(document))
        result = run("plot.py", str(out / "grid.json"), "-o", str(out / "figures"))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue((out / "figures" / "grid.sweep_rollbacks.png").is_file(), result.stdout)

    def test_the_dispatcher_compares_labelled_strategies_under_swept_settings(self):
        # {a, b} x two fault sections: the settings are objects, so no sweep axis, but a
        # comparison with one group of bars per setting.
        faults = [{"targets": {"weights": {"probability_per_operation": 3e-4}}},
                  {"value_model": {"kind": "bitflip", "field": "exponent"},
                   "targets": {"product": {"probability_per_operation": 3e-4}}}]
        points = []
        for label in ("a", "b"):
            for f in faults:
                replicas = [{"replica": 0, "rollbacks": 2.0, "completion_time_s": 1.5,
                             "final_test_accuracy": 0.9, "time_compute_s": 1.0}]
                points.append(self.point({"/faults": f, "/label": label}, label, replicas))
        document = self.results_with(points)
        document["scenario"]["workload"] = {"kind": "training"}
        out = Path(tempfile.mkdtemp())
        (out / "cmp.json").write_text(json.dumps(document))
        result = run("plot.py", str(out / "cmp.json"), "-o", str(out / "figures"))
        self.assertEqual(result.returncode, 0, result.stderr)
        png = out / "figures" / "cmp.strategy_comparison.png"
        self.assertEqual(png.read_bytes()[:8], PNG_SIGNATURE)
        self.assertFalse(list((out / "figures").glob("cmp.sweep_*.png")), result.stdout)

    def test_swept_settings_are_named_in_a_few_words(self):
        import strategy_comparison
        self.assertEqual(strategy_comparison.short_text({}), "off")
        self.assertEqual(strategy_comparison.short_text({"kind": "shifted_exponential",
                                                         "shift": 1}), "shifted_exponential")
        self.assertEqual(strategy_comparison.short_text(
            {"value_model": {"kind": "bitflip", "field": "exponent"},
             "targets": {"weights": {"probability_per_operation": 0},
                         "product": {"probability_per_operation": 3e-4}}}),
            "product: bitflip exponent")
        self.assertEqual(strategy_comparison.short_text({"mtbf_s": 50, "repair_s": 0.5}),
                         "mtbf_s=50, repair_s=0.5")

    def test_the_report_trusts_no_strategy_with_silent_corruptions(self):
        import strategy_report
        rows = [{"strategy": "uncoded", "time": 1.0, "accuracy": 0.9, "silent": 5.0},
                {"strategy": "abft", "time": 1.2, "accuracy": 0.88, "silent": 0.0},
                {"strategy": "codenet", "time": 1.1, "accuracy": 0.80, "silent": 0.0}]
        self.assertEqual(strategy_report.winner(rows)["strategy"], "abft")
        self.assertEqual(strategy_report.nodes_of(
            {"scheme": "abft_codenet", "m": 5, "n": 4, "grid_rows": 7, "grid_cols": 6}), 38)
        self.assertEqual(strategy_report.nodes_of(
            {"scheme": "replication", "m": 5, "n": 4, "copies": 2}), 40)
        self.assertEqual(strategy_report.nodes_of(
            {"scheme": "gpd", "m": 2, "n": 4, "nodes": 16}), 16)

    def test_the_report_names_the_trusted_strategy_that_spent_least_energy(self):
        import strategy_report
        rows = [{"strategy": "uncoded", "accuracy": 0.9, "silent": 5.0, "energy_kJ": 1.0},
                {"strategy": "replication", "accuracy": 0.9, "silent": 0.0, "energy_kJ": 3.0},
                {"strategy": "codenet", "accuracy": 0.9, "silent": 0.0, "energy_kJ": 2.5},
                {"strategy": "abft", "accuracy": 0.7, "silent": 0.0, "energy_kJ": 2.0}]
        self.assertEqual(strategy_report.least_energy(rows)["strategy"], "codenet")
        for r in rows:
            r["energy_kJ"] = None
        self.assertIsNone(strategy_report.least_energy(rows))

    def test_a_missing_input_exits_2_with_one_error_line(self):
        missing = Path(tempfile.mkdtemp()) / "absent.json"
        result = run("paper_figures.py", "t3", str(missing), "-o", str(missing.with_suffix(".png")))
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertEqual(len(result.stderr.splitlines()), 1)
        self.assertTrue(result.stderr.startswith(f"error: {missing}: cannot read JSON"))


def main() -> int:
    if any(importlib.util.find_spec(name) is None for name in ("matplotlib", "numpy")):
        print(f"skipped: {sys.executable} has no matplotlib/numpy"
              " (apt-get install python3-matplotlib)")
        return SKIP
    program = unittest.main(argv=[sys.argv[0], *sys.argv[1:]], exit=False, verbosity=1)
    return 0 if program.result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
