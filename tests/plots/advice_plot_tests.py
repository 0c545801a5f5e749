"""Tests of the figures of codesim advise (analysis/plots/advice_figures.py): the Pareto figure
of an ADVICE.json and the map of a MAP.json, drawn by plot.py from small documents built here as
codesim advise writes them; the Pareto front, cell edges and cell texts as pure functions; bad
documents. Run by run_plot_tests.py."""

from __future__ import annotations

import json
import math
import os
import tempfile
import unittest
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from plot_test_support import PNG_SIGNATURE, png_size, run  # noqa: I001
import advice_figures  # noqa: E402
import advice_map_figure  # noqa: E402

ADVICE_COLUMNS = ["label", "strategy", "checkpoint", "checkpoint_factor", "decentralized",
                  "baseline", "nodes", "storage_fraction_per_node", "optimistic_time_s",
                  "optimistic_energy_J", "estimate_time_s", "estimate_energy_J",
                  "pessimistic_time_s", "pessimistic_energy_J", "rollback_probability",
                  "silent_run_probability", "interval_iterations", "mtbf_s", "stage", "reason",
                  "rank", "simulated"]
MAP_COLUMNS = ["values", "label", "family", "scheme", "checkpoint", "decentralized", "nodes",
               "storage_overhead", "mean", "ci95", "baseline_mean", "versus_baseline",
               "versus_baseline_ci95", "configurations", "simulated", "rounds",
               "budget_exhausted"]
# The simulated configurations on the front of advice_document(): the silent and incomplete
# ones ahead of them in time or energy are not.
FRONT = ["abft m=2 n=4 | none | decentralized",
         "codenet_grid m=2 n=2 grid_rows=3 grid_cols=3 | daly x4 | decentralized",
         "gpd m=2 n=4 nodes=14 orientation=default | young | centralized"]


def configuration_row(label: str, stage: str, time_s: float | None, energy_J: float | None,
                      nodes: int = 8, fraction: float = 0.125, rank: int = 0,
                      baseline: bool = False, silent_probability: float = 0.0,
                      silent_corruptions: int = 0, incomplete: int = 0) -> list:
    """A row of ADVICE.json's configurations: estimates 10% under `time_s`/`energy_J`, and in
    the simulation stage a simulated object with them (the objective is time)."""
    scheme = label.split()[0]
    simulated = None
    if stage == "simulation":
        simulated = {"replicas": 4, "mean": time_s, "ci95": 0.01, "time_s": time_s,
                     "energy_J": energy_J, "difference_to_best": 0.0, "difference_ci95": 0.0,
                     "silent_corruptions": silent_corruptions, "incomplete": incomplete}
    bounded = stage != "excluded"
    estimate = [None if v is None or not bounded else 0.9 * v for v in (time_s, energy_J)]
    return [label, {"scheme": scheme, "m": 1, "n": 1}, "none", 1.0, True, baseline,
            nodes if bounded else None, fraction if bounded else None, *estimate, *estimate,
            *estimate, 1e-4 if bounded else None, silent_probability if bounded else None,
            0 if bounded else None, 0.0 if bounded else None, stage, "reason", rank, simulated]


