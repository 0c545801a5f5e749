#!/usr/bin/env bash
# Runs a small sweep single-process and under `mpirun -np 3` (each rank with 2 threads) and
# checks that the results and fault logs are byte-identical. Usage: compare_mpi_sweep.sh CODESIM
set -euo pipefail
codesim=$(realpath "$1")
scenario=$(realpath "$(dirname "$0")/sweep.json")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/single" "$work/mpi"
(cd "$work/single" && "$codesim" run "$scenario" -o results.json -q)
(cd "$work/mpi" && mpirun --allow-run-as-root --oversubscribe -np 3 \
  "$codesim" run "$scenario" -o results.json -q --jobs 2)
diff -r "$work/single" "$work/mpi"
echo "identical: $(ls "$work/mpi" | wc -l) files"
