"""Shared by the plot tests (run_plot_tests.py, energy_plot_tests.py): sample results built the
way codesim writes them, and running a plot script as a command."""

from __future__ import annotations

import json
import math
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PLOTS = ROOT / "analysis" / "plots"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
T95_DOF2 = 4.302652729749464

sys.path.insert(0, str(PLOTS))
import common  # noqa: E402

def aggregate(replicas: list[dict]) -> dict:
    """{metric: {mean, stderr, ci95, n}} over the scalar metrics of `replicas` (3 or fewer)."""
    names = [k for k, v in replicas[0].items() if k != "replica" and not isinstance(v, dict)]
    out = {}
    for name in names:
        values = [r[name] for r in replicas if r.get(name) is not None]
        n = len(values)
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
        t = {2: 12.706204736174707, 3: T95_DOF2}.get(n, 0.0)
        out[name] = {"mean": mean, "stderr": sd / math.sqrt(n), "ci95": t * sd / math.sqrt(n),
                     "n": n}
    return out


def training_replica(point: int, replica: int, with_loss_series: bool) -> dict:
    evaluations = 8 + replica  # replicas differ in length
    rows = []
    for k in range(evaluations + 1):
        time_s = 10.0 * k * (1.0 + 0.1 * replica + 0.2 * point)
        accuracy = 0.95 * (1.0 - math.exp(-k / 3.0)) - 0.01 * replica - 0.05 * point
        loss = 2.3 * math.exp(-k / 4.0) + 0.05 * (1 + point)
        rows.append([time_s, 50 * k, accuracy if k > 0 else None, loss])
    record = {"replica": replica, "final_test_accuracy": rows[-1][2],
              "completion_time_s": rows[-1][0], "rollbacks": float(replica),
              "corrected": 2.0 * replica + point, "faults_injected": 3.0 + replica,
              "time_compute_s": 0.6 * rows[-1][0], "time_communication_s": 0.15 * rows[-1][0],
              "time_decode_s": 0.05 * rows[-1][0], "time_checkpoint_s": 0.05 * rows[-1][0],
              "time_restart_s": 0.05 * rows[-1][0], "time_eval_s": 0.05 * rows[-1][0],
              "time_lost_s": 0.05 * rows[-1][0],
              "accuracy_vs_time": {"columns": ["time_s", "iteration", "test_accuracy",
                                               "train_loss"], "rows": rows}}
    if with_loss_series:
        iterations = list(range(0, 210, 10))
        if replica == 1:
            iterations += list(range(150, 410, 10))  # rollback to 150, then on to 400
        else:
            iterations += list(range(210, 410, 10))
        record["loss_vs_iteration"] = {
            "columns": ["iteration", "time_s", "loss"],
            "rows": [[i, 0.5 * j, 2.3 * math.exp(-i / 80.0) + 0.02 * replica + 0.05]
                     for j, i in enumerate(iterations)]}
    return record


def training_results() -> dict:
    """Two points (a numeric sweep of the soft-error probability) of three replicas each; the
    first has loss_vs_iteration series and a label, the second neither."""
    points = []
    for index, probability in enumerate([0.001, 0.01]):
        replicas = [training_replica(index, r, with_loss_series=index == 0) for r in range(3)]
        point = {"params": {"/cluster/soft_errors/probability_per_operation": probability,
                            "/strategy/scheme": "codenet_grid"},
                 "replicas": replicas, "aggregate": aggregate(replicas)}
        if index == 0:
            point["label"] = "codenet, p = 0.001"
        points.append(point)
    return {"schema_version": 1, "codesim_version": "0.1.0",
            "scenario": {"name": "training_sample", "workload": {"kind": "training"}},
            "seed": 1, "points": points}


# How the energy of with_energy()'s replicas splits into the energy_*_J components.
ENERGY_SHARES = {"compute": 0.45, "idle": 0.3, "network": 0.1, "checkpoint": 0.05,
                 "restart": 0.05, "lost": 0.05}


def power_W(point: int, replica: int) -> float:
    """The constant power of with_energy()'s replicas: energy_J = power_W * time_s."""
    return 4000.0 * (1.0 + 0.1 * replica + 0.3 * point)


def with_energy(document: dict, series: bool = True) -> dict:
    """`document` as codesim writes it since energy is recorded: each replica gains energy_J
    (power_W times completion_time_s) and its energy_*_J breakdown, and, with `series`, its
    accuracy_vs_time series an energy_J column (power_W times time_s); aggregates are redone."""
    for p, point in enumerate(document["points"]):
        for r, replica in enumerate(point["replicas"]):
            energy = power_W(p, r) * replica["completion_time_s"]
            replica["energy_J"] = energy
            for component, share in ENERGY_SHARES.items():
                replica[f"energy_{component}_J"] = share * energy
            table = replica.get("accuracy_vs_time")
            if series and table is not None:
                table["columns"].append("energy_J")
                for row in table["rows"]:
                    row.append(power_W(p, r) * row[0])
        point["aggregate"] = aggregate(point["replicas"])
    return document


def iterative_results() -> dict:
    """A sweep of the checkpoint interval for two cluster sizes, two replicas each."""
    points = []
    for nodes in (8, 16):
        for interval_s in (10.0, 30.0, 100.0, 300.0):
            replicas = []
            for r in range(2):
                compute = 1000.0 * 16 / nodes + 5.0 * r
                checkpoint = 4000.0 / interval_s
                lost = interval_s * 0.8 * (1 + 0.1 * r)
                replicas.append({"replica": r, "completed": 1.0,
                                 "completion_time_s": compute + 30.0 + checkpoint + 40.0 + lost,
                                 "rollbacks": 2.0 + r, "time_compute_s": compute,
                                 "time_communication_s": 30.0, "time_checkpoint_s": checkpoint,
                                 "time_restart_s": 40.0, "time_lost_s": lost})
            points.append({"params": {"/checkpoint/interval_s": interval_s,
                                      "/cluster/nodes": nodes},
                           "replicas": replicas, "aggregate": aggregate(replicas)})
    return {"schema_version": 1, "codesim_version": "0.1.0",
            "scenario": {"name": "checkpoint_sweep", "workload": {"kind": "iterative_job"}},
            "seed": 3, "points": points}


def run(script: str, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(PLOTS / script), *args], capture_output=True,
                          text=True, env=env, timeout=120)


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels from a PNG's IHDR chunk."""
    data = Path(path).read_bytes()
    if data[:8] != PNG_SIGNATURE:
        raise AssertionError(f"{path} is not a PNG")
    return struct.unpack(">II", data[16:24])


def load(document: dict, stem: str = "r") -> common.Results:
    """`document` written to a temporary file and loaded as the scripts load results."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{stem}.json"
        path.write_text(json.dumps(document))
        return common.load_results(path)