def advice_document() -> dict:
    """Ten configurations: seven simulated (the recommendation, two more on the front, one
    dominated, one corrupting silently, one unsafe by its closed forms, one incomplete, the
    baseline), two stopped by their bounds (one unsafe) and one excluded."""
    rows = [
        configuration_row(FRONT[0], "simulation", 1.0, 2.0, rank=1),
        configuration_row(FRONT[1], "simulation", 1.2, 1.5, nodes=12, rank=2),
        configuration_row(FRONT[2], "simulation", 1.5, 1.0, nodes=14, fraction=0.25, rank=3),
        configuration_row("mds k=4 nodes=8 | none | decentralized", "simulation", 1.6, 1.8,
                          fraction=0.25, rank=4),
        configuration_row("uncoded m=1 n=1 | none | decentralized", "simulation", 0.5, 0.5,
                          nodes=1, fraction=1.0, rank=5, silent_corruptions=2),
        configuration_row("uncoded m=1 n=1 | daly | decentralized", "simulation", 0.9, 1.9,
                          nodes=1, fraction=1.0, rank=6, silent_probability=0.02),
        configuration_row("replication m=1 n=1 copies=2 | scenario | decentralized (baseline)",
                          "simulation", 3.0, 4.0, nodes=2, fraction=1.0, rank=7, baseline=True),
        configuration_row("abft m=1 n=1 | daly | centralized", "simulation", 0.8, 3.0, nodes=1,
                          fraction=1.0, rank=8, incomplete=1),
        configuration_row("gpd m=3 n=3 nodes=30 orientation=default | none | decentralized",
                          "bound", 20.0, 60.0, nodes=30, fraction=1 / 9),
        configuration_row("uncoded m=4 n=4 | young | centralized", "bound", 2.0, 3.0,
                          nodes=16, fraction=1 / 16, silent_probability=0.5),
        configuration_row("mds k=9 nodes=10 | none | decentralized", "excluded", None, None),
    ]
    return {"schema_version": 1, "kind": "advice", "codesim_version": "0.1.0",
            "scenario": {"name": "advice_sample"}, "seed": 1, "objective": "time",
            "unit": "s per useful iteration", "budget_s": 10.0, "budget_used_s": 1.0,
            "budget_exhausted": False, "rounds": 3,
            "counts": {"configurations": 11, "excluded": 1, "bound": 2, "simulation": 8},
            "recommendation": dict(zip(ADVICE_COLUMNS, rows[0])), "best_pessimistic":
            {"value": 0.9, "label": FRONT[0]},
            "configurations": {"columns": list(ADVICE_COLUMNS), "rows": rows}}


def older_advice_document() -> dict:
    """advice_document() as codesim advise wrote it before simulated time_s and energy_J."""
    document = advice_document()
    for row in document["configurations"]["rows"]:
        if row[-1] is not None:
            del row[-1]["time_s"], row[-1]["energy_J"]
    return document


# Strategies of each family as the map's cells name them: (label, scheme, checkpoint).
MAP_STRATEGIES = {
    "uncoded": ("uncoded m=1 n=1 | none | decentralized", "uncoded", "none"),
    "checkpointing": ("uncoded m=1 n=1 | daly x4 | decentralized", "uncoded", "daly x4"),
    "replication": ("replication m=1 n=2 copies=3 | young | centralized", "replication", "young"),
    "coding": ("codenet_grid m=5 n=4 grid_rows=7 grid_cols=6 | daly x4 | decentralized",
               "codenet_grid", "daly x4"),
    "abft": ("abft_codenet m=2 n=8 grid_rows=3 grid_cols=9 | daly x4 | centralized",
             "abft_codenet", "daly x4"),
}


def map_document(sizes: tuple[int, ...] = (6, 6)) -> dict:
    """A MAP.json over the weights' fault probability (log) and, with two sizes, the crash
    MTBF (log): coding where faults are frequent, ABFT at moderate faults, checkpointing where
    crashes dominate, replication at the corner of both, uncoded where neither matters."""
    probability = [10.0 ** (k - 7) for k in range(sizes[0])]
    axes = [{"pointer": "/faults/targets/weights/probability_per_operation",
             "values": probability, "scale": "log"}]
    if len(sizes) > 1:
        axes.append({"pointer": "/cluster/crashes/mtbf_s",
                     "values": [10.0 * 3 ** k for k in range(sizes[1])], "scale": "log"})
    rows = []
    for i, p in enumerate(probability):
        for j in range(sizes[1] if len(sizes) > 1 else 1):
            family = ("coding" if i >= 4 else "abft" if i >= 2 else
                      "replication" if j == 0 and len(sizes) > 1 else
                      "checkpointing" if j < 3 and len(sizes) > 1 else "uncoded")
            label, scheme, checkpoint = MAP_STRATEGIES[family]
            values = [p] + ([axes[1]["values"][j]] if len(sizes) > 1 else [])
            rows.append([values, label, family, scheme, checkpoint, True, 8, 1.0, 1e-3, 1e-5,
                         3e-3, -2e-3, 1e-4, 9016, 91, 3, False])
    return {"schema_version": 1, "kind": "advice_map", "codesim_version": "0.1.0",
            "scenario": {"name": "map_sample"}, "seed": 1, "objective": "time",
            "unit": "s per useful iteration", "budget_s": 10.0, "axes": axes,
            "families": ["uncoded", "checkpointing", "replication", "coding", "abft"],
            "cells": {"columns": list(MAP_COLUMNS), "rows": rows}}


