#!/usr/bin/env python3
"""The cost of calling codesim from Python against the command line, on one short run.

Interleaved, per round: `codesim run SCENARIO -o OUT` as a process (wall time from launch to
exit); a Python process that imports codesim, runs the same scenario and saves the results
(wall time from launch to exit); and codesim.run() plus save() inside this process (the call a
notebook makes). Prints the medians and their ratios to the command line; checks that all three
wrote the same bytes. Target: the in-process call within 5% of the command line (exit 1 when
missed). Usage: python_vs_cli.py --binary build/app/codesim --module build/python [--runs N]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = "scenarios/quickstart.json"
SETS = {"/workload/iterations": 400, "/replicas": 2}  # about 2.3 s on one core (5 points)
TARGET = 1.05


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", type=Path, required=True)
    parser.add_argument("--module", type=Path, required=True, help="the directory of codesim/")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    sys.path.insert(0, str(args.module.resolve()))
    os.chdir(ROOT)
    import codesim

    env = dict(os.environ, PYTHONPATH=str(args.module.resolve()))
    scratch = Path(tempfile.mkdtemp())
    outputs = {name: scratch / f"{name}.json" for name in ("cli", "process", "call")}
    cli = [str(args.binary), "run", SCENARIO, "-q", "-o", str(outputs["cli"])]
    for pointer, value in SETS.items():
        cli += ["--set", f"{pointer}={value}"]
    sets = "".join(f".set({p!r}, {v!r})" for p, v in SETS.items())
    script = (f"import codesim; codesim.run(codesim.Scenario.load({SCENARIO!r}){sets})"
              f".save({str(outputs['process'])!r})")
    process = [sys.executable, "-c", script]
    scenario = codesim.Scenario.load(SCENARIO)
    for pointer, value in SETS.items():
        scenario.set(pointer, value)
    times: dict[str, list[float]] = {"cli": [], "process": [], "call": []}
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"python vs cli: {args.runs} rounds, interleaved; {SCENARIO} with {SETS}; "
          f"load average {load}")
    for _ in range(args.runs):
        times["cli"].append(timed(cli, env))
        times["process"].append(timed(process, env))
        start = time.perf_counter()
        codesim.run(scenario).save(outputs["call"])
        times["call"].append(time.perf_counter() - start)
    same = len({path.read_bytes() for path in outputs.values()}) == 1
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, label in (("cli", "codesim run (process)"), ("process", "python3 -c (process)"),
                        ("call", "codesim.run() in-process")):
        print(f"  {label:26s} median {medians[name]:.3f} s  "
              f"({', '.join(f'{t:.3f}' for t in times[name])})  "
              f"ratio {medians[name] / medians['cli']:.3f}")
    ratio = medians["call"] / medians["cli"]
    print(f"  same bytes: {'yes' if same else 'NO'}; in-process call / command line "
          f"{ratio:.3f} (target <= {TARGET})")
    return 0 if same and ratio <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
