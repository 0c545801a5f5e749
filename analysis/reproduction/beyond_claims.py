"""The steps beyond the papers' claims: ABFT, ENERGY, SCALE and CNN (scripts/reproduce --beyond)."""

from __future__ import annotations

import json

import cnn_report
import common
import energy_report
import production_report
import strategy_report

from .context import CODESIM, ROOT, Reproduction, codesim_json, run

def abft(r: Reproduction) -> None:
    out = r.results / "abft_vs_coded.json"
    run(["scripts/setup", "--data"])
    r.simulate(["run", "scenarios/abft_vs_coded.json", "--jobs", r.jobs, "--quiet"], out)
    run([str(CODESIM), "plot", str(out), "-o", str(r.figures)])
    results = common.load_results(out)
    strategies = {results.label(p): p.params["/strategy"] for p in results.points}
    scenario = json.loads((ROOT / "scenarios" / "abft_vs_coded.json").read_text())
    layers = ",".join(str(n) for n in scenario["workload"]["layers"])

    def expected_time(label: str, eps: float, fault: str, iteration_s: float) -> float:
        options = [f"--{k.replace('_', '-')}={v}" for k, v in strategies[label].items()]
        report = codesim_json(["theory", *options, "--layers", layers,
                               "--eps", str(eps), "--iteration-s", str(iteration_s),
                               "--checkpoint-s", str(scenario["checkpoint"]["write_s"]),
                               "--rollback-s", str(scenario["checkpoint"]["restart_s"]),
                               *(["--weight-fault", fault] if "abft" in label else []),
                               "--json"])
        return report["optimal"]["time_per_iteration_s"]

    r.sections.append(strategy_report.abft_section(results, expected_time))


def energy(r: Reproduction) -> None:
    out = r.results / "paper_energy_stochastic.json"
    r.simulate(["run", "scenarios/codenet_mnist_paper.json", "--set",
                   "/workload/mode=stochastic", "--replicas", "20", "--jobs", r.jobs,
                   "--quiet"], out)
    quickstart = r.results / "quickstart.json"
    r.sections.append(energy_report.energy_section(
        common.load_results(out),
        common.load_results(quickstart) if quickstart.exists() else None))


def scale(r: Reproduction) -> None:
    out = r.results / "production_scale.json"
    r.simulate(["run", "scenarios/production_scale.json", "--jobs", r.jobs, "--quiet"],
                  out)
    r.sections.append(production_report.production_section(common.load_results(out)))


def cnn(r: Reproduction) -> None:
    run(["scripts/setup", "--data"])
    datasets = []
    for name, dataset, setting in (
            ("Fashion-MNIST", "lenet_fashion", []),
            ("MNIST", "lenet_mnist",
             ["--set", '/workload/dataset={"kind": "mnist", "test_samples": 2000}'])):
        out = r.results / f"{dataset}.json"
        r.simulate(["run", "scenarios/lenet_fashion.json", *setting, "--jobs", r.jobs,
                       "--quiet"], out)
        run([str(CODESIM), "plot", str(out), "-o", str(r.figures)])
        datasets.append((name, common.load_results(out)))
    lines, _ = cnn_report.cnn_section(datasets)
    r.sections.append(lines + ["", "![lenet_fashion.accuracy_vs_time.png]"
                                      "(../figures/lenet_fashion.accuracy_vs_time.png)", "",
                                  "![lenet_mnist.accuracy_vs_time.png]"
                                  "(../figures/lenet_mnist.accuracy_vs_time.png)"])