def loaded_advice(document: dict) -> advice_figures.Advice:
    return advice_figures.load_advice(Path("advice.json"), document)


class AdviceChecks(unittest.TestCase):
    """The pure parts: the Pareto front, what is kept off it, cell edges and cell texts."""

    def test_the_pareto_front_is_exactly_the_non_dominated_points_by_increasing_time(self):
        points = [(1, 5), (2, 3), (3, 4), (4, 1), (2, 3), (5, 1), (0.5, 6)]
        # (3, 4) is dominated by (2, 3) and (5, 1) by (4, 1); the equal (2, 3) are both kept.
        self.assertEqual(advice_figures.pareto_front(points), [6, 0, 1, 4, 3])
        self.assertEqual(advice_figures.pareto_front([(1, 2), (1, 1)]), [1])
        self.assertEqual(advice_figures.pareto_front([]), [])

    def test_silent_corrupting_and_incomplete_configurations_are_kept_off_the_front(self):
        advice = loaded_advice(advice_document())
        front = advice_figures.front_configurations(advice.configurations)
        self.assertEqual([c.label for c in front], FRONT)
        silent = [c.label for c in advice.configurations if c.silent]
        self.assertEqual(silent, ["uncoded m=1 n=1 | none | decentralized",
                                  "uncoded m=1 n=1 | daly | decentralized",
                                  "uncoded m=4 n=4 | young | centralized"])

    def test_an_older_advice_is_drawn_from_the_simulated_mean_and_the_energy_estimate(self):
        advice = loaded_advice(older_advice_document())
        self.assertEqual(advice.estimated, ["energy"])
        first = advice.configurations[0]
        self.assertEqual((first.time_s, first.energy_J), (1.0, 0.9 * 2.0))
        self.assertEqual(first.storage_overhead, 1.0)  # 8 nodes * 1/8 of the weights each
        self.assertEqual(loaded_advice(advice_document()).estimated, [])

    def test_cell_edges_tile_the_axis_halfway_between_values_geometrically_on_a_log_scale(self):
        edges = advice_map_figure.cell_edges([1e-3, 1e-5, 1e-4], log=True)
        for edge, exponent in zip(edges, (-5.5, -4.5, -3.5, -2.5)):
            self.assertAlmostEqual(math.log10(edge), exponent)
        self.assertEqual(advice_map_figure.cell_edges([0.0, 10.0, 30.0], log=False),
                         [-5.0, 5.0, 20.0, 40.0])
        lone = advice_map_figure.cell_edges([100.0], log=True)
        self.assertAlmostEqual(lone[0] * lone[1], 100.0 ** 2)
        self.assertAlmostEqual(lone[1] / lone[0], 10.0)
        self.assertEqual(advice_map_figure.cell_edges([4.0], log=False), [2.0, 6.0])
        values = [10.0 * 3 ** k for k in range(6)]
        edges = advice_map_figure.cell_edges(values, log=True)
        self.assertTrue(all(a < v < b for a, v, b in zip(edges, values, edges[1:])))

    def test_cells_name_the_scheme_in_a_few_words_and_the_checkpoint_unless_none(self):
        short = advice_map_figure.short_strategy
        self.assertEqual(short("abft m=2 n=4 | none | decentralized", "abft", "none"),
                         "abft 2x4")
        self.assertEqual(short(*MAP_STRATEGIES["coding"]), "codenet 5x4 7x6\ndaly x4")
        self.assertEqual(short(*MAP_STRATEGIES["replication"]), "repl 1x2 x3\nyoung")
        self.assertEqual(short("gpd m=2 n=4 nodes=14 orientation=default | none | centralized",
                               "gpd", "none"), "gpd 2x4 P14")
        self.assertEqual(short("mds k=4 nodes=8 | none | decentralized", "mds", "none"),
                         "mds k4 P8")

    def test_a_family_keeps_its_colour_whatever_families_the_map_holds(self):
        colours = advice_map_figure.family_colours
        self.assertEqual(colours(["abft"])["abft"], colours(["uncoded", "coding", "abft"])["abft"])
        extra = colours(["abft", "new_family", "other"])
        self.assertEqual(len(set(extra.values())), 3)


