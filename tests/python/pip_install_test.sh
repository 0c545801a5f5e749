#!/usr/bin/env bash
# `pip install .` into a fresh virtual environment, with no package index: the tree's own build
# backend (python/packaging) builds the module in BUILD_DIR (here the one ctest runs from, so the
# module is already built), then the installed package runs a scenario from outside the tree.
# Usage: pip_install_test.sh ROOT BUILD_DIR PYTHON
set -euo pipefail
root=$1
build=$2
python=$3
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" -m venv "$scratch/venv"
CODESIM_BUILD_DIR=$build "$scratch/venv/bin/pip" install --no-index --no-cache-dir -q "$root" \
  >"$scratch/pip.log" 2>&1 || { cat "$scratch/pip.log"; exit 1; }
cd "$scratch"  # not the tree: the installed package must not be found through it
"$scratch/venv/bin/python" - "$root" <<'PY'
import sys
from pathlib import Path

import codesim

root = Path(sys.argv[1])
assert Path(codesim.__file__).resolve().is_relative_to(Path(sys.prefix).resolve()), codesim.__file__
results = codesim.run(root / "scenarios" / "iterative_job.json", replicas=2)
assert results.complete and len(results.points[0]["replicas"]) == 2
assert (Path(codesim.__file__).parent / "plots" / "plot.py").exists()
print(f"pip install: codesim {codesim.__version__} from {Path(codesim.__file__).parent}")
PY
