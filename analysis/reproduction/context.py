"""What every step of scripts/reproduce shares: paths, running commands, and the Reproduction
that collects each claim's verdict and the sections beyond the papers."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

BUILD = Path(os.environ.get("CODESIM_BUILD_DIR", ROOT / "build"))
CODESIM = BUILD / "app" / "codesim"
MODELS_TESTS = BUILD / "tests" / "models_tests"
PYTHON = os.environ.get("CODESIM_PYTHON3", "/usr/bin/python3")
EPS = "/faults/targets/weights/probability_per_operation"


def log(message: str) -> None:
    print(f"reproduce: {message}", file=sys.stderr, flush=True)


def run(args: list[str], output: Path | None = None) -> str:
    """Runs a command from the repository root; its stdout goes to `output` when given (written
    only when the command succeeds) and is returned. Exits on failure."""
    started = time.monotonic()
    done = subprocess.run(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        log(f"failed ({done.returncode}): {' '.join(str(a) for a in args)}")
        sys.exit(1)
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(done.stdout)
    log(f"{time.monotonic() - started:6.1f} s  {' '.join(str(a) for a in args[:4])} ...")
    return done.stdout


def codesim_json(args: list[str]) -> dict:
    return json.loads(run([str(CODESIM), *args]))


def logspace(lo: float, hi: float, count: int) -> list[float]:
    return [10 ** (math.log10(lo) + i * (math.log10(hi) - math.log10(lo)) / (count - 1))
            for i in range(count)]


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    lx = [math.log(x) for x in xs]
    ly = [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def interp(x: float, xs: list[float], ys: list[float]) -> float:
    """Linear interpolation (xs ascending), clamped at the ends."""
    if x <= xs[0]:
        return ys[0]
    for (x0, y0), (x1, y1) in zip(zip(xs, ys), zip(xs[1:], ys[1:])):
        if x <= x1:
            return y0 + (y1 - y0) * (x - x0) / (x1 - x0)
    return ys[-1]


def figure(kind: str, inputs: list[str], output: Path) -> None:
    run([PYTHON, str(ROOT / "analysis" / "plots" / "paper_figures.py"), kind, *inputs, "-o",
         str(output)])


class Reproduction:
    """The options of one reproduction and what its steps found."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.full = args.full
        self.paper = args.paper
        self.jobs = str(args.jobs)
        self.arithmetic = args.arithmetic
        self.arithmetics_run: set[str] = set()  # the concrete kernels the results record
        self.reuse = args.reuse
        self.results = ROOT / "results"
        self.figures = ROOT / "figures"
        self.claims: list[dict] = []
        self.sections: list[list[str]] = []  # beyond the papers' claims: lines of a section
        self.step_seconds: dict[str, float] = {}  # each step's wall time

    def simulate(self, args: list[str], output: Path) -> None:
        """codesim ARGS writing `output` (passed as -o unless it is the command's stdout), skipped
        with --reuse when `output` exists."""
        if self.reuse and output.exists():
            log(f"reusing {output.relative_to(ROOT)}")
        elif args[0] == "run":
            run([str(CODESIM), *args, "-o", str(output), "--arithmetic", self.arithmetic])
        else:
            run([str(CODESIM), *args], output)
        if args[0] == "run":
            self.arithmetics_run.add(json.loads(output.read_text())["arithmetic"])

    def claim(self, step: str, text: str, figure_names: list[str], measured: str,
              verdict: str, note: str = "") -> None:
        self.claims.append({"step": step, "claim": text, "figures": figure_names,
                            "measured": measured, "verdict": verdict, "note": note})