class AdviceFigures(unittest.TestCase):
    """plot.py on advice documents: the figures written, the bad documents refused."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.dir = Path(cls.tmp.name)
        documents = {"sample.advice": advice_document(), "older.advice": older_advice_document(),
                     "grid.map": map_document((6, 6)), "strip.map": map_document((5,))}
        for stem, document in documents.items():
            (cls.dir / f"{stem}.json").write_text(json.dumps(document))
        pool = ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2))
        # Every document into a/, and the two kinds again into b/ to compare the bytes.
        runs = [(stem, "a") for stem in documents] + [("sample.advice", "b"), ("grid.map", "b")]
        cls.runs = {(stem, out): pool.submit(run, "plot.py", str(cls.dir / f"{stem}.json"),
                                             "-o", str(cls.dir / out)) for stem, out in runs}
        pool.shutdown(wait=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def assert_figure(self, stem: str, figure: str) -> Path:
        """Checks the runs on `stem` wrote DIR/<stem>.<figure>.png, the same bytes when run
        twice, and printed only its path; returns it."""
        paths = []
        for out in [o for s, o in self.runs if s == stem]:
            result = self.runs[(stem, out)].result()
            self.assertEqual(result.returncode, 0, result.stderr)
            self.assertEqual(result.stderr, "")
            path = self.dir / out / f"{stem}.{figure}.png"
            self.assertEqual(result.stdout, f"{path}\n")
            self.assertEqual(path.read_bytes()[:8], PNG_SIGNATURE)
            paths.append(path)
        self.assertEqual(paths[0].read_bytes(), paths[-1].read_bytes())
        return paths[0]

    def test_the_pareto_figure_is_written_for_a_small_advice_document(self):
        self.assert_figure("sample.advice", "pareto")

    def test_the_pareto_figure_is_written_for_an_advice_without_simulated_time_and_energy(self):
        self.assert_figure("older.advice", "pareto")

    def test_the_map_is_written_for_two_axes_and_for_one_as_a_strip(self):
        self.assert_figure("grid.map", "map")
        width, height = png_size(self.assert_figure("strip.map", "map"))
        self.assertGreater(width, 2 * height)

    def test_bad_advice_documents_exit_2_with_the_pointer_and_write_no_figure(self):
        def advice(change) -> dict:
            document = advice_document()
            change(document)
            return document

        def a_map(change) -> dict:
            document = map_document((3, 2))
            change(document)
            return document

        cases = [
            (advice(lambda d: d["configurations"]["rows"][3].pop()),
             "/configurations/rows/3: has 21 values for 22 columns (expected one per column)"),
            (advice(lambda d: d["configurations"]["columns"].remove("stage")),
             "/configurations/columns: has no column stage (expected the columns label, "),
            (advice(lambda d: d.update(objective="speed")),
             '/objective: is "speed" (expected "time" or "energy")'),
            (a_map(lambda d: d["cells"]["rows"][2].__setitem__(0, [1e-7])),
             "/cells/rows/2/0: values is [1e-07] (expected a list of 2 values, one per axis)"),
            (a_map(lambda d: d["cells"]["rows"][1].__setitem__(2, "magic")),
             '/cells/rows/1/2: family is "magic" (expected one of uncoded, checkpointing, '),
            (a_map(lambda d: d["axes"].append(dict(d["axes"][0]))),
             "/axes: has 3 axes (expected 1 or 2 axes)"),
        ]
        for number, (document, message) in enumerate(cases):
            with self.subTest(message=message):
                path = self.dir / f"bad{number}.json"
                path.write_text(json.dumps(document))
                out = self.dir / f"bad{number}"
                result = run("plot.py", str(path), "-o", str(out))
                self.assertEqual(result.returncode, 2, result.stderr)
                self.assertEqual(result.stdout, "")
                lines = result.stderr.splitlines()
                self.assertEqual(len(lines), 1, result.stderr)
                self.assertTrue(lines[0].startswith(f"error: {path}: {message}"), lines[0])
                self.assertFalse(out.exists(), "a figure was written for bad input")


if __name__ == "__main__":
    unittest.main()
