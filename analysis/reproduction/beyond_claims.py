"""The steps beyond the papers' claims: ABFT, ENERGY, SCALE, CNN and ADVICE (scripts/reproduce
--beyond)."""

from __future__ import annotations

import json

import cnn_report
import common
import energy_report
import production_report
import strategy_report

from .context import CODESIM, ROOT, Reproduction, codesim_json, log, run

# ADVICE's map: the soft-error probability of the weights against the node MTBF.
ADVICE_AXES = ("/faults/targets/weights/probability_per_operation=1e-5..1e-3:6",
               "/cluster/crashes/mtbf_s=100..100000:6")

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


def advice(r: Reproduction) -> None:
    """codesim advise --map on the paper's configuration (its 784-10000-10000-10 network on 40
    nodes): the strategy that wins each cell of soft-error probability x node MTBF, and the map
    of where each family pays."""
    out = r.results / "advice_map.json"
    if r.reuse and out.exists():
        log(f"reusing {out.relative_to(ROOT)}")
    else:
        run([str(CODESIM), "advise", "scenarios/codenet_mnist_paper.json",
             *[arg for axis in ADVICE_AXES for arg in ("--map", axis)],
             "--jobs", r.jobs, "-q", "-o", str(out)])
    run([str(CODESIM), "plot", str(out), "-o", str(r.figures)])
    r.sections.append(advice_section(json.loads(out.read_text())))


def advice_section(advice_map: dict) -> list[str]:
    """The report's section: the winning family and configuration per cell, and the figure."""
    columns = advice_map["cells"]["columns"]
    rows = [dict(zip(columns, row)) for row in advice_map["cells"]["rows"]]
    x_axis, y_axis = advice_map["axes"]
    families: dict[str, int] = {}
    for row in rows:
        families[row["family"]] = families.get(row["family"], 0) + 1
    lines = ["## ADVICE: where coding pays on the paper's cluster", "",
             "`codesim advise --map` on the paper's configuration (`codenet_mnist_paper.json`: the "
             "784-10000-10000-10 MLP, 8000 iterations, 40 nodes, stochastic mode): each of the "
             f"{len(rows)} cells advised "
             f"on its own (budget {advice_map['budget_s']:g} s of simulated work per cell), "
             f"`{x_axis['pointer']}` across and `{y_axis['pointer']}` down. "
             "Cells won per family: "
             + ", ".join(f"{name} {count}" for name, count in sorted(families.items())) + ".",
             "", "| " + y_axis["pointer"].rsplit("/", 1)[-1] + " \\ eps | "
             + " | ".join(f"{v:.3g}" for v in x_axis["values"]) + " |",
             "|---" * (len(x_axis["values"]) + 1) + "|"]
    for y in y_axis["values"]:
        cells = [row for row in rows if row["values"][1] == y]
        lines.append(f"| {y:.3g} | " + " | ".join(
            f"{row['family']}: {row['scheme']}, {row['checkpoint']}" for row in cells) + " |")
    lines += ["", "![advice_map.map.png](../figures/advice_map.map.png)"]
    return lines
